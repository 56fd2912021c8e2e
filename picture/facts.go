package picture

import (
	"slices"

	"github.com/connectn/connectn/game"
)

// BoardFacts are the facts a description of a board picture (its alt
// text) needs; the bot words them from its catalog in the reader's
// language.
type BoardFacts struct {
	// Rows and Columns are the board's size.
	Rows, Columns int
	// Discs counts each player's discs, indexed by game.Player (index 0
	// unused).
	Discs [3]int
	// Outcome is how the round stands, and Winner who won it (NoPlayer
	// while it goes on and for a draw).
	Outcome game.Outcome
	Winner  game.Player
	// Line holds the cells of the winning line (row 0 at the bottom,
	// column 0 at the left), empty when nobody won.
	Line []game.Cell
	// Last is the cell of the last disc, dropped by LastPlayer; HasLast
	// is false on an empty board.
	Last       game.Cell
	LastPlayer game.Player
	HasLast    bool
	// ToMove is the player to drop the next disc, NoPlayer when the
	// round is over.
	ToMove game.Player
}

// Describe returns the facts of round r's board as Draw and DrawCard show
// it.
func Describe(r *game.Round) BoardFacts {
	f := BoardFacts{
		Rows: r.Rows(), Columns: r.Columns(),
		Outcome: r.Outcome(), Winner: r.Winner(), Line: r.Line(),
	}
	for row := 0; row < f.Rows; row++ {
		for c := 0; c < f.Columns; c++ {
			f.Discs[r.At(row, c)]++
		}
	}
	f.Discs[game.NoPlayer] = 0
	f.Last, f.HasLast = r.LastMove()
	if f.HasLast {
		f.LastPlayer = r.At(f.Last.Row, f.Last.Column)
	}
	if !r.Over() {
		f.ToMove = r.ToMove()
	}
	return f
}

// CardFacts are the facts a description of a result card needs.
type CardFacts struct {
	// Board is the final position's facts.
	Board BoardFacts
	// Names are the players' names as the card draws them (the name, the
	// fallback, or "" when it draws neither), indexed by game.Player.
	Names [3]string
	// Score holds the rounds each player won, indexed by game.Player.
	Score [3]int
	// Winner is the match's winner, NoPlayer when nobody won it.
	Winner game.Player
	// Rated reports whether the card shows a rating change.
	Rated bool
}

// Facts returns the facts of result card c, for its alt text.
func (c Card) Facts() CardFacts {
	f := CardFacts{Winner: c.Winner}
	if c.Round != nil {
		f.Board = Describe(c.Round)
	}
	for _, p := range []game.Player{game.Player1, game.Player2} {
		f.Names[p] = c.Players[p].name()
		f.Score[p] = c.Players[p].Score
		f.Rated = f.Rated || c.Players[p].Rating != ""
	}
	return f
}

// ChartFacts are the facts a description of an evaluation chart needs.
type ChartFacts struct {
	// Plies is how many plies the chart shows, Settled how many of them
	// have a verdict.
	Plies, Settled int
	// Unsettled are the runs of unsettled plies, each its first and last
	// ply index (from 0), in order.
	Unsettled [][2]int
	// First and Last are the first and the last settled verdicts, with
	// FirstPly and LastPly their ply indexes; -1 when nothing is settled.
	First, Last       Verdict
	FirstPly, LastPly int
	// Mistakes are the chart's mistakes, in ply order.
	Mistakes []Mistake
}

// Facts returns the facts of evaluation chart c, for its alt text.
func (c EvalChart) Facts() ChartFacts {
	f := ChartFacts{Plies: len(c.Plies), FirstPly: -1, LastPly: -1}
	for i, v := range c.Plies {
		if !v.Settled {
			if n := len(f.Unsettled); n > 0 && f.Unsettled[n-1][1] == i-1 {
				f.Unsettled[n-1][1] = i
			} else {
				f.Unsettled = append(f.Unsettled, [2]int{i, i})
			}
			continue
		}
		f.Settled++
		if f.FirstPly < 0 {
			f.First, f.FirstPly = v, i
		}
		f.Last, f.LastPly = v, i
	}
	f.Mistakes = append([]Mistake(nil), c.Mistakes...)
	slices.SortFunc(f.Mistakes, func(a, b Mistake) int { return a.Ply - b.Ply })
	return f
}
