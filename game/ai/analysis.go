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
	// AfterExact reports it of After alone.
	Exact, AfterExact bool
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
// it and the score it left, and whether it kept the result. On the standard
// 7x6 board the table of weak results and the opening book give the
// results of the positions they know at once; then the solver settles the
// other positions' results (weakly), and then every position's exact
// score, each time from the last move back (the end settles fastest and
// fills the transposition table for the rest), each position with an even
// share of the time ctx leaves. A move whose positions have known results
// but not exact scores is Settled, not Exact; one whose results are not
// known in time is not Settled, and Complete is false then. It takes a worker
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
	// scores[i] is the score of positions[i] (the position before move i),
	// scores[len] the final position's if the round did not end on a line:
	// exact when settled, a weak result (1, 0, -1) when only weak.
	last := len(moves)
	all := append(positions, p)
	scores := make([]int, last+1)
	settled := make([]bool, last+1)
	weak := make([]bool, last+1)
	wonAtEnd := last > 0 && g.winsNow(&positions[last-1], moves[last-1])
	standard := cfg.Rows == 6 && cfg.Columns == 7 && cfg.Connect == 4
	var todo []int // the positions to solve, the last first
	for i := last; i >= 0; i-- {
		if i == last && wonAtEnd {
			continue // after a win there is no position to score
		}
		todo = append(todo, i)
		if standard {
			if o, ok := e.known(&all[i]); ok {
				scores[i], weak[i] = int(o)-int(Draw), true
			}
		}
	}
	// First the results (win, draw, loss: what a move kept or gave away),
	// then the exact scores, each position with an even share of the time
	// left: one long search does not leave the others unsettled.
	for pass := 0; pass < 2; pass++ {
		left := 0
		for _, i := range todo {
			if !settled[i] && (pass == 1 || !weak[i]) {
				left++
			}
		}
		for _, i := range todo {
			if settled[i] || (pass == 0 && weak[i]) || ctx.Err() != nil {
				continue
			}
			sctx, cancel := share(ctx, left)
			res, err := s.Solve(sctx, Position{all[i]}, pass == 0)
			cancel()
			left--
			if err != nil {
				if !errors.Is(err, ErrNotSettled) {
					return nil, err
				}
				continue
			}
			if pass == 0 {
				scores[i], weak[i] = res.Score, true
			} else {
				scores[i], settled[i] = res.Score, true
			}
		}
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
		m.AfterExact = exact
		exact = exact && settled[i]
		m.Settled, m.Exact, m.Before, m.After = true, exact, scores[i], after
		m.Kept = sign(after) >= sign(scores[i])
		if !m.Kept && a.FirstChange < 0 {
			a.FirstChange = i
		}
	}
	return a, nil
}
