package tournament_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/connectn/connectn/tournament"
)

// arenaPoints is lichess's arena scoring, written out for the tests from
// its description: a win 2, a draw 1, a loss 0; after two wins in a row a
// player is on fire and a win counts 4, a draw 2, until they fail to win.
// results are one player's games in order: 'W', 'D' or 'L'.
func arenaPoints(results string) (points int, onFire bool) {
	run := 0
	for _, r := range results {
		fire := run >= 2
		switch r {
		case 'W':
			points += map[bool]int{false: 2, true: 4}[fire]
			run++
		case 'D':
			points += map[bool]int{false: 1, true: 2}[fire]
			run = 0
		default:
			run = 0
		}
	}
	return points, run >= 2
}

// TestArenaScoring checks the standings' points and on-fire flag against
// sequences worked out by hand.
func TestArenaScoring(t *testing.T) {
	tests := []struct {
		name    string
		results string
		points  int
		onFire  bool
	}{
		{"no game", "", 0, false},
		{"one win", "W", 2, false},
		{"two wins: on fire", "WW", 4, true},
		{"the third win counts 4", "WWW", 8, true},
		{"a draw on fire counts 2 and puts it out", "WWWD", 10, false},
		{"a loss puts it out", "WWWL", 8, false},
		{"two wins light it again", "WWWLWWW", 16, true},
		{"draws never light it", "DDDD", 4, false},
		{"by hand: 2 2 4 2 2 2 4 0 2", "WWWDWWWLW", 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, f := arenaPoints(tt.results); p != tt.points || f != tt.onFire {
				t.Fatalf("the test's own scoring says %d, %v: the row is wrong", p, f)
			}
			// The player plays the sequence against fresh opponents.
			s := newTournament(t, tournament.Config{Format: tournament.Arena, Duration: time.Hour}, 1+len(tt.results), rand.New(rand.NewPCG(1, 1)))
			s.Started = start
			for i, r := range tt.results {
				res := map[rune]tournament.Result{'W': tournament.OpenerWins, 'D': tournament.Draw, 'L': tournament.SecondWins}[r]
				p := tournament.Pairing{Opener: "p000", Second: s.Players[i+1].ID, Result: res}
				s = appendRound(t, s, tournament.Round{Number: i + 1, Started: start.Add(time.Duration(i) * time.Minute), Pairings: []tournament.Pairing{p}})
			}
			st, err := tournament.Standings(s)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(st, func(x tournament.Standing) bool { return x.Player == "p000" })
			if got := st[i]; got.Points != float64(tt.points) || got.OnFire != tt.onFire || got.Games != len(tt.results) {
				t.Errorf("%s: %v points, on fire %v, %d games; want %d, %v, %d", tt.results, got.Points, got.OnFire, got.Games, tt.points, tt.onFire, len(tt.results))
			}
		})
	}
}

// arenaGame is an arena game in the simulation.
type arenaGame struct {
	round       int
	opener, sec string
	ends        time.Time
}

