package tournament_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/connectn/connectn/tournament"
)

// criteria is the cost vector of a Swiss pairing as the package
// documentation states it, most important first: the bye's place counted
// from the bottom of the pairing order; players pushed beyond one opener
// more than seconds (or the reverse); the total score difference (half
// points); the sum of its squares; players with balanced openers who repeat
// their last colour; the distance from "top half against bottom half"
// within score groups (for a pair of two groups: the higher one's place from
// the bottom of its group plus the lower one's place from the top of its).
type criteria [6]int

// layout is the pairing order with its score groups.
type layout struct {
	order []string
	pos   map[string]int
	group map[string]int
	rank  map[string]int
	size  []int
}

func layoutOf(order []string, f facts) layout {
	l := layout{order: order, pos: map[string]int{}, group: map[string]int{}, rank: map[string]int{}}
	for i, id := range order {
		l.pos[id] = i
		if i == 0 || f.points2[id] != f.points2[order[i-1]] {
			l.size = append(l.size, 0)
		}
		g := len(l.size) - 1
		l.group[id], l.rank[id] = g, l.size[g]
		l.size[g]++
	}
	return l
}

// colourCost is what opening (c = +1) or going second (c = −1) costs
// player id: beyond one, and a repeat of the last colour when balanced.
func colourCost(f facts, id string, c int) (beyond, repeat int) {
	d := f.diff[id]
	beyond = max(0, abs(d+c)-1)
	if d == 0 && f.last[id] == c {
		repeat = 1
	}
	return beyond, repeat
}

// vectorOf returns the criteria of pairs (opener first) and bye ("" for
// none).
func vectorOf(l layout, f facts, pairs [][2]string, bye string) criteria {
	var v criteria
	if bye != "" {
		v[0] = len(l.order) - 1 - l.pos[bye]
	}
	for _, p := range pairs {
		b1, r1 := colourCost(f, p[0], +1)
		b2, r2 := colourCost(f, p[1], -1)
		v[1] += b1 + b2
		v[4] += r1 + r2
		d := abs(f.points2[p[0]] - f.points2[p[1]])
		v[2] += d
		v[3] += d * d
		x, y := p[0], p[1]
		if l.pos[y] < l.pos[x] {
			x, y = y, x
		}
		if l.group[x] == l.group[y] {
			v[5] += abs(2*abs(l.rank[x]-l.rank[y]) - l.size[l.group[x]])
		} else {
			v[5] += l.size[l.group[x]] - 1 - l.rank[x] + l.rank[y]
		}
	}
	return v
}

// bestOrientation returns a, b in the order that costs least by colour
// (beyond one, then repeats).
func bestOrientation(f facts, a, b string) [2]string {
	ba1, ra1 := colourCost(f, a, +1)
	bb1, rb1 := colourCost(f, b, -1)
	ba2, ra2 := colourCost(f, a, -1)
	bb2, rb2 := colourCost(f, b, +1)
	if slices.Compare([]int{ba2 + bb2, ra2 + rb2}, []int{ba1 + bb1, ra1 + rb1}) < 0 {
		return [2]string{b, a}
	}
	return [2]string{a, b}
}

// bruteBest tries every pairing of the players in l.order that respects
// the absolute rules (no rematch, no second bye) and returns the least
// criteria, and false when there is none.
func bruteBest(l layout, f facts) (criteria, bool) {
	var best criteria
	found := false
	var rec func(rest []string, pairs [][2]string, bye string)
	rec = func(rest []string, pairs [][2]string, bye string) {
		if len(rest) == 0 {
			if v := vectorOf(l, f, pairs, bye); !found || slices.Compare(v[:], best[:]) < 0 {
				best, found = v, true
			}
			return
		}
		a := rest[0]
		for i := 1; i < len(rest); i++ {
			b := rest[i]
			if f.met[[2]string{a, b}] {
				continue
			}
			next := append(append([]string(nil), rest[1:i]...), rest[i+1:]...)
			rec(next, append(pairs, bestOrientation(f, a, b)), bye)
		}
	}
	if len(l.order)%2 == 0 {
		rec(l.order, nil, "")
		return best, found
	}
	for i, b := range l.order {
		if f.byes[b] == 0 {
			rec(append(append([]string(nil), l.order[:i]...), l.order[i+1:]...), nil, b)
		}
	}
	return best, found
}

