package ai

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/connectn/connectn/game"
)

// Outcome is a weak result: what a position or a move comes to with
// perfect play on both sides, for the player to move or the mover.
type Outcome int8

// The outcomes; Unknown when it was not proved in time.
const (
	Unknown Outcome = iota
	Loss
	Draw
	Win
)

// String returns "unknown", "loss", "draw" or "win".
func (o Outcome) String() string {
	switch o {
	case Loss:
		return "loss"
	case Draw:
		return "draw"
	case Win:
		return "win"
	}
	return "unknown"
}

// flip returns the outcome for the other player.
func (o Outcome) flip() Outcome {
	switch o {
	case Win:
		return Loss
	case Loss:
		return Win
	}
	return o
}

// outcomeOf returns the outcome of a score in Pons' convention (or of a
// weak result), for the side it is seen from.
func outcomeOf(score int) Outcome {
	switch {
	case score > 0:
		return Win
	case score < 0:
		return Loss
	}
	return Draw
}

// Verdict is what is proved about a move (one column of a position) or a
// position, for the player who makes the move or is to move.
type Verdict struct {
	// Column is the move's zero-based column, -1 for a position.
	Column int
	// Legal is false for a full column, and for a position where the game
	// is over; the other fields are then zero.
	Legal bool
	// Outcome is the weak result; Unknown when neither what is known at
	// once nor the solver in time proved it.
	Outcome Outcome
	// In counts discs as ColumnValue.In does: for a win, the player's own
	// discs up to the winning one, this move's included (1: it wins at
	// once); for a loss, the opponent's discs up to their winning one; 0
	// when not known, and for a draw.
	In int
	// Exact reports whether In is the distance with best play on both
	// sides (always, for a draw). When false and In > 0 (wins only), In is
	// a proved bound: the player wins in at most In discs.
	Exact bool
	// Instant reports whether Outcome was known without searching: a line
	// made at once, a full board, or on the standard 7x6 board the table of
	// weak results (weak7x6) or the opening book.
	Instant bool
}

// discsTo returns, for the player to move in a position of plies discs
// whose score (Pons' convention, from that player's point of view) is
// score, the discs counted by Verdict.In: the player's own up to their
// winning one for a win, the opponent's for a loss, 0 for a draw. For a
// proved lower bound of a win's score it returns a bound of its distance.
func (g *geometry) discsTo(plies, score int) int {
	switch {
	case score > 0: // the player wins with the board's disc n+1
		n := g.cells + 1 - 2*score
		return (n-plies)/2 + 1
	case score < 0: // the opponent wins with the board's disc n+1
		n := g.cells + 1 - 2*(-score)
		return (n-(plies+1))/2 + 1
	}
	return 0
}

// known is what the table of weak results and the opening book say of p
// on the standard board: its weak result for the player to move.
func (e *Engine) known(p *position) (Outcome, bool) {
	if v, ok := embeddedWeak().lookup(p); ok {
		return outcomeOf(v), true
	}
	if e.book != nil {
		if _, score, ok := e.book.entry(p); ok {
			return outcomeOf(score), true
		}
	}
	return Unknown, false
}

// checkMoves plays moves (zero-based columns, Player1 first) on a board of
// cfg by the game's rules. It returns the board, whether the last move made
// a line, and an error wrapping ErrInvalidMoves naming the first move
// (counted from 1) that cannot be played, as Evaluate does.
func checkMoves(cfg game.Config, moves []int) (*game.Board, bool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, false, err
	}
	b, err := game.NewBoard(cfg.Rows, cfg.Columns)
	if err != nil {
		return nil, false, err
	}
	player, won := game.Player1, false
	for i, c := range moves {
		if won {
			return nil, false, fmt.Errorf("move %d: the game was already won: %w", i+1, ErrInvalidMoves)
		}
		if c < 0 || c >= cfg.Columns || !b.CanDrop(c) {
			return nil, false, fmt.Errorf("move %d, column %d: %w", i+1, c+1, ErrInvalidMoves)
		}
		row, _ := b.Drop(c, player)
		won = len(b.LinesThrough(row, c, cfg.Connect)) > 0
		player = player.Other()
	}
	return b, won, nil
}

// share returns a context that ends at ctx's end or after an even share of
// the time left among parts searches, whichever comes first.
func share(ctx context.Context, parts int) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok || parts <= 1 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, time.Now().Add(time.Until(d)/time.Duration(parts)))
}

