package ai

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/connectn/connectn/game"
)

// Level is the strength of the AI.
type Level uint8

// The levels, weakest first. The zero Level is Easy; DefaultLevel is Hard.
const (
	// Easy looks one move ahead with a lot of randomness: it always takes
	// an immediate win, blocks an immediate threat only half of the time,
	// and is beatable by a casual player.
	Easy Level = iota
	// Medium searches 4 plies with a little randomness among moves of
	// similar value; it always takes an immediate win and blocks every
	// single immediate threat.
	Medium
	// Hard searches as deep as a budget of 50,000 positions (or the
	// deadline) allows, and solves exactly once the board has 20 or fewer
	// empty cells on boards of up to 64 bits.
	Hard
	// Perfect uses the exact solver on every board whose bitboard fits in
	// 64 bits ((rows+1) x columns <= 64): every move it settles within the
	// deadline keeps the position's value (a win stays a win, a draw at
	// least a draw). On 7x6 an opening book answers where the solver would
	// need longer, so it plays perfectly from the first move; on the other
	// boards of up to 64 bits, an opening position the solver cannot settle
	// in time gets the deepest search instead. Beyond 64 bits no exact
	// solver answers within a second, and Perfect is the strongest
	// time-bounded search: the whole budget, no node limit.
	Perfect
)

// DefaultLevel is the level of a match against the AI when none is chosen.
const DefaultLevel = Hard

var levelNames = [...]string{Easy: "easy", Medium: "medium", Hard: "hard", Perfect: "perfect"}

// Levels returns every level, weakest first (for menus and option choices).
func Levels() []Level { return []Level{Easy, Medium, Hard, Perfect} }