// TestArenaSimulation runs random arenas of 8 to 64 players on a simulated
// clock: every game takes 2 to 10 minutes; when one ends its result is
// recorded and its players join the waiting ones, who are paired at once
// (a few players withdraw, waiting or during a game, which they lose by
// forfeit). It checks every pairing: only waiting players still in, never
// a rematch of either player's last game, as many pairs as possible, and
// for pools of up to 8 the least total difference of points, then of
// rating (brute force); after the end no pairing, and games that started
// before it are played out and count. The standings' points and on-fire
// flags are checked against arenaPoints over each player's games.
func TestArenaSimulation(t *testing.T) {
	arenas := runs(80)
	rng := rand.New(rand.NewPCG(27, 9))
	brute, late := 0, 0
	for a := range arenas {
		n := 8 + rng.IntN(57)
		s := newTournament(t, tournament.Config{Format: tournament.Arena, Duration: time.Hour}, n, rng)
		s.Started = start
		end := tournament.ArenaEnd(s)
		var playing []arenaGame
		waiting := map[string]bool{}
		for _, p := range s.Players {
			waiting[p.ID] = true
		}
		lastOpp := map[string]string{}
		history := map[string]string{} // W, D, L in order, per player
		now := start
		for {
			var pool []string
			for _, p := range s.Players {
				if waiting[p.ID] && !p.Withdrawn {
					pool = append(pool, p.ID)
				}
			}
			rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
			r, err := tournament.ArenaPair(s, pool, now)
			switch {
			case !now.Before(end):
				if !errors.Is(err, tournament.ErrTournamentOver) {
					t.Fatalf("arena %d at the end: %v, want ErrTournamentOver", a, err)
				}
			case errors.Is(err, tournament.ErrNoPairing):
				if canPair(pool, lastOpp) > 0 {
					t.Fatalf("arena %d: ErrNoPairing but %v could play", a, pool)
				}
			case err != nil:
				t.Fatalf("arena %d: %v", a, err)
			default:
				if r.Number != len(s.Rounds)+1 || !r.Started.Equal(now) {
					t.Fatalf("arena %d: round %d started %v, want %d at %v", a, r.Number, r.Started, len(s.Rounds)+1, now)
				}
				if want := canPair(pool, lastOpp); len(r.Pairings) != want {
					t.Fatalf("arena %d: %d pairs of %d waiting, but %d are possible", a, len(r.Pairings), len(pool), want)
				}
				if len(pool) <= 8 {
					brute++
					got, want := arenaCost(s, r.Pairings, history), bestArenaCost(s, pool, lastOpp, history)
					if got != want {
						t.Fatalf("arena %d: pairing %v costs %v, the best %v", a, r.Pairings, got, want)
					}
				}
				for _, p := range r.Pairings {
					if !waiting[p.Opener] || !waiting[p.Second] {
						t.Fatalf("arena %d: %s–%s, not both waiting", a, p.Opener, p.Second)
					}
					if lastOpp[p.Opener] == p.Second || lastOpp[p.Second] == p.Opener {
						t.Fatalf("arena %d: %s and %s meet twice in a row", a, p.Opener, p.Second)
					}
					delete(waiting, p.Opener)
					delete(waiting, p.Second)
					playing = append(playing, arenaGame{r.Number, p.Opener, p.Second, now.Add(time.Duration(2+rng.IntN(9)) * time.Minute)})
				}
				s = appendRound(t, s, r)
			}
			if len(playing) == 0 {
				break
			}
			// The next game to end.
			slices.SortFunc(playing, func(x, y arenaGame) int { return x.ends.Compare(y.ends) })
			g := playing[0]
			playing = playing[1:]
			now = g.ends
			if now.After(end) {
				late++ // started before the end, played out: it counts
			}
			res := randomResult(rng)
			switch x := rng.IntN(100); {
			case x < 2:
				s, _ = tournament.Leave(s, g.opener)
				res = tournament.SecondWinsByForfeit
			case x < 4:
				s, _ = tournament.Leave(s, g.sec)
				res = tournament.OpenerWinsByForfeit
			}
			var err2 error
			if s, err2 = tournament.RecordResult(s, g.round, g.opener, res); err2 != nil {
				t.Fatal(err2)
			}
			sides := map[tournament.Result][2]string{
				tournament.OpenerWins: {"W", "L"}, tournament.OpenerWinsByForfeit: {"W", "L"},
				tournament.SecondWins: {"L", "W"}, tournament.SecondWinsByForfeit: {"L", "W"},
				tournament.Draw: {"D", "D"}, tournament.DoubleForfeit: {"L", "L"},
			}[res]
			history[g.opener] += sides[0]
			history[g.sec] += sides[1]
			lastOpp[g.opener], lastOpp[g.sec] = g.sec, g.opener
			waiting[g.opener], waiting[g.sec] = true, true
			if rng.IntN(200) == 0 { // someone waiting leaves
				for _, p := range s.Players {
					if waiting[p.ID] && !p.Withdrawn {
						s, _ = tournament.Leave(s, p.ID)
						break
					}
				}
			}
		}
		// Nobody is playing: the arena is over once its time is up, and
		// not before.
		if now.Before(end) && tournament.Over(s, now) {
			t.Fatalf("arena %d: over at %v, before its end %v", a, now, end)
		}
		if now.Before(end) {
			now = end
		}
		if !tournament.Over(s, now) {
			t.Fatalf("arena %d: not over at %v (end %v) with every game played", a, now, end)
		}
		if _, err := tournament.ArenaPair(s, nil, now); !errors.Is(err, tournament.ErrTournamentOver) {
			t.Fatalf("arena %d: pairing after the end: %v, want ErrTournamentOver", a, err)
		}
		if late == 0 && a > runs(20) {
			t.Fatalf("no game had ended after the end in %d arenas: the test proves little", a)
		}
		st, err := tournament.Standings(s)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range st {
			p, fire := arenaPoints(history[x.Player])
			if x.Points != float64(p) || x.OnFire != fire || x.Games != len(history[x.Player]) {
				t.Fatalf("arena %d: %s (%s): %v points, on fire %v, %d games; want %d, %v, %d",
					a, x.Player, history[x.Player], x.Points, x.OnFire, x.Games, p, fire, len(history[x.Player]))
			}
			if i > 0 && st[i-1].Points < x.Points {
				t.Fatalf("arena %d: rank %d has fewer points than rank %d", a, i, i+1)
			}
		}
	}
	if brute < runs(100) {
		t.Errorf("only %d small pools checked by brute force", brute)
	}
}

