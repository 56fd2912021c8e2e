package ai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
)

func TestParseLevel(t *testing.T) {
	for _, l := range Levels() {
		got, err := ParseLevel(" " + l.String() + " ")
		if err != nil || got != l {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", l.String(), got, err, l)
		}
	}
	if got, err := ParseLevel("PERFECT"); err != nil || got != Perfect {
		t.Errorf("ParseLevel(PERFECT) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "expert", "3"} {
		if _, err := ParseLevel(bad); !errors.Is(err, ErrUnknownLevel) {
			t.Errorf("ParseLevel(%q) error = %v, want ErrUnknownLevel", bad, err)
		}
	}
	if DefaultLevel != Hard {
		t.Errorf("DefaultLevel = %v, want hard", DefaultLevel)
	}
}

// playMoves builds a one-round match from zero-based columns.
func playMoves(t *testing.T, cfg game.Config, moves []int) *game.Match {
	t.Helper()
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatalf("moves %v: %v", moves, err)
		}
	}
	return m
}

func TestMoveErrors(t *testing.T) {
	e := NewEngine(Options{TableMB: 4})
	cfg := game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 1}
	over := playMoves(t, cfg, []int{0, 1, 0, 1, 0})
	if _, err := e.Move(context.Background(), over, Hard); !errors.Is(err, game.ErrMatchOver) {
		t.Errorf("Move on a finished match: %v, want ErrMatchOver", err)
	}
	m := playMoves(t, cfg, nil)
	if _, err := e.Move(context.Background(), m, Level(9)); !errors.Is(err, ErrUnknownLevel) {
		t.Errorf("Move at level 9: %v, want ErrUnknownLevel", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Move(ctx, m, Hard); !errors.Is(err, context.Canceled) {
		t.Errorf("Move with a cancelled context: %v, want context.Canceled", err)
	}
	if m.Plies() != 0 {
		t.Errorf("Move changed the match")
	}
}

// tacticalCase is a position where the player to move has an immediate win
// (win) or, having none, must block the opponent's single immediate win.
type tacticalCase struct {
	moves []int
	good  map[int]bool // the columns that win, or the one that blocks
	kind  string
}

// tacticalPositions plays random games on cfg's board and collects the
// positions where the mover can win at once, and those where the mover
// cannot but the opponent threatens exactly one immediate win.
func tacticalPositions(cfg game.Config, seed uint64, want int) []tacticalCase {
	rng := rand.New(rand.NewPCG(seed, 7))
	var cases []tacticalCase
	for game := 0; len(cases) < want && game < 500; game++ {
		b := newRef(cfg.Rows, cfg.Columns, cfg.Connect)
		var moves []int
		for b.moves < cfg.Rows*cfg.Columns {
			wins := map[int]bool{}
			var open []int
			for c := 0; c < cfg.Columns; c++ {
				if b.heights[c] < b.rows {
					open = append(open, c)
					if b.wins(c) {
						wins[c] = true
					}
				}
			}
			if len(wins) > 0 {
				cases = append(cases, tacticalCase{moves: append([]int(nil), moves...), good: wins, kind: "win"})
				break
			}
			b.moves++ // look from the opponent's side
			threats := map[int]bool{}
			for _, c := range open {
				if b.wins(c) {
					threats[c] = true
				}
			}
			b.moves--
			if len(threats) == 1 && rng.IntN(2) == 0 {
				cases = append(cases, tacticalCase{moves: append([]int(nil), moves...), good: threats, kind: "block"})
			}
			c := open[rng.IntN(len(open))]
			b.play(c)
			moves = append(moves, c)
		}
	}
	return cases
}

// TestTactics checks that medium and above take every immediate win and
// block every single immediate threat, on several sizes and N, and that
// easy takes every immediate win.
func TestTactics(t *testing.T) {
	boards := []game.Config{
		{Rows: 6, Columns: 7, Connect: 4, Wins: 1},
		{Rows: 5, Columns: 5, Connect: 3, Wins: 1},
		{Rows: 8, Columns: 9, Connect: 5, Wins: 1},
		{Rows: 12, Columns: 12, Connect: 6, Wins: 1},
		{Rows: 4, Columns: 12, Connect: 4, Wins: 1},
		{Rows: 10, Columns: 4, Connect: 3, Wins: 1},
	}
	per := 12
	if raceEnabled || testing.Short() {
		per = 4
	}
	e := NewEngine(Options{TableMB: 16, MoveTime: 60 * time.Millisecond, Seed: 3})
	for _, cfg := range boards {
		cases := tacticalPositions(cfg, uint64(cfg.Rows*100+cfg.Columns), per)
		if len(cases) < per/2 {
			t.Fatalf("%dx%d: only %d tactical positions found", cfg.Rows, cfg.Columns, len(cases))
		}
		for _, level := range Levels() {
			t.Run(fmt.Sprintf("%dx%d_connect%d/%s", cfg.Rows, cfg.Columns, cfg.Connect, level), func(t *testing.T) {
				for _, tc := range cases {
					if level == Easy && tc.kind != "win" {
						continue
					}
					m := playMoves(t, cfg, tc.moves)
					got, err := e.Move(context.Background(), m, level)
					if err != nil {
						t.Fatal(err)
					}
					if !tc.good[got] {
						t.Errorf("moves %v: %s played column %d, want one of %v (%s)", tc.moves, level, got, tc.good, tc.kind)
					}
				}
			})
		}
	}
}

// TestMoveHonoursDeadline checks that a search that could run for ten
// seconds returns inside its context's deadline, on the largest boards.
func TestMoveHonoursDeadline(t *testing.T) {
	e := NewEngine(Options{TableMB: 16, MoveTime: 10 * time.Second})
	for _, cfg := range []game.Config{
		{Rows: 12, Columns: 12, Connect: 4, Wins: 1},
		{Rows: 6, Columns: 7, Connect: 4, Wins: 1},
		{Rows: 40, Columns: 40, Connect: 5, Wins: 1},
	} {
		m := playMoves(t, cfg, []int{1, 2})
		for _, level := range []Level{Hard, Perfect} {
			ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
			start := time.Now()
			c, err := e.Move(ctx, m, level)
			late := ctx.Err()
			cancel()
			if err != nil || !m.Round().CanDrop(c) {
				t.Fatalf("%dx%d %s: column %d, %v", cfg.Rows, cfg.Columns, level, c, err)
			}
			// Move keeps a tenth of the time as a margin; a loaded machine
			// (CI runs two searches beside this test) or the race detector,
			// which slows every memory access tenfold, can still delay the
			// goroutine past it, by hundreds of milliseconds on a 2-core
			// machine under load. Without the deadline the search would
			// take its 10 s MoveTime, far beyond the slack.
			slack := time.Second
			if raceEnabled {
				slack = 2 * time.Second
			}
			if took := time.Since(start); late != nil && took > 400*time.Millisecond+slack {
				t.Errorf("%dx%d %s: returned %v after the start of its 400 ms deadline", cfg.Rows, cfg.Columns, level, took)
			}
		}
	}
}

// TestPoolBoundsWorkers runs many moves at once on an engine of one worker
// and checks that no two ever searched together.
func TestPoolBoundsWorkers(t *testing.T) {
	e := NewEngine(Options{TableMB: 4, Workers: 1, MoveTime: 30 * time.Millisecond})
	cfg := game.Config{Rows: 8, Columns: 8, Connect: 4, Wins: 1}
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, _ := game.NewMatch(cfg)
			m.Play(game.Player1, i%8)
			if _, err := e.Move(context.Background(), m, Hard); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := e.peak.Load(); p != 1 {
		t.Errorf("peak of workers searching at once = %d, want 1", p)
	}
}

// TestBookMoveNeedsNoWorker holds the only worker of an engine, as a
// search of another match would, and checks that perfect still answers an
// opening position of 7x6 from the book at once, instead of waiting for
// the worker until its deadline and falling back to a move without search.
func TestBookMoveNeedsNoWorker(t *testing.T) {
	e := NewEngine(Options{TableMB: 4, Workers: 1, MoveTime: 500 * time.Millisecond})
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	// A position whose book move is not the move played without a
	// search, so that the two cannot be confused.
	var moves []int
	want := -1
	for a := 0; a < 7 && want < 0; a++ {
		for b := 0; b < 7 && want < 0; b++ {
			c, ok := e.bookMove(6, 7, 4, []int{a, b})
			quick := newHsearch(newWide(6, 7, 4), []int{a, b}, nil).quickMove()
			if ok && c != quick {
				moves, want = []int{a, b}, c
			}
		}
	}
	if want < 0 {
		t.Fatal("no two-disc position whose book move differs from the quick move")
	}
	if !e.acquire(time.Now().Add(time.Second)) {
		t.Fatal("could not take the engine's worker")
	}
	defer e.release()
	m := playMoves(t, cfg, moves)
	start := time.Now()
	got, err := e.Move(context.Background(), m, Perfect)
	took := time.Since(start)
	if err != nil || got != want {
		t.Errorf("Move after %v with the worker taken = %d, %v; want the book's %d", moves, got, err, want)
	}
	if took > 250*time.Millisecond {
		t.Errorf("Move with the worker taken took %v: it waited for the worker", took)
	}
}

// TestSearchesYield: each kind of search hands its processor to the
// goroutines waiting for it (as an interaction handler does) every few
// thousand nodes, through yield, instead of holding it for the scheduler's
// 10 ms time slice. Each search is ended by its third yield, so that the
// count does not depend on how much processor time a loaded machine gives
// the test in a fixed time; without yields it runs to its deadline of 5 s
// and counts none.
func TestSearchesYield(t *testing.T) {
	const want = 3
	var yields atomic.Int64
	var end atomic.Pointer[context.CancelFunc]
	defer func(y func()) { yield = y }(yield)
	yield = func() {
		if yields.Add(1) == want {
			(*end.Load())()
		}
	}
	solver, err := NewSolver(6, 7, 4, SolverOptions{TableMB: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(Options{TableMB: 4, Workers: 1})
	searches := []struct {
		name   string
		search func(ctx context.Context)
	}{
		{name: "solver, empty 7x6", search: func(ctx context.Context) {
			pos, _ := solver.Play(nil)
			solver.Solve(ctx, pos, true)
		}},
		{name: "heuristic, perfect on 12x12", search: func(ctx context.Context) {
			m, _ := game.NewMatch(game.Config{Rows: 12, Columns: 12, Connect: 4, Wins: 1})
			e.Move(ctx, m, Perfect)
		}},
	}
	for _, tt := range searches {
		t.Run(tt.name, func(t *testing.T) {
			yields.Store(0)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			end.Store(&cancel)
			tt.search(ctx)
			if n := yields.Load(); n < want {
				t.Errorf("%d yields in a search of 5 s, want at least %d", n, want)
			}
		})
	}
}

// TestMoveDeterministic checks that the same seed and position give the
// same move at the levels that use randomness.
func TestMoveDeterministic(t *testing.T) {
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	m := playMoves(t, cfg, []int{3, 3, 2})
	for _, level := range []Level{Easy, Medium} {
		var first int
		for i := 0; i < 3; i++ {
			c, err := NewEngine(Options{TableMB: 4, Seed: 42}).Move(context.Background(), m, level)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = c
			} else if c != first {
				t.Errorf("%s: move %d then %d with the same seed", level, first, c)
			}
		}
	}
}

// TestPerfectWinsAsFirstOn7x6 plays perfect as first player against
// medium from the empty board: the book and the solver must win.
func TestPerfectWinsAsFirstOn7x6(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("plays a full game at full strength: too slow under the race detector or -short")
	}
	e := NewEngine(Options{TableMB: 64, Seed: 5})
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	m, _ := game.NewMatch(cfg)
	for !m.Over() {
		level := Perfect
		if m.ToMove() == game.Player2 {
			level = Medium
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := e.Move(ctx, m, level)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	if m.Winner() != game.Player1 {
		t.Errorf("perfect as first player did not win: %v", m.Round().Moves())
	}
}

// TestSolvable checks Solvable at the edges of 64 bits and against the
// solver itself: for every board size a game may have and more, Solvable
// says yes exactly when the solver takes the board.
func TestSolvable(t *testing.T) {
	tests := []struct {
		name          string
		rows, columns int
		want          bool
	}{
		{"standard 6x7, 49 bits", 6, 7, true},
		{"7x8, exactly 64 bits", 7, 8, true},
		{"15x4, exactly 64 bits", 15, 4, true},
		{"8x8, 72 bits", 8, 8, false},
		{"7x9, 72 bits", 7, 9, false},
		{"12x12, 156 bits", 12, 12, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := game.Config{Rows: tt.rows, Columns: tt.columns, Connect: 4, Wins: 1}
			if got := Solvable(cfg); got != tt.want {
				t.Errorf("Solvable(%dx%d) = %t, want %t", tt.rows, tt.columns, got, tt.want)
			}
		})
	}
	for rows := 1; rows <= 20; rows++ {
		for columns := 1; columns <= 40; columns++ {
			_, err := newGeometry(rows, columns, 3)
			if got, want := Solvable(game.Config{Rows: rows, Columns: columns, Connect: 3}), err == nil; got != want {
				t.Errorf("%dx%d: Solvable = %t, but the solver's geometry error is %v", rows, columns, got, err)
			}
		}
	}
}
