package ai

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Bounds is what a search has proved about a position's score (Pons'
// convention, see Solver): Lo <= score <= Hi, the score exact when Lo == Hi.
type Bounds struct {
	Lo, Hi int
	// Column is a zero-based column that achieves at least Lo, -1 when the
	// search has not found one (or on a full board).
	Column int
	// Nodes is the number of positions explored.
	Nodes uint64
}

// Exact reports whether the bounds meet: the score is known.
func (b Bounds) Exact() bool { return b.Lo == b.Hi }

// SolveBounds narrows the score of pos from [lo, hi], which must hold it
// (pass the widest range, -cells/2 and cells/2, when nothing is known; a
// weak result proves lo = 1 for a win, hi = -1 for a loss), with the
// iterative null-window search of Solve and one worker, until the bounds
// meet or ctx ends. Unlike Solve, a search that runs out of time still
// returns what it proved: the bounds, with an error wrapping ErrNotSettled
// and the context's error. A range that does not hold the score gives
// bounds that may not hold it either.
func (s *Solver) SolveBounds(ctx context.Context, pos Position, lo, hi int) (Bounds, error) {
	g, p := s.g, pos.p
	if p.moves >= g.cells {
		return Bounds{Column: -1}, nil
	}
	if w := g.winning(p.cur, p.mask) & g.possible(&p); w != 0 {
		score := (g.cells + 1 - p.moves) / 2
		return Bounds{Lo: score, Hi: score, Column: g.columnOf(w & -w), Nodes: 1}, nil
	}
	lo, hi = max(lo, -(g.cells-p.moves)/2), min(hi, (g.cells+1-p.moves)/2)
	if lo > hi {
		lo, hi = hi, lo
	}
	b := Bounds{Lo: lo, Hi: hi, Column: -1}
	if err := ctx.Err(); err != nil {
		return b, fmt.Errorf("%w: %w", ErrNotSettled, err)
	}
	var stop atomic.Bool
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	}
	w := &searcher{g: g, t: s.t, near: s.near, nearMost: nearReach(s.t), stop: &stop, rootMoves: p.moves}
	err := catchStop(func() {
		for b.Lo < b.Hi {
			med := b.Lo + (b.Hi-b.Lo)/2
			if med <= 0 && b.Lo/2 < med {
				med = b.Lo / 2
			} else if med >= 0 && b.Hi/2 > med {
				med = b.Hi / 2
			}
			r, c := w.rootProbe(p, med, med+1)
			if r <= med {
				b.Hi = max(r, b.Lo)
			} else {
				b.Lo, b.Column = min(r, b.Hi), c
			}
		}
	})
	b.Nodes = w.nodes
	if err != nil {
		return b, fmt.Errorf("%w: %w", ErrNotSettled, context.Cause(ctx))
	}
	if b.Column < 0 {
		b.Column = g.firstPlayable(&p)
	}
	return b, nil
}