// swissStats counts what the property test saw.
type swissStats struct {
	tournaments, rounds, byes, colourForced, bruteChecked, noPairing int
}

// checkSwissRound checks round r, paired from s, against every rule: it
// pairs each player still in exactly once and no withdrawn player, repeats
// no game, gives the bye (one point, at most one per player) to the lowest
// player in the pairing order without one whose absence leaves the others
// pairable, keeps every player's openers and seconds within one unless no
// pairing with that bye can, and for 10 players or fewer is the best
// pairing by the documented criteria (brute force).
func checkSwissRound(t *testing.T, s tournament.State, r tournament.Round, st *swissStats) {
	t.Helper()
	f := factsOf(s)
	order := pairingOrder(s, f)
	l := layoutOf(order, f)
	if r.Number != len(s.Rounds)+1 {
		t.Fatalf("round numbered %d after %d rounds", r.Number, len(s.Rounds))
	}
	seen := map[string]int{}
	var pairs [][2]string
	bye := ""
	for b, p := range r.Pairings {
		seen[p.Opener]++
		if p.IsBye() {
			if bye != "" || b != len(r.Pairings)-1 || p.Result != tournament.Bye {
				t.Fatalf("round %d: bye %+v at board %d of %d (a second bye, not last, or not scored)", r.Number, p, b+1, len(r.Pairings))
			}
			bye = p.Opener
			continue
		}
		seen[p.Second]++
		if p.Result != tournament.Pending {
			t.Fatalf("round %d: a new game with result %q", r.Number, p.Result)
		}
		if f.met[[2]string{p.Opener, p.Second}] {
			t.Fatalf("round %d: %s and %s meet again", r.Number, p.Opener, p.Second)
		}
		pairs = append(pairs, [2]string{p.Opener, p.Second})
	}
	for _, id := range order {
		if seen[id] != 1 {
			t.Fatalf("round %d: player %s is paired %d times", r.Number, id, seen[id])
		}
		delete(seen, id)
	}
	if len(seen) > 0 {
		t.Fatalf("round %d pairs players who are not in: %v", r.Number, seen)
	}
	if (bye != "") != (len(order)%2 == 1) {
		t.Fatalf("round %d: %d players, bye %q", r.Number, len(order), bye)
	}
	without := func(id string) []string {
		return slices.DeleteFunc(slices.Clone(order), func(x string) bool { return x == id })
	}
	noRematch := func(a, b string) bool { return !f.met[[2]string{a, b}] }
	if bye != "" {
		st.byes++
		if f.byes[bye] != 0 {
			t.Fatalf("round %d: %s gets a second bye", r.Number, bye)
		}
		for _, q := range order[l.pos[bye]+1:] {
			if f.byes[q] == 0 && perfectExists(without(q), noRematch) {
				t.Fatalf("round %d: the bye went to %s (place %d) but %s (place %d) had none and the others could be paired",
					r.Number, bye, l.pos[bye]+1, q, l.pos[q]+1)
			}
		}
	}
	// Openers: within one, unless no pairing (with this bye) keeps it.
	beyond := 0
	for _, p := range pairs {
		b1, _ := colourCost(f, p[0], +1)
		b2, _ := colourCost(f, p[1], -1)
		beyond += b1 + b2
	}
	if beyond > 0 {
		balanced := func(a, b string) bool {
			o := bestOrientation(f, a, b)
			b1, _ := colourCost(f, o[0], +1)
			b2, _ := colourCost(f, o[1], -1)
			return noRematch(a, b) && b1+b2 == 0
		}
		if perfectExists(without(bye), balanced) {
			t.Fatalf("round %d: %d player(s) pushed beyond one opener more than seconds (or the reverse), though a pairing keeps everyone within one", r.Number, beyond)
		}
		st.colourForced++
	}
	if len(order) <= 10 {
		st.bruteChecked++
		want, ok := bruteBest(l, f)
		if !ok {
			t.Fatalf("round %d was paired, but the brute force finds no pairing", r.Number)
		}
		if got := vectorOf(l, f, pairs, bye); got != want {
			t.Fatalf("round %d of %d players: criteria %v, but the best pairing has %v (pairs %v, bye %q)", r.Number, len(order), got, want, pairs, bye)
		}
	}
}

