package puzzle

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

// GenerateOptions configures Generate. Config, N and Seed matter; the
// rest have defaults.
type GenerateOptions struct {
	// Config is the board (Rows, Columns, Connect); its bitboard must fit
	// in 64 bits ((Rows+1) x Columns <= 64).
	Config game.Config
	// N is how many puzzles to make, at least 1.
	N int
	// Seed seeds the games: the same seed, board and N give the same
	// puzzles in the same order (but for positions the solver could not
	// settle within Budget, which depends on the machine; Stats.Unsettled
	// counts them).
	Seed uint64
	// TableMB is the solver's transposition table in mebibytes (0: 64).
	TableMB int
	// Budget is the solver's time to settle one position (0: 10 s); a
	// position not settled by then is dropped.
	Budget time.Duration
	// MaxEmpty bounds the empty cells of the positions tried (0: 30): the
	// solver settles positions with more of them too slowly for a batch
	// (tens of seconds on 6x7). A win in MaxWinIn needs 2·MaxWinIn − 1 = 23.
	MaxEmpty int
	// Progress, when not nil, is called after each game with the figures
	// so far.
	Progress func(Stats)
}

// Stats are the figures of a Generate run.
type Stats struct {
	// Games played, Positions tested by the solver, and Skipped
	// positions not tested because no puzzle still wanted could come
	// from them (see Generate).
	Games, Positions, Skipped int
	// Puzzles made, and how many of each theme of task.
	Puzzles int
	Themes  map[Theme]int
	// Rejected counts the tested positions that failed the only-move test,
	// by reason; Duplicates the puzzles made twice (dropped); Unsettled the
	// positions the solver did not settle within the budget.
	Rejected   map[Reason]int
	Duplicates int
	Unsettled  int
	// Elapsed is the time since the run began.
	Elapsed time.Duration
}

// PerMinute returns the puzzles made per minute of the run.
func (s Stats) PerMinute() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Puzzles) / s.Elapsed.Minutes()
}

// buckets are the tasks a run spreads its puzzles over: a win in each n
// from MinWinIn to MaxWinIn, an only move and a defence.
const buckets = MaxWinIn - MinWinIn + 1 + 2

func bucketOf(k Kind, n int) int {
	switch k {
	case OnlyMove:
		return buckets - 2
	case Defence:
		return buckets - 1
	}
	return n - MinWinIn
}

// Generation's constants.
const (
	// winSlack is how many empty cells more than a win in n needs at
	// least (2n − 1) a position may have to be tried for one: wins far
	// shorter than the board's empty cells are rare, and such positions
	// are the slow ones to solve.
	winSlack = 14
	// perGame is the most puzzles taken from one game, and gap the plies
	// skipped after one is taken, so that one line does not give several.
	perGame = 2
	gap     = 4
	// stall is how many games in a row may pass without a new puzzle
	// before every quota grows by one, so that a run whose rarest task
	// cannot be found still ends.
	stall = 200
)

