package ai

import (
	"context"
	"errors"
	"fmt"

	"github.com/connectn/connectn/game"
)

// ColumnValue is the value, for the player to move, of dropping a disc in
// one column of a position.
type ColumnValue struct {
	// Column is zero-based.
	Column int
	// Legal is false for a full column; the other fields are then zero.
	Legal bool
	// Settled reports whether the solver settled the position the move
	// leaves within the context's deadline (always, when the move wins at
	// once); Score is meaningful only then.
	Settled bool
	// Score is the move's value in Pons' convention (see Solver), from the
	// mover's point of view: positive a win, 0 a draw, negative a loss.
	Score int
	// In is, for a win, the mover's discs up to the winning one, this one
	// included (1: the move wins at once); for a loss, the opponent's
	// discs up to their winning one, with best play on both sides; 0 for
	// a draw or an unsettled move.
	In int
}

// Evaluate values every column of the position that moves (zero-based
// columns, played alternately from the empty board, the first by the
// player who opens) reach on a board of cfg, for the player to move, with
// the exact solver, until ctx ends: columns not settled by then are
// returned unsettled. The searches go through the engine's pool, as a
// move's do. It returns an error wrapping ErrBoardTooLarge for a board the
// solver cannot hold ((rows+1) x columns > 64; no column is settled then),
// and one wrapping ErrInvalidMoves naming the first move (counted from 1)
// that cannot be played: a column off the board or full, or any move after
// a line was made.
func (e *Engine) Evaluate(ctx context.Context, cfg game.Config, moves []int) ([]ColumnValue, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b, err := game.NewBoard(cfg.Rows, cfg.Columns)
	if err != nil {
		return nil, err
	}
	// The moves, checked with the game's own rules first: the error names
	// the first bad move whatever the board's size.
	player, won := game.Player1, false
	for i, c := range moves {
		if won {
			return nil, fmt.Errorf("move %d: the game was already won: %w", i+1, ErrInvalidMoves)
		}
		if c < 0 || c >= cfg.Columns || !b.CanDrop(c) {
			return nil, fmt.Errorf("move %d, column %d: %w", i+1, c+1, ErrInvalidMoves)
		}
		row, _ := b.Drop(c, player)
		won = len(b.LinesThrough(row, c, cfg.Connect)) > 0
		player = player.Other()
	}
	out := make([]ColumnValue, cfg.Columns)
	for c := range out {
		out[c] = ColumnValue{Column: c, Legal: b.CanDrop(c)}
	}
	if won || b.Full() {
		for c := range out {
			out[c].Legal = false // the game is over
		}
		return out, nil
	}
	s := e.solver(cfg.Rows, cfg.Columns, cfg.Connect)
	if s == nil {
		return out, fmt.Errorf("evaluate a %dx%d board: %w", cfg.Rows, cfg.Columns, ErrBoardTooLarge)
	}
	pos, err := s.Play(moves)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	if e.acquireCtx(ctx) {
		defer e.release()
	} else {
		ctx = doneContext{ctx}
	}
	g, p := s.g, pos.p
	for c := range out {
		v := &out[c]
		if !v.Legal {
			continue
		}
		if g.winsNow(&p, c) {
			v.Settled, v.Score, v.In = true, (g.cells+1-p.moves)/2, 1
			continue
		}
		next := p
		g.playColumn(&next, c)
		if next.moves == g.cells {
			v.Settled = true // the board is full: a draw
			continue
		}
		res, err := s.Solve(ctx, Position{next}, false)
		if errors.Is(err, ErrNotSettled) {
			continue
		}
		if err != nil {
			return nil, err
		}
		v.Settled, v.Score = true, -res.Score
		// A win in Pons' convention is (cells + 1 - n)/2 for the winner's
		// line made with disc n+1 on the board: count the discs.
		switch {
		case v.Score > 0: // the mover wins with the board's disc n+1
			n := g.cells + 1 - 2*v.Score
			v.In = (n-p.moves)/2 + 1
		case v.Score < 0: // the opponent wins with the board's disc n+1
			n := g.cells + 1 - 2*(-v.Score)
			v.In = (n-(p.moves+1))/2 + 1
		}
	}
	return out, nil
}