// String returns "easy", "medium", "hard" or "perfect".
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// ParseLevel reads a level name (any case, spaces around ignored). Any
// other text returns an error wrapping ErrUnknownLevel.
func ParseLevel(s string) (Level, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for i, n := range levelNames {
		if n == name {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("level %q (want easy, medium, hard or perfect): %w", s, ErrUnknownLevel)
}

// Options configures an Engine. The zero Options is usable.
type Options struct {
	// TableMB is the size in mebibytes of the exact solver's
	// transposition table, shared by every search of the engine; 0 means
	// DefaultTableMB (64). The heuristic search keeps a table a quarter of
	// that size (at least 4 MiB), and each board geometry solved adds 1 MiB
	// for positions near the end of the game.
	TableMB int
	// Workers bounds the goroutines searching at once over all the
	// matches the engine serves: a bounded pool, so concurrent AI games
	// share the processor instead of oversubscribing it. 0 means
	// runtime.GOMAXPROCS(0). A lone search may use two workers. A server
	// that answers requests beside the searches should keep at least one
	// processor out of the pool; searches also yield the processor every
	// few tens of microseconds, so that a goroutine waiting for it runs
	// without waiting for the scheduler's 10 ms time slice.
	Workers int
	// Seed seeds the randomness of the easy and medium levels (and the
	// choice among equal moves): the same seed and the same position give
	// the same move.
	Seed uint64
	// MoveTime caps the time of one Move when its context has no earlier
	// deadline; 0 means 900 ms, so that every move arrives within a second.
	MoveTime time.Duration
}

// Engine chooses the AI's moves and analyses finished rounds. Create one per
// process with NewEngine; it is safe for concurrent use.
type Engine struct {
	*engineCore
	seed uint64
}

// engineCore is what the engines made by WithSeed share.
type engineCore struct {
	opts    Options
	table   *table
	htable  *htable
	pool    chan struct{}
	mu      sync.Mutex
	solvers map[[3]int]*Solver
	book    *book
	// busy and peak count the workers searching now and at most, for the
	// tests of the pool.
	busy, peak atomic.Int32
}

// NewEngine returns an engine. Memory is allocated lazily, on the first
// search that needs it.
func NewEngine(opts Options) *Engine {
	if opts.TableMB <= 0 {
		opts.TableMB = DefaultTableMB
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MoveTime <= 0 {
		opts.MoveTime = 900 * time.Millisecond
	}
	core := &engineCore{opts: opts, pool: make(chan struct{}, opts.Workers), solvers: map[[3]int]*Solver{}, book: embeddedBook()}
	return &Engine{engineCore: core, seed: opts.Seed}
}

// WithSeed returns an engine that shares e's tables and worker pool but
// draws its randomness from seed (as Options.Seed).
func (e *Engine) WithSeed(seed uint64) *Engine {
	return &Engine{engineCore: e.engineCore, seed: seed}
}

// solver returns the engine's solver for a board that fits in 64 bits,
// sharing the engine's table, or nil for a larger board.
func (e *Engine) solver(rows, columns, connect int) *Solver {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := [3]int{rows, columns, connect}
	if s, ok := e.solvers[k]; ok {
		return s
	}
	g, err := newGeometry(rows, columns, connect)
	if err != nil {
		e.solvers[k] = nil
		return nil
	}
	if e.table == nil {
		e.table = newTable(e.opts.TableMB)
	}
	s := newSolver(g, e.table, 1)
	e.solvers[k] = s
	return s
}

func (e *Engine) heuristicTable() *htable {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.htable == nil {
		e.htable = newHtable(max(e.opts.TableMB/4, 4))
	}
	return e.htable
}

// acquire takes a worker from the pool, waiting until deadline at most.
func (e *Engine) acquire(deadline time.Time) bool {
	select {
	case e.pool <- struct{}{}:
		e.started()
		return true
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case e.pool <- struct{}{}:
		e.started()
		return true
	case <-t.C:
		return false
	}
}

// acquireCtx takes a worker from the pool, waiting until ctx ends at most.
func (e *Engine) acquireCtx(ctx context.Context) bool {
	select {
	case e.pool <- struct{}{}:
		e.started()
		return true
	case <-ctx.Done():
		return false
	}
}

// tryAcquire takes a second worker only if one is free now.
func (e *Engine) tryAcquire() bool {
	select {
	case e.pool <- struct{}{}:
		e.started()
		return true
	default:
		return false
	}
}

func (e *Engine) started() {
	n := e.busy.Add(1)
	for {
		p := e.peak.Load()
		if n <= p || e.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func (e *Engine) release() {
	e.busy.Add(-1)
	<-e.pool
}

// Move returns the column (zero-based) the AI plays at level in the current
// round of m, for the player to move. It reads m only through its read-only
// views and never changes it. It returns well inside ctx's deadline (it
// keeps a tenth of the time left, at least 20 ms, as a margin) and within
// Options.MoveTime: when a search cannot finish, the best move of its
// deepest finished iteration, or failing that a move that wins at once,
// blocks an immediate threat or at least does not hand the opponent a win.
// It returns an error wrapping game.ErrMatchOver for a match that is over,
// one wrapping ErrUnknownLevel for a level out of range, and ctx's error if
// ctx has already ended.
func (e *Engine) Move(ctx context.Context, m *game.Match, level Level) (int, error) {
	if m.Over() {
		return 0, fmt.Errorf("ai move: %w", game.ErrMatchOver)
	}
	if level > Perfect {
		return 0, fmt.Errorf("ai move: level %d: %w", level, ErrUnknownLevel)
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("ai move: %w", err)
	}
	cfg := m.Config()
	r := m.Round()
	return e.move(ctx, cfg.Rows, cfg.Columns, cfg.Connect, r.Moves(), level), nil
}

// deadlineFor returns when a search started now must end.
func (e *Engine) deadlineFor(ctx context.Context) time.Time {
	now := time.Now()
	d := now.Add(e.opts.MoveTime)
	if cd, ok := ctx.Deadline(); ok {
		left := cd.Sub(now)
		margin := max(left/10, 20*time.Millisecond)
		if cd.Add(-margin).Before(d) {
			d = cd.Add(-margin)
		}
	}
	return d
}

// move is Move on a board given by its size and moves.
func (e *Engine) move(ctx context.Context, rows, columns, connect int, moves []int, level Level) int {
	deadline := e.deadlineFor(ctx)
	w := newWide(rows, columns, connect)
	h := newHsearch(w, moves, nil)
	quick := h.quickMove()
	// A book move is a lookup, not a search: it needs no worker, and does
	// not wait behind the searches of other matches for one.
	if level == Perfect {
		if c, ok := e.bookMove(rows, columns, connect, moves); ok {
			return c
		}
	}
	if !e.acquire(deadline) {
		return quick
	}
	defer e.release()
	rng := rand.New(rand.NewPCG(e.seed, positionSeed(rows, columns, connect, moves)))
	switch level {
	case Easy:
		return h.easyMove(rng, quick)
	case Medium:
		h.tt = newHtable(1)
		return h.search(4, rng, 3).column
	}
	// Hard and Perfect.
	h.tt = e.heuristicTable()
	h.stop = ctxStop(ctx)
	s := e.solver(rows, columns, connect)
	empty := rows*columns - len(moves)
	if s != nil && level == Perfect {
		// A quick heuristic search first, so that a position the solver
		// cannot settle in time still gets a searched move, then the
		// solver with the rest of the time.
		h.deadline = time.Now().Add(time.Until(deadline) / 4)
		fallback := h.search(0, rng, 0).column
		if c, ok := e.solveMove(ctx, s, moves, deadline); ok {
			return c
		}
		return fallback
	}
	if s != nil && empty <= 20 {
		if c, ok := e.solveMove(ctx, s, moves, time.Now().Add(time.Until(deadline)/2)); ok {
			return c
		}
	}
	h.deadline = deadline
	if level == Hard {
		h.nodeLimit = hardNodes
	}
	return h.search(0, rng, 0).column
}

// hardNodes is the most positions the hard level's heuristic search
// explores for one move.
const hardNodes = 50_000

// positionSeed mixes a position into the engine's seed, so that the same
// position always draws the same random numbers.
func positionSeed(rows, columns, connect int, moves []int) uint64 {
	x := mix64(uint64(rows)<<16 | uint64(columns)<<8 | uint64(connect))
	for _, c := range moves {
		x = mix64(x ^ uint64(c+1))
	}
	return x
}

// solveMove finds a move with the exact solver before deadline: a winning
// move if there is one, else a drawing one, else any (every move loses).
// A weak solve (win, draw or loss) is all perfect play needs, and is about
// twice as fast as the exact score. A second worker joins when the pool
// has one free. ok is false when the solver could not settle the position
// in time.
func (e *Engine) solveMove(ctx context.Context, s *Solver, moves []int, deadline time.Time) (int, bool) {
	pos, err := s.Play(moves)
	if err != nil {
		return 0, false
	}
	sctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	st := *s
	st.workers = 1
	if e.tryAcquire() {
		defer e.release()
		st.workers, st.helperAfter = 2, 1<<14
	}
	r, err := st.Solve(sctx, pos, true)
	if err != nil {
		return 0, false
	}
	return r.Column, true
}

// quickMove returns, without searching, a move that wins at once, else one
// that blocks the opponent's immediate win, else the most central move that
// does not let the opponent win at once (the most central of all when every
// move does).
func (h *hsearch) quickMove() int {
	w := h.w
	side := h.moves & 1
	myWin, oppWin := h.s.get(), h.s.get()
	defer h.s.put(2)
	w.winning(myWin, h.disc[side], h.mask, h.s)
	w.winning(oppWin, h.disc[side^1], h.mask, h.s)
	first := -1
	for _, c := range w.colOrder {
		if h.heights[c] < w.rows && h.has(myWin, c) {
			return c
		}
	}
	for _, c := range w.colOrder {
		if h.heights[c] < w.rows && h.has(oppWin, c) {
			return c
		}
	}
	for _, c := range w.colOrder {
		if h.heights[c] >= w.rows {
			continue
		}
		if first < 0 {
			first = c
		}
		if !h.above(oppWin, c) {
			return c
		}
	}
	return first
}

// easyMove plays the easy level: an immediate win always, a block of an
// immediate threat half of the time, otherwise a one-ply search with a lot
// of noise.
func (h *hsearch) easyMove(rng *rand.Rand, quick int) int {
	w := h.w
	side := h.moves & 1
	myWin, oppWin := h.s.get(), h.s.get()
	defer h.s.put(2)
	w.winning(myWin, h.disc[side], h.mask, h.s)
	w.winning(oppWin, h.disc[side^1], h.mask, h.s)
	for _, c := range w.colOrder {
		if h.heights[c] < w.rows && h.has(myWin, c) {
			return c
		}
	}
	for _, c := range w.colOrder {
		if h.heights[c] < w.rows && h.has(oppWin, c) && rng.IntN(2) == 0 {
			return c
		}
	}
	h.tt = newHtable(1)
	return h.search(1, rng, 60).column
}

// ctxStop returns a flag set when ctx ends (nil for a context that never
// does). The flag stays set; the context.AfterFunc registration is left
// to ctx's own lifetime.
func ctxStop(ctx context.Context) *stopFlag {
	if ctx.Done() == nil {
		return nil
	}
	f := new(stopFlag)
	context.AfterFunc(ctx, func() { f.Store(true) })
	return f
}
