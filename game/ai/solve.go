package ai

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/connectn/connectn/game"
)

// Solver solves Connect N positions exactly on one board whose bitboard fits
// in 64 bits ((rows+1) x columns <= 64), for any connect length: negamax
// with alpha-beta pruning, centre-first move ordering refined by counting
// the threats a move creates, a transposition table that keeps both bounds
// of a score and the best move, mirror-image positions sharing one entry,
// iterative null-window search, pruning of the moves that hand the
// opponent an immediate win, and Allis' claimeven bound. This is the line
// of Pascal Pons, "Solving Connect 4: how to build a perfect AI"
// (blog.gamesolver.org), and of John Tromp's Fhourstones solver
// (tromp.github.io/c4/fhour.html), which pioneered the bitboard and the
// table.
//
// Scores follow Pons' convention, seen from the player to move: 0 for a
// draw; a win with the winner's k-th disc scores (rows*columns)/2 + 1 - k
// (exactly (rows*columns + 1 - plies)/2, plies being the discs on the board
// before the winning one), so 1 is the latest win on 7x6 and 18 the fastest;
// a loss scores the negative of the opponent's win.
//
// A Solver may search with several workers sharing its table (see
// SolverOptions.Workers). A Solver is safe for concurrent use; concurrent
// Solve calls share the table.
type Solver struct {
	g       *geometry
	t       *table
	near    *table
	workers int
	// helperAfter is how many nodes the main worker explores before a
	// helper joins it; easy positions are over long before.
	helperAfter uint64
}

// SolverOptions configures a Solver.
type SolverOptions struct {
	// TableMB is the size of the transposition table in mebibytes, rounded
	// down to a power of two entries of 8 bytes, at least 4 MiB; 0 means
	// DefaultTableMB.
	TableMB int
	// Workers is how many goroutines search one position, 1 to MaxWorkers
	// (more are cut to MaxWorkers; 0 means 2, or 1 on one processor): the
	// helpers join long searches, each exploring the first moves near the
	// root in another order, and share the table (lazy SMP).
	Workers int
}

// MaxWorkers is the most workers one Solve uses.
const MaxWorkers = 64

// Solvable reports whether the exact solver (NewSolver, Engine.Analyze,
// and the perfect level's exact play) handles boards of cfg: whether its
// bitboard, a column of cfg.Rows cells plus one sentinel bit for each of
// cfg.Columns columns, fits in 64 bits, that is (Rows+1) x Columns <= 64.
// Standard Connect Four (6x7: 49 bits) fits, as do 7x8 and 15x4 (exactly
// 64 bits); 8x8 (72 bits) does not. It reads only the board's size, not
// Connect or Wins, and does not check that cfg is valid (game.Config.Validate
// does).
func Solvable(cfg game.Config) bool { return fits(cfg.Rows, cfg.Columns) }

// DefaultTableMB is the default transposition table size in mebibytes.
const DefaultTableMB = 64

// NewSolver returns a solver for boards of rows x columns with connect in a
// row. It returns an error wrapping ErrBoardTooLarge when (rows+1) x columns
// exceeds 64, and ErrInvalidBoard when a size or connect is below 1.
func NewSolver(rows, columns, connect int, opts SolverOptions) (*Solver, error) {
	g, err := newGeometry(rows, columns, connect)
	if err != nil {
		return nil, err
	}
	return newSolver(g, newTable(tableMB(opts.TableMB)), opts.Workers), nil
}

func tableMB(mb int) int {
	if mb <= 0 {
		return DefaultTableMB
	}
	return mb
}

func newSolver(g *geometry, t *table, workers int) *Solver {
	if workers <= 0 {
		workers = min(2, runtime.GOMAXPROCS(0))
	}
	return &Solver{g: g, t: t, near: newNearTable(), workers: min(workers, MaxWorkers), helperAfter: 1 << 16}
}

// Result is the outcome of one Solve.
type Result struct {
	// Score is the position's score in Pons' convention (see Solver), or,
	// for a weak solve, 1, 0 or -1 for a win, draw or loss.
	Score int
	// Column is a zero-based column that achieves Score, -1 on a full
	// board. In a weak solve it achieves the result (win, draw), not
	// necessarily the fastest win.
	Column int
	// Nodes is the number of positions explored (negamax calls, counted as
	// Pons counts them), over all workers.
	Nodes uint64
	// Interior is the number of positions whose moves were searched, over
	// all workers, as c4 counts its nodes: Nodes less the positions settled
	// by a bound, the table or a single non-losing move.
	Interior uint64
}

// Reset empties the transposition table, so that the next Solve starts
// from nothing, as Pons' solver does for every position of his benchmark.
// It takes microseconds (the table moves to its next generation; every
// 15th Reset of a 64 MiB table empties its slots) and must not be called
// while a Solve of s runs.
func (s *Solver) Reset() {
	s.t.clear()
	s.near.clear()
}