// TestSwissProperties plays thousands of random Swiss tournaments of 8 to
// 256 players (random results with draws and forfeits, withdrawals between
// and during rounds, some with more rounds than the default) and checks
// every round with checkSwissRound; an error is accepted only where it is
// right (no pairing exists, fewer than two players left, all rounds played).
func TestSwissProperties(t *testing.T) {
	classes := []struct{ lo, hi, count int }{{8, 10, runs(700)}, {11, 40, runs(300)}, {41, 128, runs(8)}, {129, 256, runs(2)}}
	rng := rand.New(rand.NewPCG(27, 27))
	var st swissStats
	for _, c := range classes {
		for range c.count {
			n := c.lo + rng.IntN(c.hi-c.lo+1)
			cfg := tournament.Config{Format: tournament.Swiss}
			if n <= 12 && rng.IntN(4) == 0 {
				cfg.Rounds = n - 1 // as many as a round robin: pairings run out
			}
			s := newTournament(t, cfg, n, rng)
			withdraw := []float64{0, 0.01, 0.05}[rng.IntN(3)]
			st.tournaments++
			for {
				r, err := tournament.NextRound(s)
				if err != nil {
					f := factsOf(s)
					order := pairingOrder(s, f)
					switch {
					case errors.Is(err, tournament.ErrTournamentOver) && len(s.Rounds) == tournament.TotalRounds(s):
					case errors.Is(err, tournament.ErrTooFewPlayers) && len(order) < 2:
					case errors.Is(err, tournament.ErrNoPairing):
						st.noPairing++
						pool := order
						if len(order)%2 == 1 {
							pool = append(slices.Clone(order), "")
						}
						if perfectExists(pool, func(a, b string) bool {
							if a == "" || b == "" {
								return f.byes[a+b] == 0
							}
							return !f.met[[2]string{a, b}]
						}) {
							t.Fatalf("%d players, round %d: %v, but a pairing exists", len(order), len(s.Rounds)+1, err)
						}
					default:
						t.Fatalf("%d players, round %d: %v", len(order), len(s.Rounds)+1, err)
					}
					break
				}
				checkSwissRound(t, s, r, &st)
				st.rounds++
				s = finishRound(t, appendRound(t, s, r), rng, withdraw)
			}
		}
	}
	t.Logf("%d tournaments, %d rounds (%d checked by brute force), %d byes, %d rounds where the openers could not stay within one, %d with no pairing left",
		st.tournaments, st.rounds, st.bruteChecked, st.byes, st.colourForced, st.noPairing)
	if st.bruteChecked < runs(1000) || st.byes < runs(500) {
		t.Errorf("too few rounds checked by brute force (%d) or byes (%d): the test proves little", st.bruteChecked, st.byes)
	}
}

// TestSwissRoundOne checks the first round of 8 players as FIDE's Dutch
// system pairs it: by rating, the top half against the bottom half (1–5,
// 2–6, 3–7, 4–8), the higher rated opening on alternate boards.
func TestSwissRoundOne(t *testing.T) {
	s, err := tournament.New(tournament.Config{Name: "Round one", Format: tournament.Swiss}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Entered in a shuffled order; "a" is the best rated, "h" the worst.
	for _, p := range []tournament.Player{{ID: "e", Rating: 1600}, {ID: "a", Rating: 2000}, {ID: "h", Rating: 1300}, {ID: "c", Rating: 1800},
		{ID: "b", Rating: 1900}, {ID: "g", Rating: 1400}, {ID: "d", Rating: 1700}, {ID: "f", Rating: 1500}} {
		if s, err = tournament.Join(s, p); err != nil {
			t.Fatal(err)
		}
	}
	r, err := tournament.NextRound(s)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"a", "e"}, {"b", "f"}, {"c", "g"}, {"d", "h"}}
	if len(r.Pairings) != len(want) {
		t.Fatalf("pairings %+v, want 4 boards", r.Pairings)
	}
	var higherOpens []bool
	for b, p := range r.Pairings {
		got := [2]string{p.Opener, p.Second}
		higher := got[0] == want[b][0]
		if !higher {
			got[0], got[1] = got[1], got[0]
		}
		if got != want[b] {
			t.Errorf("board %d: %s–%s, want %s against %s", b+1, p.Opener, p.Second, want[b][0], want[b][1])
		}
		higherOpens = append(higherOpens, higher)
	}
	for b := 1; b < len(higherOpens); b++ {
		if higherOpens[b] == higherOpens[b-1] {
			t.Errorf("boards %d and %d: the higher rated player opens on both (%v); want alternate boards", b, b+1, higherOpens)
		}
	}
}

