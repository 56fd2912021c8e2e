package tournament_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/connectn/connectn/tournament"
	"github.com/connectn/connectn/tournament/internal/matching"
)

// long reports whether the long runs are asked for (CONNECTN_LONG=1).
func long() bool { return os.Getenv("CONNECTN_LONG") != "" }

// runs returns how many cases a property test checks: n, ten times as many
// with CONNECTN_LONG, a tenth (at least one) under the race detector.
func runs(n int) int {
	switch {
	case long():
		return 10 * n
	case raceEnabled:
		return max(1, n/10)
	}
	return n
}

// start is the arenas' start time in the tests (no test reads the clock).
var start = time.Date(2026, 5, 1, 18, 0, 0, 0, time.UTC)

// newTournament returns a tournament of cfg (the name filled in) with n
// players p000, p001, … of random ratings (some 0: unrated).
func newTournament(t testing.TB, cfg tournament.Config, n int, rng *rand.Rand) tournament.State {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "Test cup"
	}
	s, err := tournament.New(cfg, rng.Int64())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r := float64(800 + rng.IntN(1400))
		if rng.IntN(10) == 0 {
			r = 0
		}
		if s, err = tournament.Join(s, tournament.Player{ID: fmt.Sprintf("p%03d", i), Rating: r}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// randomResult draws a game's result: mostly wins, some draws, a few
// forfeits and double forfeits.
func randomResult(rng *rand.Rand) tournament.Result {
	switch x := rng.IntN(100); {
	case x < 40:
		return tournament.OpenerWins
	case x < 75:
		return tournament.SecondWins
	case x < 90:
		return tournament.Draw
	case x < 94:
		return tournament.OpenerWinsByForfeit
	case x < 98:
		return tournament.SecondWinsByForfeit
	}
	return tournament.DoubleForfeit
}

// appendRound appends r to s (as the store does) and checks s still holds.
func appendRound(t testing.TB, s tournament.State, r tournament.Round) tournament.State {
	t.Helper()
	s.Rounds = append(slices.Clone(s.Rounds), r)
	if err := s.Validate(); err != nil {
		t.Fatalf("after round %d: %v", r.Number, err)
	}
	return s
}

// finishRound records a random result for every game of the last round
// still without one; a player who withdraws meanwhile (withdraw, as a share)
// loses their game by forfeit.
func finishRound(t testing.TB, s tournament.State, rng *rand.Rand, withdraw float64) tournament.State {
	t.Helper()
	last := s.Rounds[len(s.Rounds)-1]
	for _, p := range last.Pairings {
		if p.Result != tournament.Pending {
			continue
		}
		res := randomResult(rng)
		var err error
		switch {
		case rng.Float64() < withdraw:
			s, err = tournament.Leave(s, p.Opener)
			res = tournament.SecondWinsByForfeit
		case rng.Float64() < withdraw:
			s, err = tournament.Leave(s, p.Second)
			res = tournament.OpenerWinsByForfeit
		}
		if err != nil {
			t.Fatal(err)
		}
		if s, err = tournament.RecordResult(s, last.Number, p.Second, res); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// index returns the players' positions in s.Players by ID.
func index(s tournament.State) map[string]int {
	out := map[string]int{}
	for i, p := range s.Players {
		out[p.ID] = i
	}
	return out
}

// facts are what the tests compute about a state from its rounds, written
// here from the documented rules, independently of the package's code.
type facts struct {
	points2 map[string]int // half-points
	diff    map[string]int // openers minus seconds
	last    map[string]int // +1 opened the last game, −1 went second, 0 none
	byes    map[string]int
	met     map[[2]string]bool
}

func factsOf(s tournament.State) facts {
	f := facts{points2: map[string]int{}, diff: map[string]int{}, last: map[string]int{}, byes: map[string]int{}, met: map[[2]string]bool{}}
	for _, r := range s.Rounds {
		for _, p := range r.Pairings {
			a, b := p.Result.Points()
			f.points2[p.Opener] += int(2 * a)
			if p.IsBye() {
				f.byes[p.Opener]++
				continue
			}
			f.points2[p.Second] += int(2 * b)
			f.diff[p.Opener]++
			f.diff[p.Second]--
			f.last[p.Opener], f.last[p.Second] = 1, -1
			f.met[[2]string{p.Opener, p.Second}] = true
			f.met[[2]string{p.Second, p.Opener}] = true
		}
	}
	return f
}

func rating(p tournament.Player) float64 {
	if p.Rating == 0 {
		return 1500
	}
	return p.Rating
}

// pairingOrder returns the IDs of the players still in, by points, then
// rating, then entry.
func pairingOrder(s tournament.State, f facts) []string {
	var ids []string
	for _, p := range s.Players {
		if !p.Withdrawn {
			ids = append(ids, p.ID)
		}
	}
	at := index(s)
	slices.SortStableFunc(ids, func(a, b string) int {
		if c := f.points2[b] - f.points2[a]; c != 0 {
			return c
		}
		ra, rb := rating(s.Players[at[a]]), rating(s.Players[at[b]])
		if ra != rb {
			if ra > rb {
				return -1
			}
			return 1
		}
		return at[a] - at[b]
	})
	return ids
}

// perfectExists reports whether the players can all be paired (each with
// exactly one other) over the pairs ok allows: a maximum-cardinality
// matching with unit weights.
func perfectExists(players []string, ok func(a, b string) bool) bool {
	if len(players)%2 == 1 {
		return false
	}
	var edges []matching.Edge
	for i := range players {
		for j := i + 1; j < len(players); j++ {
			if ok(players[i], players[j]) {
				edges = append(edges, matching.Edge{U: i, V: j, W: matching.Int(1)})
			}
		}
	}
	mate, err := matching.MaxWeight(len(players), edges, true)
	if err != nil {
		panic(err)
	}
	return !slices.Contains(mate, -1)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