// ColumnVerdicts returns the Verdict on every column of the position that
// moves (zero-based columns, played alternately from the empty board)
// reach on a board of cfg, for the player to move, Column set to its
// index. What is known at once comes first and whatever the context: a
// move that makes a line, one that fills the board, and on the standard
// 7x6 board (connect 4) the table of weak results and the opening book,
// which settle the outcome of every move of the positions they cover.
// Then, until ctx ends, the exact solver (through the engine's pool, as
// Evaluate) settles the outcome of the other columns, each with an even
// share of the time left, and then the distance of each win and loss,
// again with even shares; a win whose distance is not settled in its share
// gets the bound the search proved ("in at most In"). Errors are those of
// Evaluate: ErrBoardTooLarge (with the columns known at once), and
// ErrInvalidMoves naming the first move that cannot be played.
func (e *Engine) ColumnVerdicts(ctx context.Context, cfg game.Config, moves []int) ([]Verdict, error) {
	b, won, err := checkMoves(cfg, moves)
	if err != nil {
		return nil, err
	}
	out := make([]Verdict, cfg.Columns)
	for c := range out {
		out[c] = Verdict{Column: c, Legal: b.CanDrop(c) && !won}
	}
	if won || b.Full() {
		return out, nil
	}
	s := e.solver(cfg.Rows, cfg.Columns, cfg.Connect)
	if s == nil {
		return out, fmt.Errorf("column verdicts on a %dx%d board: %w", cfg.Rows, cfg.Columns, ErrBoardTooLarge)
	}
	pos, err := s.Play(moves)
	if err != nil {
		return nil, fmt.Errorf("column verdicts: %w", err)
	}
	g, p := s.g, pos.p
	standard := cfg.Rows == 6 && cfg.Columns == 7 && cfg.Connect == 4
	children := make([]position, cfg.Columns)
	for c := range out {
		v := &out[c]
		if !v.Legal {
			continue
		}
		if g.winsNow(&p, c) {
			v.Outcome, v.In, v.Exact, v.Instant = Win, 1, true, true
			continue
		}
		q := p
		g.playColumn(&q, c)
		children[c] = q
		if q.moves == g.cells {
			v.Outcome, v.Exact, v.Instant = Draw, true, true
			continue
		}
		if standard {
			if o, ok := e.known(&q); ok {
				v.Outcome, v.Instant = o.flip(), true
			}
		}
	}
	if standard {
		// The position's own entry: the book's move achieves its result,
		// and in a lost position every move loses.
		if o, ok := e.known(&p); ok && o == Loss {
			for c := range out {
				if out[c].Legal && out[c].Outcome == Unknown {
					out[c].Outcome, out[c].Instant = Loss, true
				}
			}
		}
		if e.book != nil {
			if c, score, ok := e.book.entry(&p); ok && out[c].Legal && out[c].Outcome == Unknown {
				out[c].Outcome, out[c].Instant = outcomeOf(score), true
			}
		}
	}
	for c := range out {
		if out[c].Outcome == Draw {
			out[c].Exact = true
		}
	}
	if ctx.Err() != nil || !e.acquireCtx(ctx) {
		return out, nil
	}
	defer e.release()
	order := g.order[:g.columns]
	// The outcomes not known at once, each with its share of the time.
	todo := 0
	for _, c := range order {
		if out[c].Legal && out[c].Outcome == Unknown {
			todo++
		}
	}
	for pass := 0; pass < 2 && todo > 0; pass++ {
		for _, c := range order {
			v := &out[c]
			if !v.Legal || v.Outcome != Unknown || ctx.Err() != nil {
				continue
			}
			cctx, cancel := ctx, context.CancelFunc(func() {})
			if pass == 0 {
				cctx, cancel = share(ctx, todo)
			}
			res, err := s.Solve(cctx, Position{children[c]}, true)
			cancel()
			if pass == 0 {
				todo--
			}
			if errors.Is(err, ErrNotSettled) {
				continue
			}
			if err != nil {
				return nil, err
			}
			v.Outcome = outcomeOf(-res.Score)
			if v.Outcome == Draw {
				v.Exact = true
			}
		}
		if pass == 0 {
			// The distances, then what is left of the time for the outcomes
			// not yet settled.
			e.distances(ctx, s, p, children, out)
			todo = 0
			for _, c := range order {
				if out[c].Legal && out[c].Outcome == Unknown {
					todo++
				}
			}
		}
	}
	return out, nil
}