// canPair returns the most pairs the pool allows, none repeating either
// player's last game (brute force over small pools, a matching otherwise).
func canPair(pool []string, lastOpp map[string]string) int {
	ok := func(a, b string) bool { return lastOpp[a] != b && lastOpp[b] != a }
	best := 0
	var rec func(rest []string, pairs int)
	if len(pool) > 12 {
		for drop := 0; drop <= len(pool); drop++ {
			// The largest even subset that pairs perfectly, trying the
			// pool without up to `drop` players is exponential; a pool this
			// big always pairs all but at most one or two, so check those.
			if drop > 2 {
				break
			}
			for _, sub := range subsets(pool, len(pool)-drop) {
				if perfectExists(sub, ok) {
					return len(sub) / 2
				}
			}
		}
		return 0
	}
	rec = func(rest []string, pairs int) {
		best = max(best, pairs)
		if len(rest) < 2 {
			return
		}
		a := rest[0]
		rec(rest[1:], pairs)
		for i := 1; i < len(rest); i++ {
			if ok(a, rest[i]) {
				next := append(append([]string(nil), rest[1:i]...), rest[i+1:]...)
				rec(next, pairs+1)
			}
		}
	}
	rec(pool, 0)
	return best
}

// subsets returns the subsets of pool of size k, for k ≥ len(pool)−2.
func subsets(pool []string, k int) [][]string {
	switch len(pool) - k {
	case 0:
		return [][]string{pool}
	case 1:
		var out [][]string
		for i := range pool {
			out = append(out, slices.Delete(slices.Clone(pool), i, i+1))
		}
		return out
	}
	var out [][]string
	for i := range pool {
		for j := i + 1; j < len(pool); j++ {
			sub := slices.Delete(slices.Clone(pool), j, j+1)
			out = append(out, slices.Delete(sub, i, i+1))
		}
	}
	return out
}

// arenaCost is the documented cost of arena pairs: the total difference
// of arena points, then of rating (whole points).
func arenaCost(s tournament.State, pairs []tournament.Pairing, history map[string]string) [2]int {
	at := index(s)
	var c [2]int
	for _, p := range pairs {
		a, _ := arenaPoints(history[p.Opener])
		b, _ := arenaPoints(history[p.Second])
		c[0] += abs(a - b)
		c[1] += abs(int(rating(s.Players[at[p.Opener]]) - rating(s.Players[at[p.Second]])))
	}
	return c
}