// Clear empties the transposition table by writing every entry, as c4's
// clear_state and Pons' reset do, and so also has the system map all of
// the table's memory, which Reset and a new Solver leave to the first
// searches that reach it: a 1 GiB table's first touch costs 0.1 to 3 s
// on the virtual machine of docs/ai.md. A benchmark calls it before its
// clock starts, so that it times the search, not the system's paging; it
// must not be called while a Solve of s runs.
func (s *Solver) Clear() {
	s.t.wipe()
	s.near.wipe()
}

// Position is a position on a Solver's board, built by Solver.Play.
type Position struct {
	p position
}

// Play returns the position reached by playing moves (zero-based columns,
// first player first) on an empty board. Moves that cannot be played (a
// column off the board or full, a move that completes a line: the game
// would be over) return an error wrapping ErrInvalidMoves that names the
// move (counted from 1) and its column (counted from 1).
func (s *Solver) Play(moves []int) (Position, error) {
	p, err := s.g.replay(moves)
	return Position{p}, err
}

// Solve returns the score of pos and a column that achieves it. weak asks
// only for win, draw or loss, which is faster. Solve honours ctx: when it
// ends first, Solve returns an error wrapping ErrNotSettled and the
// context's error, with the nodes explored so far.
func (s *Solver) Solve(ctx context.Context, pos Position, weak bool) (Result, error) {
	return s.solve(ctx, pos.p, weak, nil)
}

// Progress is how far a long Solve has got.
type Progress struct {
	// Lo and Hi bound the score (Pons' convention): the search has proved
	// Lo <= score <= Hi and narrows the window with null-window probes.
	Lo, Hi int
	// Nodes counts the positions explored so far, by the main worker.
	Nodes uint64
	// Elapsed is the time since the search began.
	Elapsed time.Duration
}

// progressEvery is how often SolveReporting reports.
const progressEvery = time.Second

// SolveReporting is Solve, calling report (from the searching goroutine,
// so it must be quick) about every second with the search's progress,
// the first time a second after it began.
func (s *Solver) SolveReporting(ctx context.Context, pos Position, weak bool, report func(Progress)) (Result, error) {
	return s.solve(ctx, pos.p, weak, report)
}

// replay plays moves (zero-based columns) from the empty board.
func (g *geometry) replay(moves []int) (position, error) {
	var p position
	for i, c := range moves {
		if c < 0 || c >= g.columns {
			return p, fmt.Errorf("move %d: column %d is not on a board of %d columns: %w", i+1, c+1, g.columns, ErrInvalidMoves)
		}
		if !g.canPlay(&p, c) {
			return p, fmt.Errorf("move %d: column %d is full: %w", i+1, c+1, ErrInvalidMoves)
		}
		if g.winsNow(&p, c) {
			if i < len(moves)-1 {
				return p, fmt.Errorf("move %d: column %d completes a line, so move %d comes after the game is over: %w", i+1, c+1, i+2, ErrInvalidMoves)
			}
			return p, fmt.Errorf("move %d: column %d completes a line: the game is over, nothing is left to solve: %w", i+1, c+1, ErrInvalidMoves)
		}
		g.playColumn(&p, c)
	}
	return p, nil
}

