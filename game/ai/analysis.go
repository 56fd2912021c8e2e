package ai

import (
	"context"
	"errors"
	"fmt"

	"github.com/connectn/connectn/game"
)

// MoveReview is the verdict on one move of a round.
type MoveReview struct {
	// Ply is the move's index in the round, from 0; the round's opener
	// played the even plies.
	Ply int
	// Player dropped the disc, in Column (zero-based).
	Player game.Player
	Column int
	// Settled reports whether the results of Before and After are known
	// (their signs: win, draw or loss), so that Kept is: false when the
	// context ended before the solver settled them and, on the standard
	// 7x6 board, the table of weak results and the opening book did not
	// know them.
	Settled bool
	// Exact reports whether Before and After are exact scores; when
	// Settled but not Exact, one of them is only a weak result (1, 0, -1).
	Exact bool
	// Before is the score of the position the player moved from, and After
	// the score the move left them (the negative of the opponent's score
	// after it, or the win's score when the move completed a line); both in
	// Pons' convention (see Solver), from the mover's point of view. After
	// equals Before for a best move and is lower otherwise (when Exact; in
	// sign otherwise).
	Before, After int
	// Kept reports whether the move kept the position's result: a win
	// stays a win, a draw at least a draw (a loss cannot get worse).
	Kept bool
}

// Analysis is the review of a finished round.
type Analysis struct {
	Moves []MoveReview
	// FirstChange is the index in Moves of the first move that changed the
	// result (gave away a win or a draw), -1 when every settled move kept
	// it.
	FirstChange int
	// Complete reports whether every move was settled (its result known,
	// if not its distance).
	Complete bool
}

// doneContext is a context that has ended: with no worker free before ctx
// ended, Analyze settles nothing.
type doneContext struct{ context.Context }

func (d doneContext) Err() error {
	if err := d.Context.Err(); err != nil {
		return err
	}
	return context.DeadlineExceeded
}

// Analyze reviews a round of a match played with cfg, on a board whose
// bitboard fits in 64 bits: for each move, the score of the position before
// it and the score it left, and whether it kept the result. It works from
// the last move back (the end settles fastest and fills the transposition
// table for the rest) and honours ctx: a position it could not settle in
// time keeps its weak result where the standard board's table of weak
// results or opening book knows it (the move is Settled, not Exact), and
// is otherwise not settled: its moves are marked Settled false, and
// Complete is false. It takes a worker
// from the engine's pool, as Move does. It returns an error wrapping ErrBoardTooLarge
// for a larger board, and one wrapping ErrInvalidMoves for a round whose
// moves are not a game.
func (e *Engine) Analyze(ctx context.Context, cfg game.Config, r *game.Round) (*Analysis, error) {
	s := e.solver(cfg.Rows, cfg.Columns, cfg.Connect)
	if s == nil {
		return nil, fmt.Errorf("analyze a %dx%d board: %w", cfg.Rows, cfg.Columns, ErrBoardTooLarge)
	}
	moves := r.Moves()
	g := s.g
	// Every position before a move, checked as a game.
	positions := make([]position, len(moves))
	var p position
	for i, c := range moves {
		if !g.canPlay(&p, c) {
			return nil, fmt.Errorf("analyze move %d in column %d: %w", i+1, c+1, ErrInvalidMoves)
		}
		positions[i] = p
		if g.winsNow(&p, c) && i < len(moves)-1 {
			return nil, fmt.Errorf("analyze move %d: the round was already won: %w", i+2, ErrInvalidMoves)
		}
		g.playColumn(&p, c)
	}
	a := &Analysis{Moves: make([]MoveReview, len(moves)), FirstChange: -1, Complete: true}
	// The analysis searches like a move does: through the pool.
	if e.acquireCtx(ctx) {
		defer e.release()
	} else {
		ctx = doneContext{ctx}
	}
	player := r.Opener()
	for i, c := range moves {
		a.Moves[i] = MoveReview{Ply: i, Player: player, Column: c}
		player = player.Other()
	}
	// score[i] is the score of positions[i] (the position before move i);
	// score[len] is the final position's, if the round did not end on a line.
	scores := make([]int, len(moves)+1)
	settled := make([]bool, len(moves)+1)
	last := len(moves)
	if last > 0 && g.winsNow(&positions[last-1], moves[last-1]) {
		settled[last] = false // after a win there is no position to score
	} else {
		res, err := s.Solve(ctx, Position{p}, false)
		if err == nil {
			scores[last], settled[last] = res.Score, true
		}
	}
	// weak[i] is the weak result of positions[i] (or the final position)
	// when the solver did not settle it but the table or the book knows it.
	weak := make([]bool, len(moves)+1)
	standard := cfg.Rows == 6 && cfg.Columns == 7 && cfg.Connect == 4
	fallback := func(i int, q *position) {
		if !standard {
			return
		}
		if o, ok := e.known(q); ok {
			scores[i], weak[i] = int(o)-int(Draw), true
		}
	}
	if !settled[last] && (last == 0 || !g.winsNow(&positions[last-1], moves[last-1])) {
		fallback(last, &p)
	}
	for i := last - 1; i >= 0; i-- {
		res, err := s.Solve(ctx, Position{positions[i]}, false)
		if err != nil {
			if !errors.Is(err, ErrNotSettled) {
				return nil, err
			}
			fallback(i, &positions[i])
			continue
		}
		scores[i], settled[i] = res.Score, true
	}
	for i, c := range moves {
		m := &a.Moves[i]
		var after int
		afterKnown := false
		exact := true
		if g.winsNow(&positions[i], c) {
			after, afterKnown = (g.cells+1-positions[i].moves)/2, true
		} else if settled[i+1] || weak[i+1] {
			after, afterKnown, exact = -scores[i+1], true, settled[i+1]
		}
		if !afterKnown || !(settled[i] || weak[i]) {
			a.Complete = false
			continue
		}
		exact = exact && settled[i]
		m.Settled, m.Exact, m.Before, m.After = true, exact, scores[i], after
		m.Kept = sign(after) >= sign(scores[i])
		if !m.Kept && a.FirstChange < 0 {
			a.FirstChange = i
		}
	}
	return a, nil
}
