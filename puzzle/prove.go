package puzzle

import (
	"context"
	"errors"
	"fmt"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

// Evaluator values every column of a position with the exact solver, as
// ai.Engine.Evaluate does (which it is meant to be: *ai.Engine satisfies
// it, and so does the bot's AI): for the player to move in the position
// moves (zero-based columns, first player first) reach on a board of cfg,
// each column's value in Pons' convention with In, the discs to the win or
// the loss; columns not settled before ctx ends are returned unsettled.
type Evaluator interface {
	Evaluate(ctx context.Context, cfg game.Config, moves []int) ([]ai.ColumnValue, error)
}

// Reason says why a position is not a puzzle.
type Reason uint8

// The reasons a position fails the only-move test.
const (
	// ReasonWinInOne: the player to move can complete a line at once.
	ReasonWinInOne Reason = iota + 1
	// ReasonForced: the first move is forced: one column only is left,
	// or the opponent could complete a line at once, so that the first
	// move must block it (or every move loses at once).
	ReasonForced
	// ReasonManyWins: more than one move wins.
	ReasonManyWins
	// ReasonManyDraws: the position is a draw and more than one move keeps
	// it.
	ReasonManyDraws
	// ReasonManyDefences: the position is lost and more than one move
	// delays the loss longest.
	ReasonManyDefences
	// ReasonOutOfRange: the only winning move wins in more than MaxWinIn
	// discs.
	ReasonOutOfRange
	// ReasonUnwanted: the generator wants no more puzzles of the
	// position's kind (its quota is full), and stopped testing it.
	ReasonUnwanted
	reasons
)

var reasonNames = [...]string{ReasonWinInOne: "win in 1", ReasonForced: "forced move",
	ReasonManyWins: "several wins", ReasonManyDraws: "several draws", ReasonManyDefences: "several defences",
	ReasonOutOfRange: "win too long", ReasonUnwanted: "quota full"}

// String says the reason in a few words, for logs and summaries.
func (r Reason) String() string {
	return enumName(reasonNames[:], r, "Reason")
}

// NotPuzzleError is the error of a position that fails the only-move test;
// it wraps ErrNotPuzzle.
type NotPuzzleError struct {
	Reason Reason
}

func (e *NotPuzzleError) Error() string { return "not a puzzle: " + e.Reason.String() }

// Unwrap returns ErrNotPuzzle.
func (e *NotPuzzleError) Unwrap() error { return ErrNotPuzzle }

func reject(r Reason) error { return &NotPuzzleError{Reason: r} }

// Test runs the only-move test on the position moves (zero-based columns,
// first player first) reach on a board of cfg, with e's exact solver, and
// returns the puzzle it makes (ID, Config, Moves, Kind, N, Solution and
// InitialRating; the caller sets Source). The test, all of it proved by the
// solver:
//
//   - not trivial: the player to move cannot complete a line at once (no
//     win in 1), the opponent could not complete one with their next disc
//     (else the first move is a forced block, or every move loses at once),
//     and more than one column is open;
//   - a win: exactly one move wins, and N, the winner's discs to the win
//     after it with the longest defence, is from MinWinIn to MaxWinIn (it is
//     the fastest win, the only one there is);
//   - a draw: exactly one move keeps the draw, every other loses (OnlyMove);
//   - a loss: exactly one move delays the loss longest, every other lets
//     the opponent win with fewer discs (Defence, N the opponent's discs
//     after it).
//
// A position that fails returns an error wrapping ErrNotPuzzle (a
// *NotPuzzleError with the reason); one the solver does not settle before
// ctx ends, an error wrapping ai.ErrNotSettled; bad moves or a board too
// large, an error wrapping ErrInvalidPuzzle.
func Test(ctx context.Context, e Evaluator, cfg game.Config, moves []int) (Puzzle, error) {
	return test(ctx, cfg, moves, nil, func(b *game.Board) prober {
		return &evalProber{e: e, cfg: Normalize(cfg), moves: moves}
	})
}

// Verify re-solves p with e's exact solver and returns nil when the
// only-move test gives p's task back: the same kind, N and solution. It
// returns an error wrapping ErrNotPuzzle when it does not (saying what the
// solver found), and Test's other errors.
func Verify(ctx context.Context, e Evaluator, p Puzzle) error {
	moves, err := p.MoveList()
	if err != nil {
		return err
	}
	q, err := Test(ctx, e, p.Config, moves)
	if err != nil {
		return err
	}
	if q.Kind != p.Kind || q.N != p.N || q.Solution != p.Solution {
		return fmt.Errorf("puzzle %s says %s %d in column %d, the solver %s %d in column %d: %w",
			p.ID, p.Kind, p.N, p.Solution+1, q.Kind, q.N, q.Solution+1, ErrNotPuzzle)
	}
	return nil
}

// prober values the moves of one position for the player to move.
type prober interface {
	// value returns the value of dropping in column c, which must be
	// legal: with weak, only the sign of Score need be right (1, 0, -1 for
	// a win, draw or loss) and In may be 0. It returns an error wrapping
	// ai.ErrNotSettled when ctx ends first.
	value(ctx context.Context, c int, weak bool) (ai.ColumnValue, error)
}

// wanted says which tasks a generator still wants, so that a position of
// another kind is dropped as soon as its kind is known.
type wanted struct {
	win                   func(n int) bool
	anyWin, only, defence bool // anyWin: win(n) for some n
	parentFirst           bool // solve the position itself weakly first
}

// test is Test on any prober, made for the position's board; want, when
// not nil, drops positions of kinds it does not want (ReasonUnwanted).
func test(ctx context.Context, cfg game.Config, moves []int, want *wanted, newProber func(*game.Board) prober) (Puzzle, error) {
	cfg = Normalize(cfg)
	if err := cfg.Validate(); err != nil {
		return Puzzle{}, fmt.Errorf("board: %w", errors.Join(err, ErrInvalidPuzzle))
	}
	if !ai.Solvable(cfg) {
		return Puzzle{}, fmt.Errorf("board %dx%d: %w: %w", cfg.Rows, cfg.Columns, ai.ErrBoardTooLarge, ErrInvalidPuzzle)
	}
	b, over, err := replay(cfg, moves)
	if err != nil {
		return Puzzle{}, fmt.Errorf("%v: %w", err, ErrInvalidPuzzle)
	}
	if over {
		return Puzzle{}, fmt.Errorf("the round is over after the moves: %w", ErrInvalidPuzzle)
	}
	mover := game.Player1
	if len(moves)%2 == 1 {
		mover = game.Player2
	}
	order := centreOrder(cfg.Columns)
	for _, c := range order {
		if b.CanDrop(c) && wins(b, c, mover, cfg.Connect) {
			return Puzzle{}, reject(ReasonWinInOne)
		}
	}
	open := 0
	for _, c := range order {
		if !b.CanDrop(c) {
			continue
		}
		open++
		if wins(b, c, mover.Other(), cfg.Connect) {
			return Puzzle{}, reject(ReasonForced)
		}
	}
	if open == 1 {
		return Puzzle{}, reject(ReasonForced)
	}
	pr := newProber(b)
	if want != nil && want.parentFirst {
		if sp, ok := pr.(*solverProber); ok {
			r, err := sp.solveSelf(ctx)
			if err != nil {
				return Puzzle{}, err
			}
			if (r > 0 && !want.anyWin) || (r == 0 && !want.only) || (r < 0 && !want.defence) {
				return Puzzle{}, reject(ReasonUnwanted)
			}
		}
	}
	// The signs first (a weak solve is faster), stopping at a second win.
	var legal, winners, drawers []int
	for _, c := range order {
		if !b.CanDrop(c) {
			continue
		}
		legal = append(legal, c)
		v, err := pr.value(ctx, c, true)
		if err != nil {
			return Puzzle{}, err
		}
		switch {
		case v.Score > 0:
			winners = append(winners, c)
			if len(winners) > 1 {
				return Puzzle{}, reject(ReasonManyWins)
			}
		case v.Score == 0:
			drawers = append(drawers, c)
		}
	}
	p := Puzzle{ID: MakeID(cfg, moves), Config: cfg, Moves: game.MovesCode(moves)}
	switch {
	case len(winners) == 1:
		v, err := pr.value(ctx, winners[0], false)
		if err != nil {
			return Puzzle{}, err
		}
		if v.In > MaxWinIn {
			return Puzzle{}, reject(ReasonOutOfRange)
		}
		if want != nil && (want.win == nil || !want.win(v.In)) {
			return Puzzle{}, reject(ReasonUnwanted)
		}
		p.Kind, p.N, p.Solution = WinIn, v.In, winners[0]
	case len(drawers) == 1:
		if want != nil && !want.only {
			return Puzzle{}, reject(ReasonUnwanted)
		}
		p.Kind, p.Solution = OnlyMove, drawers[0]
	case len(drawers) > 1:
		return Puzzle{}, reject(ReasonManyDraws)
	case want != nil && !want.defence:
		return Puzzle{}, reject(ReasonUnwanted)
	default: // every move loses: the one that loses latest, if only one
		best, bestScore, ties := -1, 0, 0
		for _, c := range legal {
			v, err := pr.value(ctx, c, false)
			if err != nil {
				return Puzzle{}, err
			}
			switch {
			case best < 0 || v.Score > bestScore:
				best, bestScore, ties, p.N = c, v.Score, 1, v.In
			case v.Score == bestScore:
				ties++
			}
		}
		if ties > 1 {
			return Puzzle{}, reject(ReasonManyDefences)
		}
		p.Kind, p.Solution = Defence, best
	}
	p.Rating = InitialRating(p.Kind, p.N)
	return p, nil
}

// wins reports whether p's disc in column c (not full) of b completes a
// line of connect.
func wins(b *game.Board, c int, p game.Player, connect int) bool {
	row := b.Height(c)
	b2 := b.Clone()
	if _, err := b2.Drop(c, p); err != nil {
		return false
	}
	return len(b2.LinesThrough(row, c, connect)) > 0
}

// centreOrder returns the columns of a board of columns columns, the
// centre first, then outwards, the left one first among two at the same
// distance (0-based: 3 2 4 1 5 0 6 on 7 columns, 2 3 1 4 0 5 on 6).
func centreOrder(columns int) []int {
	order := make([]int, 0, columns)
	for d := 0; d <= columns; d++ { // d: distance from the centre, in half columns
		for c := 0; c < columns; c++ {
			if abs(2*c-(columns-1)) == d {
				order = append(order, c)
			}
		}
	}
	return order
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// evalProber values the columns of a position with an Evaluator: one call
// settles them all, exactly.
type evalProber struct {
	e     Evaluator
	cfg   game.Config
	moves []int
	vals  []ai.ColumnValue
}

func (p *evalProber) value(ctx context.Context, c int, _ bool) (ai.ColumnValue, error) {
	if p.vals == nil {
		vals, err := p.e.Evaluate(ctx, p.cfg, p.moves)
		if err != nil {
			return ai.ColumnValue{}, err
		}
		p.vals = vals
	}
	if c < 0 || c >= len(p.vals) || !p.vals[c].Legal {
		return ai.ColumnValue{}, fmt.Errorf("column %d cannot be played: %w", c+1, ErrIllegalMove)
	}
	v := p.vals[c]
	if !v.Settled {
		return v, notSettled(ctx, p.cfg, p.moves)
	}
	return v, nil
}

// notSettled returns the error of a position the solver did not settle in
// time.
func notSettled(ctx context.Context, cfg game.Config, moves []int) error {
	err := ctx.Err()
	if err == nil {
		err = context.DeadlineExceeded
	}
	return fmt.Errorf("position %q on %dx%d: %w: %w", game.MovesCode(moves), cfg.Rows, cfg.Columns, ai.ErrNotSettled, err)
}

// solverProber values the columns of a position with an ai.Solver, one
// column at a time, weakly when a sign is enough.
type solverProber struct {
	s     *ai.Solver
	cfg   game.Config
	moves []int
	b     *game.Board
	weak  map[int]ai.ColumnValue
	exact map[int]ai.ColumnValue
}

func (p *solverProber) value(ctx context.Context, c int, weak bool) (ai.ColumnValue, error) {
	if v, ok := p.exact[c]; ok {
		return v, nil
	}
	if v, ok := p.weak[c]; ok && weak {
		return v, nil
	}
	cells, m := p.cfg.Rows*p.cfg.Columns, len(p.moves)
	v := ai.ColumnValue{Column: c, Legal: true, Settled: true}
	mover := game.Player1
	if m%2 == 1 {
		mover = game.Player2
	}
	switch {
	case wins(p.b, c, mover, p.cfg.Connect):
		v.Score, v.In = (cells+1-m)/2, 1
	case m+1 == cells: // the board fills: a draw
	default:
		child := append(append(make([]int, 0, m+1), p.moves...), c)
		pos, err := p.s.Play(child)
		if err != nil {
			return v, fmt.Errorf("%v: %w", err, ErrInvalidPuzzle)
		}
		r, err := p.s.Solve(ctx, pos, weak)
		if err != nil {
			return v, fmt.Errorf("position %q on %dx%d: %w", game.MovesCode(child), p.cfg.Rows, p.cfg.Columns, err)
		}
		v.Score = -r.Score
		if !weak {
			v.In = discsTo(cells, m, v.Score)
		}
	}
	if weak && v.In == 0 && v.Score != 0 {
		p.weak[c] = v
	} else {
		p.exact[c] = v
	}
	return v, nil
}

// solveSelf returns the sign of the position's own value (1 a win for the
// player to move, 0 a draw, -1 a loss), with a weak solve.
func (p *solverProber) solveSelf(ctx context.Context) (int, error) {
	pos, err := p.s.Play(p.moves)
	if err != nil {
		return 0, fmt.Errorf("%v: %w", err, ErrInvalidPuzzle)
	}
	r, err := p.s.Solve(ctx, pos, true)
	if err != nil {
		return 0, fmt.Errorf("position %q on %dx%d: %w", game.MovesCode(p.moves), p.cfg.Rows, p.cfg.Columns, err)
	}
	return r.Score, nil
}

// discsTo returns, for a move of score (Pons' convention, the mover's view)
// from a position of plies discs on a board of cells cells: for a win, the
// mover's discs up to the winning one, this one included; for a loss, the
// opponent's discs up to theirs; 0 for a draw (as ai.ColumnValue.In).
func discsTo(cells, plies, score int) int {
	switch {
	case score > 0: // the mover wins with the board's disc n+1
		n := cells + 1 - 2*score
		return (n-plies)/2 + 1
	case score < 0: // the opponent wins with the board's disc n+1
		n := cells + 1 + 2*score
		return (n-(plies+1))/2 + 1
	}
	return 0
}

// Prover runs the only-move test with its own exact solvers, one per
// board, without an engine's worker pool: for the generator and other
// batch work that owns its processors. A Prover is not safe for
// concurrent use.
type Prover struct {
	tableMB int
	solvers map[[3]int]*ai.Solver
}

// NewProver returns a prover whose solvers each keep a transposition table
// of tableMB mebibytes (ai.SolverOptions.TableMB; 0 means
// ai.DefaultTableMB) and search with one worker. The tables are kept from
// one position to the next: positions of one game share much of their
// search.
func NewProver(tableMB int) *Prover {
	return &Prover{tableMB: tableMB, solvers: map[[3]int]*ai.Solver{}}
}

func (pv *Prover) solver(cfg game.Config) (*ai.Solver, error) {
	k := [3]int{cfg.Rows, cfg.Columns, cfg.Connect}
	if s, ok := pv.solvers[k]; ok {
		return s, nil
	}
	s, err := ai.NewSolver(cfg.Rows, cfg.Columns, cfg.Connect, ai.SolverOptions{TableMB: pv.tableMB, Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrInvalidPuzzle)
	}
	pv.solvers[k] = s
	return s, nil
}

// Test is the package's Test with pv's solvers: the same test and the
// same errors, settling each move with a weak solve (win, draw or loss)
// first and an exact one only where the task needs it, which is faster than
// an Evaluator's exact value of every move.
func (pv *Prover) Test(ctx context.Context, cfg game.Config, moves []int) (Puzzle, error) {
	cfg = Normalize(cfg)
	if cfg.Validate() == nil && ai.Solvable(cfg) {
		if _, err := pv.solver(cfg); err != nil {
			return Puzzle{}, err
		}
	}
	return test(ctx, cfg, moves, nil, pv.prober(cfg, moves))
}

// prober returns the maker of a prober of the position moves reach on cfg
// (normalised, valid, solvable) with pv's solver.
func (pv *Prover) prober(cfg game.Config, moves []int) func(*game.Board) prober {
	return func(b *game.Board) prober {
		s, _ := pv.solver(cfg)
		return &solverProber{s: s, cfg: cfg, moves: moves, b: b,
			weak: map[int]ai.ColumnValue{}, exact: map[int]ai.ColumnValue{}}
	}
}