// TestSwissDeterministic checks NextRound is a function of the state: the
// same round from the same state, from a copy that went through JSON (as a
// store keeps it), and the same pairs (openers aside) from another seed.
func TestSwissDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 6))
	s := newTournament(t, tournament.Config{Format: tournament.Swiss}, 37, rng)
	for range 3 {
		r, err := tournament.NextRound(s)
		if err != nil {
			t.Fatal(err)
		}
		s = finishRound(t, appendRound(t, s, r), rng, 0.02)
	}
	want, err := tournament.NextRound(s)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := tournament.NextRound(s)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var stored tournament.State
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	fromStore, err := tournament.NextRound(stored)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Pairings, want.Pairings) || !slices.Equal(fromStore.Pairings, want.Pairings) {
		t.Fatalf("the same state paired twice gave\n%v\n%v\nand from JSON\n%v", want.Pairings, again.Pairings, fromStore.Pairings)
	}
	other := s
	other.Seed++
	reseeded, err := tournament.NextRound(other)
	if err != nil {
		t.Fatal(err)
	}
	unordered := func(r tournament.Round) map[[2]string]bool {
		m := map[[2]string]bool{}
		for _, p := range r.Pairings {
			k := [2]string{p.Opener, p.Second}
			if k[1] != "" && k[1] < k[0] {
				k[0], k[1] = k[1], k[0]
			}
			m[k] = true
		}
		return m
	}
	if got, w := unordered(reseeded), unordered(want); len(got) != len(w) {
		t.Fatalf("another seed: %d pairs, want %d", len(got), len(w))
	} else {
		for k := range w {
			if !got[k] {
				t.Fatalf("another seed changed the pairs (only lots for openers depend on it): %v missing", k)
			}
		}
	}
}

func TestDefaultRounds(t *testing.T) {
	tests := []struct {
		players, want int
	}{{0, 1}, {1, 1}, {2, 2}, {3, 3}, {4, 3}, {5, 4}, {8, 4}, {9, 5}, {16, 5}, {17, 6}, {100, 8}, {256, 9}, {257, 10}, {512, 10}}
	for _, tt := range tests {
		if got := tournament.DefaultRounds(tt.players); got != tt.want {
			t.Errorf("DefaultRounds(%d) = %d, want %d", tt.players, got, tt.want)
		}
	}
}

// TestNextRoundRefusals checks each refusal of NextRound and that it
// returns no round.
func TestNextRoundRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 7))
	four := newTournament(t, tournament.Config{Format: tournament.Swiss, Rounds: 4}, 4, rng)
	unfinished := appendRound(t, four, mustNext(t, four))
	threeDone := four
	for range 3 {
		threeDone = finishRound(t, appendRound(t, threeDone, mustNext(t, threeDone)), rng, 0)
	}
	over := newTournament(t, tournament.Config{Format: tournament.Swiss, Rounds: 1}, 6, rng)
	over = finishRound(t, appendRound(t, over, mustNext(t, over)), rng, 0)
	alone := newTournament(t, tournament.Config{Format: tournament.Swiss}, 3, rng)
	alone = finishRound(t, appendRound(t, alone, mustNext(t, alone)), rng, 0)
	for _, id := range []string{"p000", "p001"} {
		alone, _ = tournament.Leave(alone, id)
	}
	arena := newTournament(t, tournament.Config{Format: tournament.Arena, Duration: 3600e9}, 4, rng)
	broken := four
	broken.Players = append(slices.Clone(broken.Players), broken.Players[0])
	tests := []struct {
		name string
		s    tournament.State
		want error
	}{
		{"round not finished", unfinished, tournament.ErrRoundNotFinished},
		{"every opponent met: round 4 of 4 players", threeDone, tournament.ErrNoPairing},
		{"all rounds played", over, tournament.ErrTournamentOver},
		{"one player left", alone, tournament.ErrTooFewPlayers},
		{"an arena", arena, tournament.ErrWrongFormat},
		{"a player entered twice", broken, tournament.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tournament.NextRound(tt.s)
			if !errors.Is(err, tt.want) || r.Number != 0 || r.Pairings != nil {
				t.Errorf("got %+v, %v; want no round and %v", r, err, tt.want)
			}
		})
	}
}

func mustNext(t testing.TB, s tournament.State) tournament.Round {
	t.Helper()
	r, err := tournament.NextRound(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
