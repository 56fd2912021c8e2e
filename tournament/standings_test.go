package tournament_test

import (
	"errors"
	"testing"

	"github.com/connectn/connectn/tournament"
)

// state builds a tournament of format f with the given players (ID and
// rating) and rounds, each a list of pairings "opener second result"
// (second "-" for a bye).
func state(t *testing.T, f tournament.Format, players []tournament.Player, rounds [][]tournament.Pairing) tournament.State {
	t.Helper()
	s, err := tournament.New(tournament.Config{Name: "By hand", Format: f}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Players = players
	for i, r := range rounds {
		s.Rounds = append(s.Rounds, tournament.Round{Number: i + 1, Pairings: r})
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

func bye(id string) tournament.Pairing { return tournament.Pairing{Opener: id, Result: tournament.Bye} }

func played(o, s string, r tournament.Result) tournament.Pairing {
	return tournament.Pairing{Opener: o, Second: s, Result: r}
}

type line struct {
	player             string
	points, bh, sb, de float64
	games, byes        int
	directApplied      bool
}

func checkStandings(t *testing.T, s tournament.State, want []line) {
	t.Helper()
	got, err := tournament.Standings(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Rank != i+1 || g.Player != w.player || g.Points != w.points || g.TieBreaks.Buchholz != w.bh ||
			g.TieBreaks.SonnebornBerger != w.sb || g.TieBreaks.Direct != w.de || g.TieBreaks.DirectApplied != w.directApplied ||
			g.Games != w.games || g.Byes != w.byes {
			t.Errorf("rank %d: %s %v points, Buchholz %v, SB %v, direct %v (%v), %d games, %d byes; want %s %v, %v, %v, %v (%v), %d, %d",
				i+1, g.Player, g.Points, g.TieBreaks.Buchholz, g.TieBreaks.SonnebornBerger, g.TieBreaks.Direct, g.TieBreaks.DirectApplied, g.Games, g.Byes,
				w.player, w.points, w.bh, w.sb, w.de, w.directApplied, w.games, w.byes)
		}
	}
}

// TestTieBreaksByHand checks Standings against a small Swiss worked out by
// hand: six players, three rounds, with a draw, a bye each round from round
// 2, a game won by forfeit and a withdrawal.
//
//	Round 1: A–D 1-0   B–E ½-½   C–F 1-0         (F withdraws after it)
//	Round 2: C–A 0-1   D–B +/- (B did not play)  E bye
//	Round 3: A–B ½-½   E–C 0-1                   D bye
//
// Points: A 2.5, B 1, C 2, D 2, E 1.5, F 0.
//
// Adjusted score (each unplayed round, a bye, a forfeit either way or an
// absence, counted ½; what a player contributes to an opponent's
// Buchholz): A 1+1+½ = 2.5; B ½+½(forfeit)+½ = 1.5; C 1+0+1 = 2;
// D 0+½(forfeit)+½(bye) = 1; E ½+½(bye)+0 = 1; F 0+½+½ (absent) = 1.
//
// A virtual opponent stands in for every unplayed round R of a player (n = 3
// rounds): their points before R, plus 1 minus the player's points in R,
// plus ½ per later round: Svon = SPR + (1 − SfPR) + ½(n − R).
//
//	      round 1            round 2                 round 3              Buchholz   Sonneborn–Berger
//	A     D 1                C 2                     B 1.5                4.5        1·1 + 1·2 + ½·1.5 = 3.75
//	B     E 1                Svon ½+1+½ = 2          A 2.5                5.5        ½·1 + 0·2 + ½·2.5 = 1.75
//	C     F 1                A 2.5                   E 1                  4.5        1·1 + 0 + 1·1 = 2
//	D     A 2.5              Svon 0+0+½ = ½          Svon 1+0+0 = 1       4          0 + 1·½ + 1·1 = 1.5
//	E     B 1.5              Svon ½+0+½ = 1          C 2                  4.5        ½·1.5 + 1·1 + 0 = 1.75
//	F     C 2                Svon 0+1+½ = 1.5        Svon 0+1+0 = 1       4.5        0 + 0 + 0 = 0
//
// C and D are level on 2 points; C's Buchholz (4.5) puts them ahead.
func TestTieBreaksByHand(t *testing.T) {
	players := []tournament.Player{
		{ID: "A", Rating: 1900}, {ID: "B", Rating: 1800}, {ID: "C", Rating: 1700},
		{ID: "D", Rating: 1600}, {ID: "E", Rating: 1500}, {ID: "F", Rating: 1400, Withdrawn: true},
	}
	s := state(t, tournament.Swiss, players, [][]tournament.Pairing{
		{played("A", "D", tournament.OpenerWins), played("B", "E", tournament.Draw), played("C", "F", tournament.OpenerWins)},
		{played("C", "A", tournament.SecondWins), played("D", "B", tournament.OpenerWinsByForfeit), bye("E")},
		{played("A", "B", tournament.Draw), played("E", "C", tournament.SecondWins), bye("D")},
	})
	checkStandings(t, s, []line{
		{player: "A", points: 2.5, bh: 4.5, sb: 3.75, games: 3},
		{player: "C", points: 2, bh: 4.5, sb: 2, games: 3},
		{player: "D", points: 2, bh: 4, sb: 1.5, games: 2, byes: 1},
		{player: "E", points: 1.5, bh: 4.5, sb: 1.75, games: 2, byes: 1},
		{player: "B", points: 1, bh: 5.5, sb: 1.75, games: 3},
		{player: "F", points: 0, bh: 4.5, sb: 0, games: 1},
	})
	if got, err := tournament.Score(s, "E"); err != nil || got != 1.5 {
		t.Errorf("Score(E) = %v, %v; want 1.5", got, err)
	}
	if _, err := tournament.Score(s, "Z"); !errors.Is(err, tournament.ErrUnknownPlayer) {
		t.Errorf("Score of an unknown player: %v, want ErrUnknownPlayer", err)
	}
}

// TestDirectEncounterByHand checks the direct encounter and the rating in
// two round robins of four worked out by hand.
//
// First, X and Y level on points, Buchholz and Sonneborn–Berger; X beat Y,
// and Y is the higher rated, so only the direct encounter puts X first:
//
//	       W    X    Y    Z    points  Buchholz         Sonneborn–Berger
//	W      ·    1    ½    ½    2       1.5+1.5+1 = 4    1·1.5 + ½·1.5 + ½·1 = 2.75
//	X      0    ·    1    ½    1.5     2+1.5+1 = 4.5    0 + 1·1.5 + ½·1 = 2
//	Y      ½    0    ·    1    1.5     2+1.5+1 = 4.5    ½·2 + 0 + 1·1 = 2
//	Z      ½    ½    0    ·    1       2+1.5+1.5 = 5    ½·2 + ½·1.5 + 0 = 1.75
//
// Second, X, Y and Z beat each other in a circle: all level on 1 point,
// Buchholz 3+1+1 = 5 and Sonneborn–Berger 1; the direct encounter applies
// (all three met) but leaves them level (1 point each among them), so the
// rating decides: Y (1700), X (1600), Z (1500).
func TestDirectEncounterByHand(t *testing.T) {
	players := []tournament.Player{{ID: "W", Rating: 1500}, {ID: "X", Rating: 1600}, {ID: "Y", Rating: 1700}, {ID: "Z", Rating: 1500}}
	s := state(t, tournament.RoundRobin, players, [][]tournament.Pairing{
		{played("W", "X", tournament.OpenerWins), played("Y", "Z", tournament.OpenerWins)},
		{played("W", "Y", tournament.Draw), played("X", "Z", tournament.Draw)},
		{played("Z", "W", tournament.Draw), played("X", "Y", tournament.OpenerWins)},
	})
	checkStandings(t, s, []line{
		{player: "W", points: 2, bh: 4, sb: 2.75, games: 3},
		{player: "X", points: 1.5, bh: 4.5, sb: 2, de: 1, directApplied: true, games: 3},
		{player: "Y", points: 1.5, bh: 4.5, sb: 2, de: 0, directApplied: true, games: 3},
		{player: "Z", points: 1, bh: 5, sb: 1.75, games: 3},
	})
	circle := state(t, tournament.RoundRobin, players, [][]tournament.Pairing{
		{played("W", "X", tournament.OpenerWins), played("Z", "Y", tournament.SecondWins)}, // Y beats Z
		{played("W", "Y", tournament.OpenerWins), played("X", "Z", tournament.SecondWins)}, // Z beats X
		{played("Z", "W", tournament.SecondWins), played("X", "Y", tournament.OpenerWins)}, // X beats Y
	})
	checkStandings(t, circle, []line{
		{player: "W", points: 3, bh: 3, sb: 3, games: 3},
		{player: "Y", points: 1, bh: 5, sb: 1, de: 1, directApplied: true, games: 3},
		{player: "X", points: 1, bh: 5, sb: 1, de: 1, directApplied: true, games: 3},
		{player: "Z", points: 1, bh: 5, sb: 1, de: 1, directApplied: true, games: 3},
	})
}

// TestStandingsBeforeAnyResult checks a tournament with its first round in
// progress: the game without a result counts for nothing yet, the bye
// counts at once (its virtual opponent: 0 points before, 1 − 1 in it, no
// later round: 0, so Buchholz and Sonneborn–Berger 0), and the two level
// on nothing are ordered by rating (an unrated player counts 1500).
func TestStandingsBeforeAnyResult(t *testing.T) {
	players := []tournament.Player{{ID: "a", Rating: 1500}, {ID: "b"}, {ID: "c", Rating: 1600}}
	s := state(t, tournament.Swiss, players, [][]tournament.Pairing{{{Opener: "c", Second: "a"}, bye("b")}})
	checkStandings(t, s, []line{
		{player: "b", points: 1, byes: 1},
		{player: "c"},
		{player: "a"},
	})
}

// TestCrosstable checks the crosstable of a round robin of four (the first
// of TestDirectEncounterByHand, X's win over Y by forfeit): rows and columns
// in the standings' order, each cell the row player's points against the
// column player, marked when won or lost by forfeit and when they opened.
func TestCrosstable(t *testing.T) {
	players := []tournament.Player{{ID: "W", Rating: 1500}, {ID: "X", Rating: 1600}, {ID: "Y", Rating: 1700}, {ID: "Z", Rating: 1500}}
	s := state(t, tournament.RoundRobin, players, [][]tournament.Pairing{
		{played("W", "X", tournament.OpenerWins), played("Y", "Z", tournament.OpenerWins)},
		{played("W", "Y", tournament.Draw), played("X", "Z", tournament.Draw)},
		{played("Z", "W", tournament.Draw), played("X", "Y", tournament.OpenerWinsByForfeit)},
	})
	ct, err := tournament.CrosstableOf(s)
	if err != nil {
		t.Fatal(err)
	}
	// The rows follow the standings (which the tests above check).
	st, _ := tournament.Standings(s)
	for i, x := range st {
		if ct.Players[i] != x.Player {
			t.Fatalf("crosstable order %v, standings %v", ct.Players, st)
		}
	}
	at := map[string]int{}
	for i, id := range ct.Players {
		at[id] = i
	}
	cell := func(a, b string) string {
		out := ""
		for _, c := range ct.Cells[at[a]][at[b]] {
			out += map[float64]string{0: "0", 0.5: "½", 1: "1"}[c.Points]
			if c.Forfeit {
				out += "F"
			}
			if c.Opened {
				out += "o"
			}
		}
		return out
	}
	want := map[[2]string]string{
		{"W", "X"}: "1o", {"X", "W"}: "0", {"W", "Y"}: "½o", {"Y", "W"}: "½", {"W", "Z"}: "½", {"Z", "W"}: "½o",
		{"X", "Y"}: "1Fo", {"Y", "X"}: "0F", {"X", "Z"}: "½o", {"Z", "X"}: "½", {"Y", "Z"}: "1o", {"Z", "Y"}: "0",
		{"W", "W"}: "", {"X", "X"}: "",
	}
	for k, w := range want {
		if got := cell(k[0], k[1]); got != w {
			t.Errorf("%s against %s: %q, want %q", k[0], k[1], got, w)
		}
	}
}