// solve runs the iterative null-window search of Pons' solve on p, with
// s.workers-1 helpers joining once the search is long.
func (s *Solver) solve(ctx context.Context, p position, weak bool, report func(Progress)) (Result, error) {
	g := s.g
	if p.moves >= g.cells {
		return Result{Score: 0, Column: -1}, nil
	}
	if w := g.winning(p.cur, p.mask) & g.possible(&p); w != 0 {
		score := (g.cells + 1 - p.moves) / 2
		if weak {
			score = 1
		}
		return Result{Score: score, Column: g.columnOf(w & -w), Nodes: 1}, nil
	}
	var stop atomic.Bool
	if ctx.Done() != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("%w: %w", ErrNotSettled, ctx.Err())
		}
		defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	}
	main := &searcher{g: g, t: s.t, near: s.near, nearMost: nearReach(s.t), stop: &stop, rootMoves: p.moves}
	helpers := make([]helper, s.workers-1)
	for i := range helpers {
		helpers[i].variant = i + 1
	}
	defer func() {
		for i := range helpers {
			helpers[i].finish()
		}
	}()
	lo, hi := -(g.cells-p.moves)/2, (g.cells+1-p.moves)/2
	if weak {
		lo, hi = -1, 1
	}
	start, next := time.Now(), progressEvery
	if s.workers > 1 || report != nil {
		main.extra = func() {
			if len(helpers) > 0 && !helpers[0].started && main.calls >= s.helperAfter {
				var mk *marks
				if markPlies > 0 {
					mk = new(marks)
					main.marks = mk
				}
				for i := range helpers {
					helpers[i].start(s, p, &stop, mk)
				}
			}
			if report != nil {
				if e := time.Since(start); e >= next {
					next = e + progressEvery
					report(Progress{Lo: lo, Hi: hi, Nodes: main.calls, Elapsed: e})
				}
			}
		}
	}
	column := -1
	var board probeBoard
	if helperResults {
		main.quit = &board.done
	}
	var err error
	var pr probes
	for seq := 1; lo < hi; seq++ {
		pr.lo, pr.hi = lo, hi
		med := pr.med()
		// Next to a bound that failed high, the probe is expected to
		// fail low: every root move must be refuted.
		low := pr.adjacent && pr.last == med && helperExpect
		board.begin(seq)
		for i := range helpers {
			helpers[i].probe(window{med: med, low: low, seq: seq, board: &board})
		}
		n0 := main.nodes
		var r, c int
		byHelper := false
		if err = catchStop(func() { r, c = main.rootProbe(p, med, med+1) }); err != nil {
			if !stop.Load() {
				// A helper settled the probe first: its result is
				// as sound as the main worker's (the same window,
				// searched in another order).
				r, c, err = board.take()
				byHelper = true
			}
			if err != nil {
				break
			}
		}
		if probeTrace != nil {
			probeTrace(med, r, main.nodes-n0, byHelper)
		}
		pr.last = r
		if r <= med {
			hi = r
		} else {
			lo, column = r, c
		}
	}
	nodes, interior := main.calls, main.nodes
	for i := range helpers {
		c, n := helpers[i].finish()
		nodes += c
		interior += n
	}
	if err != nil {
		return Result{Nodes: nodes, Interior: interior}, fmt.Errorf("%w: %w", ErrNotSettled, context.Cause(ctx))
	}
	if column < 0 {
		// Every move loses as fast as possible, or (weak) every move
		// loses: any legal move achieves the score.
		column = g.firstPlayable(&p)
	}
	score := lo
	if weak {
		score = sign(score)
	}
	return Result{Score: score, Column: column, Nodes: nodes, Interior: interior}, nil
}

// probes chooses the null windows of a solve: Pons' bisection of the
// interval [lo, hi] the score is known to lie in (its middle, but half-way
// from 0 to the bound on 0's side while that is further out), except that
// once Pons' next window lies within probeNear of 0 it probes at 0 (the
// weak result: win, draw or loss) and then once next to the bound that
// probe returned (as c4 does from its first probe on), before bisecting
// again. Every solve needs the two probes next to the score (one proving
// score >= s, one score <= s); when the score is near 0, as it mostly is
// early in the game, they now come first and the probes between are
// skipped: the empty 7x6 board's strong solve takes 2 probes after Pons'
// first two instead of 6 (docs/ai.md, "The strong solve's probes").
type probes struct {
	lo, hi int // the interval the score lies in, lo < hi
	last   int // the last probe's result
	// phase: 0 Pons' probes; from 1, one more than the probes next to the
	// bound made so far, after the probe at 0.
	phase int
	// adjacent: the last window med returned is next to the last bound.
	adjacent bool
}

// med returns the next window (med, med+1), lo <= med < hi.
func (n *probes) med() int {
	lo, hi := n.lo, n.hi
	n.adjacent = false
	med := lo + (hi-lo)/2
	if med <= 0 && lo/2 < med {
		med = lo / 2
	} else if med >= 0 && hi/2 > med {
		med = hi / 2
	}
	switch {
	case probeBy == 1:
		return med
	case probeBy == 2 && n.phase == 0:
		// c4: 0 first, then next to the bound.
		n.phase = 1
		return max(min(0, hi-1), lo)
	case n.phase == 0 && probeBy == 0 && med < probeNear && med > -probeNear && lo <= 0 && 0 < hi:
		n.phase = 1
		return 0
	case n.phase >= 1 && (probeBy == 2 || n.phase <= probeAdjacent):
		n.phase++
		n.adjacent = true
		return max(min(n.last, hi-1), lo)
	}
	return med
}

// probeTrace, when set (by tests and benchmarks), is called after each of
// the main worker's root probes with the probe's window (med, med+1), its
// result, the interior nodes it explored and whether a helper settled the
// probe first.
var probeTrace func(med, result int, interior uint64, byHelper bool)

// helperHook, when set (by tests and benchmarks), is called by a helper
// (its variant) as it begins the solve's probe seq; a test may delay it.
var helperHook func(variant, seq int)

// firstPlayable returns the first column, centre first, that is not full
// and does not hand the opponent a win when another such column exists.
func (g *geometry) firstPlayable(p *position) int {
	safe := g.nonLosing(p)
	possible := g.possible(p)
	for _, set := range []uint64{safe, possible} {
		for rank := 0; rank < g.columns; rank++ {
			if c := g.order[rank]; set&g.column[c] != 0 {
				return c
			}
		}
	}
	return -1
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// catchStop runs f and returns errStopped if a search inside it was
// stopped; any other panic goes on.
func catchStop(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r != errStopped {
				panic(r)
			}
			err = errStopped
		}
	}()
	f()
	return nil
}

