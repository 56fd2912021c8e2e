package puzzle

import (
	"context"
	"errors"
	"testing"

	"github.com/connectn/connectn/game"
)

// TestFindInMatch plays a match of three rounds: in the second, opened by
// Player2, the player to move reaches a starter puzzle's position, has a
// forced win, and plays a move that gives it away; then both play best to
// the end. FindInMatch must find the puzzle there, with its attribution. In
// the third, another puzzle's position is met and its solution played:
// the win kept, no puzzle is found there.
func TestFindInMatch(t *testing.T) {
	p := starterWhere(t, func(p Puzzle) bool { return p.Kind == WinIn && p.N <= 3 && p.Config == std })
	kept := starterWhere(t, func(q Puzzle) bool { return q.Kind == WinIn && q.N <= 3 && q.Config == std && q.ID != p.ID })
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 3, Openers: game.Alternate}
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	play := func(c int) {
		t.Helper()
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []int{0, 1, 0, 1, 0, 1, 0} { // round 1: Player1 wins in column 1
		play(c)
	}
	if m.Round().Number() != 2 || m.Round().Opener() != game.Player2 {
		t.Fatalf("round %d opened by %v, want round 2 by player 2", m.Round().Number(), m.Round().Opener())
	}
	moves := position(t, p)
	for _, c := range moves {
		play(c)
	}
	// The blunder: a move that gives the win away.
	vals := evaluate(t, std, moves)
	blunder := -1
	for _, c := range centreOrder(std.Columns) {
		if vals[c].Legal && vals[c].Score <= 0 {
			blunder = c
			break
		}
	}
	if blunder < 0 {
		t.Fatalf("puzzle %s: no move gives the win away", p.ID)
	}
	play(blunder)
	playBest := func() {
		t.Helper()
		for round := m.Round(); !round.Over(); {
			best, err := bestMove(context.Background(), testEngine, std, round.Moves())
			if err != nil {
				t.Fatal(err)
			}
			play(best.Column)
		}
	}
	playBest()
	if m.Over() || m.Round().Number() != 3 {
		t.Fatalf("after round 2: over %v, round %d", m.Over(), m.Round().Number())
	}
	for _, c := range position(t, kept) {
		play(c)
	}
	play(kept.Solution)
	playBest()
	info := MatchInfo{Guild: "g1", Match: 77, Players: [2]string{"Alice", "Bob"}}
	// Only the positions from the puzzle's on: the earlier ones take long.
	opts := FindOptions{MaxEmpty: std.Rows*std.Columns - min(len(moves), len(kept.Moves))}
	found, complete, err := FindInMatch(context.Background(), testEngine, m, info, opts)
	if err != nil {
		t.Fatal(err)
	}
	mover := game.Player2 // the round's opener, after an even number of discs
	if len(moves)%2 == 1 {
		mover = game.Player1
	}
	want := Source{Kind: FromMatch, Guild: "g1", Match: 77, Players: [2]string{"Alice", "Bob"}, Mover: mover, Round: 2, Move: len(moves) + 1}
	var got *Puzzle
	for i := range found {
		if found[i].ID == p.ID {
			got = &found[i]
		}
		f := found[i]
		if err := Verify(context.Background(), testEngine, f); err != nil {
			t.Errorf("found %s, which fails: %v", f.Format(), err)
		}
		// The move played there was not the solution: it gave the win away.
		played := m.Rounds()[f.Source.Round-1].Moves()[f.Source.Move-1]
		if played == f.Solution || f.Moves != game.MovesCode(m.Rounds()[f.Source.Round-1].Moves()[:f.Source.Move-1]) {
			t.Errorf("found %s at round %d move %d, where column %d was played", f.Format(), f.Source.Round, f.Source.Move, played+1)
		}
	}
	for _, f := range found {
		if f.ID == kept.ID {
			t.Errorf("found %s, where the win was kept", f.Format())
		}
	}
	if got == nil {
		t.Fatalf("found %d puzzles (complete %v), not %s", len(found), complete, p.Format())
	}
	if got.Kind != p.Kind || got.N != p.N || got.Solution != p.Solution || got.Moves != p.Moves {
		t.Errorf("found %s, want the task of %s", got.Format(), p.Format())
	}
	if got.Source != want {
		t.Errorf("source %+v, want %+v", got.Source, want)
	}
	if !complete {
		t.Error("not complete without a deadline")
	}

	// Out of time: nothing settled, nothing found, no error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	found, complete, err = FindInMatch(ctx, testEngine, m, info, opts)
	if err != nil || complete || len(found) != 0 {
		t.Errorf("with an ended context: %d found, complete %v, %v", len(found), complete, err)
	}
}

func TestFindInMatchRefusesLargeBoards(t *testing.T) {
	m, err := game.NewMatch(game.Config{Rows: 8, Columns: 8, Connect: 4, Wins: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := FindInMatch(context.Background(), testEngine, m, MatchInfo{}, FindOptions{}); !errors.Is(err, ErrInvalidPuzzle) {
		t.Errorf("8x8: %v, want ErrInvalidPuzzle", err)
	}
}