// distances settles, until ctx ends, the distance of each win and loss in
// out (the verdicts on the moves of p, which reach children), each with an
// even share of the time left, centre columns first.
func (e *Engine) distances(ctx context.Context, s *Solver, p position, children []position, out []Verdict) {
	g := s.g
	todo := 0
	for c := range out {
		if v := out[c]; v.Legal && !v.Exact && (v.Outcome == Win || v.Outcome == Loss) {
			todo++
		}
	}
	for _, c := range g.order[:g.columns] {
		v := &out[c]
		if !v.Legal || v.Exact || (v.Outcome != Win && v.Outcome != Loss) {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		// The child's score is the negative of the move's.
		lo, hi := -g.cells, -1
		if v.Outcome == Loss {
			lo, hi = 1, g.cells
		}
		cctx, cancel := share(ctx, todo)
		bd, err := s.SolveBounds(cctx, Position{children[c]}, lo, hi)
		cancel()
		todo--
		if err != nil && !errors.Is(err, ErrNotSettled) {
			return
		}
		switch {
		case bd.Exact():
			v.In, v.Exact = g.discsTo(p.moves, -bd.Lo), true
		case v.Outcome == Win:
			v.In = g.discsTo(p.moves, -bd.Hi) // at most
		}
	}
}

// PositionVerdict returns the Verdict on the position that moves reach on a
// board of cfg, for the player to move (Column -1): what is known at once
// (a move that makes a line; on the standard 7x6 board the table of weak
// results and the opening book, for the position or for every move of it),
// then, until ctx ends, the exact solver on the position itself: its
// outcome, then its distance, or for a win the bound the search proved.
// A position where the game is over is not Legal. Errors are those of
// ColumnVerdicts.
func (e *Engine) PositionVerdict(ctx context.Context, cfg game.Config, moves []int) (Verdict, error) {
	b, won, err := checkMoves(cfg, moves)
	if err != nil {
		return Verdict{}, err
	}
	if won || b.Full() {
		return Verdict{Column: -1}, nil
	}
	// What each move is known to give, at once (nothing is searched with a
	// context that has ended).
	done, cancel := context.WithCancel(ctx)
	cancel()
	cols, err := e.ColumnVerdicts(done, cfg, moves)
	if err != nil && !errors.Is(err, ErrBoardTooLarge) {
		return Verdict{}, err
	}
	v := combine(cols)
	if errors.Is(err, ErrBoardTooLarge) {
		return v, err
	}
	s := e.solver(cfg.Rows, cfg.Columns, cfg.Connect)
	pos, _ := s.Play(moves)
	g, p := s.g, pos.p
	if cfg.Rows == 6 && cfg.Columns == 7 && cfg.Connect == 4 && v.Outcome == Unknown {
		if o, ok := e.known(&p); ok {
			v.Outcome, v.Instant = o, true
		}
	}
	if v.Outcome == Draw || v.Exact {
		v.Exact = true
		return v, nil
	}
	if ctx.Err() != nil || !e.acquireCtx(ctx) {
		return v, nil
	}
	defer e.release()
	if v.Outcome == Unknown {
		res, err := s.Solve(ctx, pos, true)
		if errors.Is(err, ErrNotSettled) {
			return v, nil
		}
		if err != nil {
			return Verdict{}, err
		}
		v.Outcome = outcomeOf(res.Score)
		if v.Outcome == Draw {
			v.Exact = true
			return v, nil
		}
	}
	lo, hi := 1, g.cells
	if v.Outcome == Loss {
		lo, hi = -g.cells, -1
	}
	bd, err := s.SolveBounds(ctx, pos, lo, hi)
	if err != nil && !errors.Is(err, ErrNotSettled) {
		return Verdict{}, err
	}
	switch {
	case bd.Exact():
		v.In, v.Exact = g.discsTo(p.moves, bd.Lo), true
	case v.Outcome == Win:
		if n := g.discsTo(p.moves, bd.Lo); v.In == 0 || n < v.In {
			v.In = n // at most
		}
	}
	return v, nil
}

// combine returns the verdict on a position from the verdicts on its
// moves: a win when a move is known to win, in the fewest discs any
// known win takes (exact when that is the win at once, or when every
// other move is settled and none is faster); a draw or a loss when every
// move is known (the slowest loss's distance when every loss's is exact);
// Unknown otherwise.
func combine(cols []Verdict) Verdict {
	v := Verdict{Column: -1, Legal: true}
	top := Unknown // the best outcome known
	all, instant := true, true
	fastest, fastestExact := 0, false // the win in the fewest discs
	winsExact := true
	slowest, lossesExact := 0, true // the loss in the most discs
	for _, c := range cols {
		if !c.Legal {
			continue
		}
		if c.Outcome == Unknown {
			all = false
			continue
		}
		top = max(top, c.Outcome)
		instant = instant && c.Instant
		switch c.Outcome {
		case Win:
			winsExact = winsExact && c.Exact
			if c.In > 0 && (fastest == 0 || c.In < fastest || (c.In == fastest && c.Exact)) {
				fastest, fastestExact = c.In, c.Exact
			}
		case Loss:
			lossesExact = lossesExact && c.Exact
			slowest = max(slowest, c.In)
		}
	}
	switch {
	case top == Win:
		v.Outcome, v.Instant, v.In = Win, instant, fastest
		v.Exact = fastest > 0 && fastestExact && (fastest == 1 || (all && winsExact))
	case all && top != Unknown:
		v.Outcome, v.Instant = top, instant
		switch {
		case top == Draw:
			v.Exact = true
		case lossesExact:
			v.In, v.Exact = slowest, true
		}
	}
	return v
}