// Generate makes opts.N puzzles on opts.Config and hands each to emit, in
// order, until N are made, emit returns an error (returned, wrapped) or
// ctx ends (returning ctx's error, wrapped). It plays games from the empty
// board, each seeded by opts.Seed and its number: each ply is a random
// column with a probability the game draws (0.1, 0.25 or 0.5), the ai
// package's medium level otherwise (a four-ply search, deterministic for a
// seed). Then it tests the game's positions from the last back (the end
// settles fastest and fills the transposition table for the rest), with
// at most MaxEmpty empty cells, with the only-move test (Test, through a
// Prover). It spreads the puzzles evenly over 13 tasks, a win in each n
// from 2 to 12, only move and defence: each task takes at most
// ceil(N/13) puzzles, and a position is tested only when a task it could
// give still wants puzzles (a win in n from a position of 2n−1 to
// 2n−1+14 empty cells); every quota grows by one after 200 games in a row
// without a new puzzle. It takes at most 2 puzzles from one game, 4 plies
// apart, and drops a position it has already made (by ID).
//
// It returns an error wrapping ErrInvalidPuzzle for a board the solver
// cannot hold or an N below 1.
func Generate(ctx context.Context, opts GenerateOptions, emit func(Puzzle) error) (Stats, error) {
	start := time.Now()
	st := Stats{Themes: map[Theme]int{}, Rejected: map[Reason]int{}}
	cfg := Normalize(opts.Config)
	if err := cfg.Validate(); err != nil {
		return st, fmt.Errorf("board: %w", errors.Join(err, ErrInvalidPuzzle))
	}
	if !ai.Solvable(cfg) {
		return st, fmt.Errorf("board %dx%d: %w: %w", cfg.Rows, cfg.Columns, ai.ErrBoardTooLarge, ErrInvalidPuzzle)
	}
	if opts.N < 1 {
		return st, fmt.Errorf("%d puzzles: want at least 1: %w", opts.N, ErrInvalidPuzzle)
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = 10 * time.Second
	}
	maxEmpty := opts.MaxEmpty
	if maxEmpty <= 0 {
		maxEmpty = 30
	}
	pv := NewProver(opts.TableMB)
	engine := ai.NewEngine(ai.Options{Workers: 1, TableMB: 4})
	cells := cfg.Rows * cfg.Columns
	quota := (opts.N + buckets - 1) / buckets
	var count [buckets]int
	seen := map[string]bool{}
	idle := 0
	for g := 0; st.Puzzles < opts.N; g++ {
		if err := ctx.Err(); err != nil {
			st.Elapsed = time.Since(start)
			return st, fmt.Errorf("generate: %w", err)
		}
		moves, err := selfPlay(ctx, engine, cfg, opts.Seed, uint64(g))
		if err != nil {
			st.Elapsed = time.Since(start)
			return st, fmt.Errorf("generate: %w", err)
		}
		st.Games++
		taken := 0
		for i := len(moves) - 1; i >= 0 && taken < perGame && st.Puzzles < opts.N; i-- {
			empty := cells - i
			if empty > maxEmpty {
				break
			}
			want := wanted{
				win:         func(n int) bool { return count[bucketOf(WinIn, n)] < quota && plausible(n, empty) },
				only:        count[bucketOf(OnlyMove, 0)] < quota,
				defence:     count[bucketOf(Defence, 0)] < quota,
				parentFirst: true,
			}
			for n := MinWinIn; n <= MaxWinIn; n++ {
				want.anyWin = want.anyWin || want.win(n)
			}
			if !want.anyWin && !want.only && !want.defence {
				st.Skipped++
				continue
			}
			st.Positions++
			pctx, cancel := context.WithTimeout(ctx, budget)
			p, err := test(pctx, cfg, moves[:i], &want, pv.prober(cfg, moves[:i]))
			cancel()
			var npe *NotPuzzleError
			switch {
			case errors.As(err, &npe):
				st.Rejected[npe.Reason]++
				continue
			case errors.Is(err, ai.ErrNotSettled):
				if ctx.Err() != nil {
					st.Elapsed = time.Since(start)
					return st, fmt.Errorf("generate: %w", ctx.Err())
				}
				st.Unsettled++
				continue
			case err != nil:
				st.Elapsed = time.Since(start)
				return st, fmt.Errorf("generate: %w", err)
			}
			if seen[p.ID] {
				st.Duplicates++
				continue
			}
			seen[p.ID] = true
			p.Source = Source{Kind: Generated, Seed: opts.Seed}
			if err := emit(p); err != nil {
				st.Elapsed = time.Since(start)
				return st, fmt.Errorf("generate: %w", err)
			}
			count[bucketOf(p.Kind, p.N)]++
			st.Puzzles++
			st.Themes[p.Themes()[0]]++
			taken++
			i -= gap - 1
		}
		if taken > 0 {
			idle = 0
		} else if idle++; idle >= stall {
			quota++
			idle = 0
		}
		st.Elapsed = time.Since(start)
		if opts.Progress != nil {
			opts.Progress(st)
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// plausible reports whether a win in n is worth looking for in a position
// with empty empty cells: it needs 2n − 1 of them, and wins much shorter
// than the board's end are rare (winSlack).
func plausible(n, empty int) bool { return 2*n-1 <= empty && empty <= 2*n-1+winSlack }

// selfPlay plays game number g of a run seeded by seed on cfg, to its end,
// and returns its moves (zero-based columns).
func selfPlay(ctx context.Context, engine *ai.Engine, cfg game.Config, seed, g uint64) ([]int, error) {
	rng := rand.New(rand.NewPCG(seed, g))
	randomness := []float64{0.1, 0.25, 0.5}[rng.IntN(3)]
	e := engine.WithSeed(seed ^ (g * 0x9e3779b97f4a7c15))
	m, err := game.NewMatch(cfg)
	if err != nil {
		return nil, err
	}
	var moves []int
	for !m.Over() {
		var c int
		if rng.Float64() < randomness {
			var open []int
			for x := 0; x < cfg.Columns; x++ {
				if m.Round().CanDrop(x) {
					open = append(open, x)
				}
			}
			c = open[rng.IntN(len(open))]
		} else {
			// The medium level searches four plies: no deadline reaches it
			// on the boards the solver holds, so the move depends on the
			// seed and the position only.
			c, err = e.Move(context.WithoutCancel(ctx), m, ai.Medium)
			if err != nil {
				return nil, err
			}
		}
		r, err := m.Play(m.ToMove(), c)
		if err != nil {
			return nil, err
		}
		moves = append(moves, c)
		if r.Over() { // a draw starts a new round: the game is the first
			break
		}
	}
	return moves, nil
}
