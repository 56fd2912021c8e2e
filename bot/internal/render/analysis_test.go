package render

import (
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

// TestChartWin: where the evaluation chart draws a win after a move, on
// 7x6 (42 cells), opened by Player1.
func TestChartWin(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mv       ai.MoveReview
		winner   game.Player
		distance int
	}{
		{"the opener's 4th disc makes a line", ai.MoveReview{Ply: 6, Player: game.Player1, After: 18, AfterExact: true}, game.Player1, 0},
		{"the second player's 4th disc makes a line", ai.MoveReview{Ply: 7, Player: game.Player2, After: 18, AfterExact: true}, game.Player2, 0},
		{"the opener wins with its next disc", ai.MoveReview{Ply: 5, Player: game.Player2, After: -18, AfterExact: true}, game.Player1, 1},
		{"the mover wins with its 8th disc, two after this one", ai.MoveReview{Ply: 10, Player: game.Player1, After: 14, AfterExact: true}, game.Player1, 4},
		{"a win known, its distance not: the latest", ai.MoveReview{Ply: 10, Player: game.Player1, After: 1}, game.Player1, 30},
		{"the second player's win, distance not known", ai.MoveReview{Ply: 10, Player: game.Player1, After: -1}, game.Player2, 31},
	} {
		w, d := chartWin(42, game.Player1, tc.mv)
		if w != tc.winner || d != tc.distance {
			t.Errorf("%s: %v in %d plies, want %v in %d", tc.name, w, d, tc.winner, tc.distance)
		}
	}
}