// helper is a further worker of a long search: it runs the same null-window
// probes as the main worker with the replies to the root's moves in another
// order (its variant; see helperOddOnly), in its own goroutine, and shares the transposition
// table, so each worker finds entries the others have settled (lazy SMP);
// where it puts another move first, it keeps the common order's first as
// the position's best move in the table (helperHints), so that its order
// leaves no trace in the next probe's.
// The workers mark the positions they are searching near the root (marks),
// so that one defers a move another is searching. A helper that finishes a
// probe before the main worker ends it with its result (helperResults),
// which is as sound as the main worker's: the same window, searched in
// another order.
type helper struct {
	variant    int
	started    bool
	s          *Solver
	p          position
	marks      *marks
	parent     *atomic.Bool
	probes     chan window
	stop       atomic.Bool // ends the current probe
	quit       atomic.Bool // ends the helper
	done       chan struct{}
	nodes      atomic.Uint64 // interior nodes
	calls      atomic.Uint64 // negamax calls
	once       sync.Once
	total      uint64 // interior nodes, once finished
	totalCalls uint64
	next       window
}

// window is a helper's next probe: the null window (med, med+1), whether
// it is expected to fail low (see searcher.allParity), the probe's number
// in the solve and the board where the helper posts its result.
type window struct {
	med   int
	low   bool
	seq   int
	board *probeBoard
}

// probeBoard holds the result of the solve's current probe when a helper
// settles it before the main worker (helperResults): the first worker to
// finish a probe ends it for all, as in c4's pool of threads.
type probeBoard struct {
	done atomic.Bool // a helper posted the current probe's result
	mu   sync.Mutex
	seq  int // the current probe's number
	r, c int // the helper's result: rootProbe's score and column
}

// begin makes probe seq the current one, with no result yet.
func (b *probeBoard) begin(seq int) {
	b.mu.Lock()
	b.seq = seq
	b.done.Store(false)
	b.mu.Unlock()
}

// post records a helper's result of probe seq, if it is still the
// current one and unsettled, and tells the main worker (done).
func (b *probeBoard) post(seq, r, c int) {
	b.mu.Lock()
	if seq == b.seq && !b.done.Load() {
		b.r, b.c = r, c
		b.done.Store(true)
	}
	b.mu.Unlock()
}

// take returns the posted result of the current probe; errStopped if
// none was posted.
func (b *probeBoard) take() (r, c int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done.Load() {
		return 0, 0, errStopped
	}
	return b.r, b.c, nil
}

func (h *helper) start(s *Solver, p position, parent *atomic.Bool, mk *marks) {
	h.started, h.s, h.p, h.parent, h.marks = true, s, p, parent, mk
	h.probes = make(chan window, 1)
	h.done = make(chan struct{})
	h.probes <- h.next
	go h.run()
}

// probe tells the helper which window the main worker searches next.
func (h *helper) probe(med window) {
	h.next = med
	if !h.started {
		return
	}
	h.stop.Store(true)
	select {
	case <-h.probes:
	default:
	}
	h.probes <- med
}

func (h *helper) run() {
	defer close(h.done)
	w := &searcher{g: h.s.g, t: h.s.t, near: h.s.near, nearMost: nearReach(h.s.t), stop: &h.stop, quit: &h.quit, variant: h.variant, rootMoves: h.p.moves, marks: h.marks}
	for next := range h.probes {
		if h.parent.Load() || h.quit.Load() {
			break
		}
		h.stop.Store(false)
		w.allParity = 1
		if next.low {
			w.allParity = 0
		}
		if helperHook != nil {
			helperHook(h.variant, next.seq)
		}
		var r, c int
		if catchStop(func() { r, c = w.rootProbe(h.p, next.med, next.med+1) }) == nil && helperResults && next.board != nil {
			next.board.post(next.seq, r, c)
		}
		h.nodes.Store(w.nodes)
		h.calls.Store(w.calls)
		// A finished probe waits for the next one.
	}
	h.nodes.Store(w.nodes)
	h.calls.Store(w.calls)
}

// finish stops the helper, waits for it and returns the positions it
// explored: negamax calls and interior nodes.
func (h *helper) finish() (calls, interior uint64) {
	if !h.started {
		return 0, 0
	}
	h.once.Do(func() {
		h.quit.Store(true)
		h.stop.Store(true)
		close(h.probes)
		<-h.done
		h.total, h.totalCalls = h.nodes.Load(), h.calls.Load()
	})
	return h.totalCalls, h.total
}