// bestArenaCost is the least arenaCost of the pairings of the pool with the
// most pairs and no immediate rematch (brute force).
func bestArenaCost(s tournament.State, pool []string, lastOpp map[string]string, history map[string]string) [2]int {
	most := canPair(pool, lastOpp)
	var best [2]int
	found := false
	var rec func(rest []string, pairs []tournament.Pairing)
	rec = func(rest []string, pairs []tournament.Pairing) {
		if len(pairs) == most {
			if c := arenaCost(s, pairs, history); !found || slices.Compare(c[:], best[:]) < 0 {
				best, found = c, true
			}
			return
		}
		if len(rest) < 2 {
			return
		}
		a := rest[0]
		rec(rest[1:], pairs)
		for i := 1; i < len(rest); i++ {
			b := rest[i]
			if lastOpp[a] != b && lastOpp[b] != a {
				next := append(append([]string(nil), rest[1:i]...), rest[i+1:]...)
				rec(next, append(slices.Clone(pairs), tournament.Pairing{Opener: a, Second: b}))
			}
		}
	}
	rec(pool, nil)
	return best
}

// TestArenaPairRefusals checks each refusal of ArenaPair.
func TestArenaPairRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 10))
	s := newTournament(t, tournament.Config{Format: tournament.Arena, Duration: time.Hour}, 6, rng)
	notStarted := s
	s.Started = start
	r, err := tournament.ArenaPair(s, []string{"p000", "p001"}, start)
	if err != nil {
		t.Fatal(err)
	}
	busy := appendRound(t, s, r)
	withdrawn, _ := tournament.Leave(busy, "p003") // after a round: withdrawn, not removed
	justPlayed, _ := tournament.RecordResult(busy, 1, "p000", tournament.Draw)
	swiss := newTournament(t, tournament.Config{Format: tournament.Swiss}, 4, rng)
	tests := []struct {
		name    string
		s       tournament.State
		waiting []string
		now     time.Time
		want    error
	}{
		{"not started", notStarted, []string{"p000", "p001"}, start, tournament.ErrNotStarted},
		{"before the start", s, []string{"p000", "p001"}, start.Add(-time.Second), tournament.ErrNotStarted},
		{"at the end", s, []string{"p000", "p001"}, start.Add(time.Hour), tournament.ErrTournamentOver},
		{"unknown player", s, []string{"p000", "zzz"}, start, tournament.ErrUnknownPlayer},
		{"withdrawn player", withdrawn, []string{"p002", "p003"}, start, tournament.ErrWithdrawn},
		{"still playing", busy, []string{"p000", "p002"}, start, tournament.ErrBusy},
		{"only the two who just played", justPlayed, []string{"p000", "p001"}, start.Add(time.Minute), tournament.ErrNoPairing},
		{"one waiting", s, []string{"p000", "p000"}, start, tournament.ErrNoPairing},
		{"a Swiss", swiss, []string{"p000", "p001"}, start, tournament.ErrWrongFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tournament.ArenaPair(tt.s, tt.waiting, tt.now)
			if !errors.Is(err, tt.want) || r.Pairings != nil {
				t.Errorf("got %+v, %v; want no round and %v", r, err, tt.want)
			}
		})
	}
	// The two who just played may each play someone else.
	r2, err := tournament.ArenaPair(justPlayed, []string{"p000", "p001", "p002", "p003"}, start.Add(time.Minute))
	if err != nil || len(r2.Pairings) != 2 {
		t.Fatalf("four waiting: %+v, %v; want two games", r2, err)
	}
	for _, p := range r2.Pairings {
		if p.Has("p000") && p.Has("p001") {
			t.Errorf("p000 and p001 meet again at once: %+v", r2.Pairings)
		}
	}
}
