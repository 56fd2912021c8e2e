package bot_test

import (
	"context"
	"testing"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/sessions"
)

// TestPuzzleFoundInMatch plays a match between Alice and Bob in which the
// player to move reaches a starter puzzle's position, has a forced win,
// and plays a move that gives it away; the match ends by a click, the
// bot's after-match path queues it, and the scheduler's search finds the
// puzzle there, stored for the server with its attribution, which a
// member's attempt at it shows.
func TestPuzzleFoundInMatch(t *testing.T) {
	e := newPuzzleEnv(t)
	// A win in 2 where a move loses: the round ends with a win, and the
	// match of one round with it.
	p := starterWhere(t, func(p puzzle.Puzzle) bool {
		if p.Kind != puzzle.WinIn || p.N != 2 || p.Config.Rows != 6 || p.Config.Columns != 7 {
			return false
		}
		start, _ := p.MoveList()
		for _, v := range evaluate(t, std, start) {
			if v.Legal && v.Score < 0 {
				return true
			}
		}
		return false
	})
	start, _ := p.MoveList()
	e.startMatch(map[string]int{"rows": 6, "columns": 7, "connect": 4, "wins": 1})
	s := e.session()
	if s.Match.Round().Opener() != game.Player1 {
		t.Fatalf("round 1 opened by %v, want the challenger, Player1", s.Match.Round().Opener())
	}
	// The position, then a move that gives the win away, then best play,
	// all but the last disc played straight into the store.
	vals := evaluate(t, std, start)
	blunder := -1
	for _, v := range vals {
		if v.Legal && v.Score < 0 {
			blunder = v.Column
			break
		}
	}
	if blunder < 0 {
		t.Fatalf("puzzle %s: no move gives the win away", p.ID)
	}
	moves := append(append([]int(nil), start...), blunder)
	var last int
	for {
		best, bestScore := -1, -1000
		for _, v := range evaluate(t, std, moves) {
			if v.Legal && v.Score > bestScore {
				best, bestScore = v.Column, v.Score
			}
		}
		r := roundOf(t, append(append([]int(nil), moves...), best))
		if r.Over() {
			last = best
			break
		}
		moves = append(moves, best)
	}
	if _, err := e.store.Update(context.Background(), channelID, func(s *sessions.Session) error {
		for _, c := range moves {
			if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s = e.session()
	mover := alice
	if s.Match.ToMove() == game.Player2 {
		mover = bob
	}
	resp := e.clickID(mover, e.board(), customid.New("drop", s.ID, int64(s.PostSeq), int64(s.Match.Plies()), int64(last+1)).String())
	mustUpdate(t, resp)
	if s = e.session(); s.Phase != sessions.PhaseFinished {
		t.Fatalf("the match is %s after its last disc, want finished", s.Phase)
	}
	e.runDue() // the search, in the background; runDue waits for it
	found, err := e.store.FoundPuzzles(context.Background(), guildID)
	if err != nil {
		t.Fatal(err)
	}
	var got *puzzle.Puzzle
	for _, f := range found {
		q, err := puzzle.Parse(f.Puzzle)
		if err != nil {
			t.Fatal(err)
		}
		if f.Match != s.ID || f.Players != [2]string{aliceID, bobID} {
			t.Errorf("found puzzle %+v, want it of match %d between alice and bob", f, s.ID)
		}
		if q.ID == p.ID {
			got = &q
		}
	}
	if got == nil {
		t.Fatalf("the search found %d puzzles, none of them %s, the position where the win was given away", len(found), p.ID)
	}
	src := got.Source
	if src.Kind != puzzle.FromMatch || src.Players != [2]string{"Alice", "Bob"} || src.Round != 1 || src.Move != len(start)+1 ||
		src.Guild != guildID || src.Match != s.ID {
		t.Errorf("the found puzzle's source = %+v, want Alice vs Bob, round 1, move %d, in this server's match %d", src, len(start)+1, s.ID)
	}
	// Its attempt says where it comes from.
	msg := e.canvas(carol)
	a := e.startAt(carol, *got, "")
	e.clickID(carol, msg, customid.New("pzhint", a.ID, 0).String())
	mustContain(t, "the found puzzle", messageText(e.message(msg.ID)), "From Alice vs Bob, round 1, move ")
	// The search is done: another tick searches nothing again.
	before := len(found)
	e.runDue()
	if found, _ := e.store.FoundPuzzles(context.Background(), guildID); len(found) != before {
		t.Errorf("a second tick changed the found puzzles: %d, want %d", len(found), before)
	}
}

// roundOf returns the first round moves make on the standard board (a
// drawn round is followed by another).
func roundOf(t *testing.T, moves []int) *game.Round {
	t.Helper()
	m, err := game.NewMatch(std)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	return m.Rounds()[0]
}
