package tournament_test

import (
	"fmt"

	"github.com/connectn/connectn/tournament"
)

// Example runs a small Swiss as the lifecycle does: players join, each
// round is paired once every result of the last one is in, each game's
// result is recorded as its match ends, and the standings follow.
func Example() {
	s, err := tournament.New(tournament.Config{Name: "Friday Swiss", Format: tournament.Swiss}, 2026)
	if err != nil {
		panic(err)
	}
	for _, p := range []tournament.Player{{ID: "ann", Rating: 1700}, {ID: "bob", Rating: 1600}, {ID: "cid", Rating: 1500}} {
		if s, err = tournament.Join(s, p); err != nil {
			panic(err)
		}
	}
	for {
		r, err := tournament.NextRound(s)
		if err != nil {
			fmt.Println(err) // errors.Is(err, tournament.ErrTournamentOver)
			break
		}
		s.Rounds = append(s.Rounds, r) // the store writes it, once (compare-and-swap)
		for _, p := range r.Pairings {
			if p.IsBye() {
				fmt.Printf("round %d: %s has a bye\n", r.Number, p.Opener)
				continue
			}
			fmt.Printf("round %d: %s opens against %s, and wins\n", r.Number, p.Opener, p.Second)
			// A match ended: tournament.MatchResult(m) gives its result.
			if s, err = tournament.RecordResult(s, r.Number, p.Opener, tournament.OpenerWins); err != nil {
				panic(err)
			}
		}
	}
	standings, _ := tournament.Standings(s)
	for _, st := range standings {
		fmt.Printf("%d. %s %v (Buchholz %v, Sonneborn–Berger %v, direct encounter %v)\n",
			st.Rank, st.Player, st.Points, st.TieBreaks.Buchholz, st.TieBreaks.SonnebornBerger, st.TieBreaks.Direct)
	}
	// Output:
	// round 1: ann opens against bob, and wins
	// round 1: cid has a bye
	// round 2: cid opens against ann, and wins
	// round 2: bob has a bye
	// round 3: bob opens against cid, and wins
	// round 3: ann has a bye
	// 3 rounds played: tournament is over
	// 1. cid 2 (Buchholz 4, Sonneborn–Berger 2.5, direct encounter 1)
	// 2. ann 2 (Buchholz 4, Sonneborn–Berger 2.5, direct encounter 0)
	// 3. bob 2 (Buchholz 3.5, Sonneborn–Berger 2, direct encounter 0)
}
