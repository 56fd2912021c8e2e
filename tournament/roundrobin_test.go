package tournament_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/connectn/connectn/tournament"
)

// TestBergerTables checks the rounds against FIDE's Berger tables
// (Handbook C.05, Annex 1), each pairing "opener-second" by pairing
// numbers; the numbers are drawn by lot, so the test reads them off round 1
// (1–N, 2–(N−1), … on boards 1, 2, …).
func TestBergerTables(t *testing.T) {
	tests := []struct {
		name   string
		rounds [][][2]int
	}{
		{"4 players", [][][2]int{
			{{1, 4}, {2, 3}},
			{{4, 3}, {1, 2}},
			{{2, 4}, {3, 1}},
		}},
		{"6 players", [][][2]int{
			{{1, 6}, {2, 5}, {3, 4}},
			{{6, 4}, {5, 3}, {1, 2}},
			{{2, 6}, {3, 1}, {4, 5}},
			{{6, 5}, {1, 4}, {2, 3}},
			{{3, 6}, {4, 2}, {5, 1}},
		}},
		{"8 players", [][][2]int{
			{{1, 8}, {2, 7}, {3, 6}, {4, 5}},
			{{8, 5}, {6, 4}, {7, 3}, {1, 2}},
			{{2, 8}, {3, 1}, {4, 7}, {5, 6}},
			{{8, 6}, {7, 5}, {1, 4}, {2, 3}},
			{{3, 8}, {4, 2}, {5, 1}, {6, 7}},
			{{8, 7}, {1, 6}, {2, 5}, {3, 4}},
			{{4, 8}, {5, 3}, {6, 2}, {7, 1}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			size := 2 * len(tt.rounds[0])
			rng := rand.New(rand.NewPCG(27, uint64(size)))
			s := newTournament(t, tournament.Config{Format: tournament.RoundRobin}, size, rng)
			number := map[string]int{}
			for r, want := range tt.rounds {
				round := mustNext(t, s)
				if r == 0 {
					for b, p := range round.Pairings {
						number[p.Opener], number[p.Second] = b+1, size-b
					}
				}
				var got [][2]int
				for _, p := range round.Pairings {
					got = append(got, [2]int{number[p.Opener], number[p.Second]})
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("round %d: %v, want %v", r+1, got, want)
				}
				s = finishRound(t, appendRound(t, s, round), rng, 0)
			}
			if _, err := tournament.NextRound(s); !errors.Is(err, tournament.ErrTournamentOver) {
				t.Errorf("after %d rounds: %v, want ErrTournamentOver", len(tt.rounds), err)
			}
		})
	}
}

// TestRoundRobinProperties plays round robins of 2 to 40 players, single
// and double, and checks: TotalRounds rounds, then ErrTournamentOver; each
// player once per round (a game or, with an odd number, a bye); every pair
// meets once, or twice with the openers swapped; one bye per player per
// cycle with an odd number, none with an even one; at the end each player
// opened at most once more (or less) than they went second, and exactly as
// often in a double round robin. With withdrawals: a withdrawn player's
// later games are forfeits won at once by the opponent, and they get no bye.
func TestRoundRobinProperties(t *testing.T) {
	maxN := 40
	switch {
	case long():
		maxN = 80
	case raceEnabled:
		maxN = 16
	}
	rng := rand.New(rand.NewPCG(27, 8))
	for n := 2; n <= maxN; n++ {
		for _, double := range []bool{false, true} {
			for _, withdraw := range []float64{0, 0.01} {
				name := fmt.Sprintf("%d players, double %v, withdrawals %v", n, double, withdraw)
				s := newTournament(t, tournament.Config{Format: tournament.RoundRobin, Double: double}, n, rng)
				total := tournament.TotalRounds(s)
				wantTotal := n - 1 + n%2
				if double {
					wantTotal *= 2
				}
				if total != wantTotal {
					t.Fatalf("%s: TotalRounds %d, want %d", name, total, wantTotal)
				}
				meetings := map[[2]string]int{}
				openers := map[[2]string]int{} // games a opened against b
				byes := map[string]int{}
				for r := 1; r <= total; r++ {
					round := mustNext(t, s)
					withdrawn := map[string]bool{}
					for _, p := range s.Players {
						withdrawn[p.ID] = p.Withdrawn
					}
					seen := map[string]int{}
					for _, p := range round.Pairings {
						seen[p.Opener]++
						if p.IsBye() {
							byes[p.Opener]++
							if withdrawn[p.Opener] {
								t.Fatalf("%s, round %d: withdrawn %s gets a bye", name, r, p.Opener)
							}
							continue
						}
						seen[p.Second]++
						meetings[[2]string{min(p.Opener, p.Second), max(p.Opener, p.Second)}]++
						openers[[2]string{p.Opener, p.Second}]++
						var want tournament.Result
						switch {
						case withdrawn[p.Opener] && withdrawn[p.Second]:
							t.Fatalf("%s, round %d: two withdrawn players paired", name, r)
						case withdrawn[p.Opener]:
							want = tournament.SecondWinsByForfeit
						case withdrawn[p.Second]:
							want = tournament.OpenerWinsByForfeit
						}
						if p.Result != want {
							t.Fatalf("%s, round %d: %s–%s starts as %q, want %q", name, r, p.Opener, p.Second, p.Result, want)
						}
					}
					for _, p := range s.Players {
						if seen[p.ID] > 1 || (seen[p.ID] == 0 && withdraw == 0) {
							t.Fatalf("%s, round %d: %s is paired %d times", name, r, p.ID, seen[p.ID])
						}
					}
					s = finishRound(t, appendRound(t, s, round), rng, withdraw)
				}
				if _, err := tournament.NextRound(s); !errors.Is(err, tournament.ErrTournamentOver) {
					t.Fatalf("%s: after %d rounds: %v, want ErrTournamentOver", name, total, err)
				}
				if withdraw > 0 {
					continue // pairs of two withdrawn players are left out
				}
				cycles := 1
				if double {
					cycles = 2
				}
				diff := map[string]int{}
				for i, a := range s.Players {
					if want := cycles * (n % 2); byes[a.ID] != want {
						t.Fatalf("%s: %s had %d byes, want %d", name, a.ID, byes[a.ID], want)
					}
					for _, b := range s.Players[i+1:] {
						if got := meetings[[2]string{min(a.ID, b.ID), max(a.ID, b.ID)}]; got != cycles {
							t.Fatalf("%s: %s and %s met %d times, want %d", name, a.ID, b.ID, got, cycles)
						}
						ab, ba := openers[[2]string{a.ID, b.ID}], openers[[2]string{b.ID, a.ID}]
						if double && (ab != 1 || ba != 1) {
							t.Fatalf("%s: %s opened %d and %s %d of their games; want once each", name, a.ID, ab, b.ID, ba)
						}
						diff[a.ID] += ab - ba
						diff[b.ID] += ba - ab
					}
				}
				for id, d := range diff {
					if abs(d) > 1 || (double && d != 0) {
						t.Fatalf("%s: %s opened %d more games than they went second", name, id, d)
					}
				}
			}
		}
	}
}
