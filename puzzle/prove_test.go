package puzzle

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

// ref is a brute-force Connect N solver for small boards, written for the
// tests apart from the ai package and from game: plain minimax over an
// array of cells, memoised by the position. A result is scored from the
// player to move's side: 1000 − d for a win with the board's d-th disc,
// its negative for a loss, 0 for a draw; so the sooner win and the later
// loss score higher.
type ref struct {
	cfg     game.Config
	cells   []int8 // row*columns + column: 0 empty, 1 first player, 2 second
	heights []int
	plies   int
	memo    map[uint64]int
}

func newRef(cfg game.Config) *ref {
	return &ref{cfg: cfg, cells: make([]int8, cfg.Rows*cfg.Columns), heights: make([]int, cfg.Columns), memo: map[uint64]int{}}
}

// set replaces the position with moves from the empty board.
func (r *ref) set(moves []int) {
	clear(r.cells)
	clear(r.heights)
	r.plies = 0
	for _, c := range moves {
		r.drop(c)
	}
}

func (r *ref) drop(c int) {
	r.cells[r.heights[c]*r.cfg.Columns+c] = int8(r.plies%2 + 1)
	r.heights[c]++
	r.plies++
}

func (r *ref) undo(c int) {
	r.plies--
	r.heights[c]--
	r.cells[r.heights[c]*r.cfg.Columns+c] = 0
}

// line reports whether the disc on top of column c is in a line.
func (r *ref) line(c int) bool {
	row := r.heights[c] - 1
	who := r.cells[row*r.cfg.Columns+c]
	for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		n := 1
		for _, sign := range []int{1, -1} {
			for k := 1; ; k++ {
				y, x := row+sign*k*d[0], c+sign*k*d[1]
				if y < 0 || y >= r.cfg.Rows || x < 0 || x >= r.cfg.Columns || r.cells[y*r.cfg.Columns+x] != who {
					break
				}
				n++
			}
		}
		if n >= r.cfg.Connect {
			return true
		}
	}
	return false
}

// playable reports whether column c has room.
func (r *ref) playable(c int) bool { return r.heights[c] < r.cfg.Rows }

// columns returns the value of every column of the position (ok false for
// a full one), for the player to move.
func (r *ref) columns() (vals []int, ok []bool) {
	vals, ok = make([]int, r.cfg.Columns), make([]bool, r.cfg.Columns)
	for c := range vals {
		if !r.playable(c) {
			continue
		}
		ok[c] = true
		vals[c] = r.child(c)
	}
	return vals, ok
}

func (r *ref) child(c int) int {
	r.drop(c)
	defer r.undo(c)
	switch {
	case r.line(c):
		return 1000 - r.plies
	case r.plies == len(r.cells):
		return 0
	}
	return -r.value()
}

func (r *ref) value() int {
	var key uint64
	for _, v := range r.cells {
		key = key*3 + uint64(v)
	}
	if v, ok := r.memo[key]; ok {
		return v
	}
	best, any := 0, false
	for c := 0; c < r.cfg.Columns; c++ {
		if r.playable(c) {
			if v := r.child(c); !any || v > best {
				best, any = v, true
			}
		}
	}
	r.memo[key] = best
	return best
}

// discs returns the mover's discs to the win (or the opponent's to the
// loss) of a reference value, from a position of plies discs: the win with
// the board's d-th disc is the mover's ((d − plies + 1)/2)-th, the loss
// the opponent's ((d − plies)/2)-th.
func discs(v, plies int) int {
	switch {
	case v > 0:
		return (1000 - v - plies + 1) / 2
	case v < 0:
		return (1000 + v - plies) / 2
	}
	return 0
}

// wantTest is the only-move test worked out from the reference: the task,
// or the reason the position fails.
type wantTest struct {
	kind     Kind
	n        int
	solution int
	reason   Reason
}

func (r *ref) test(moves []int) wantTest {
	r.set(moves)
	open := 0
	for c := 0; c < r.cfg.Columns; c++ {
		if r.playable(c) {
			open++
			r.drop(c)
			won := r.line(c)
			r.undo(c)
			if won {
				return wantTest{reason: ReasonWinInOne}
			}
		}
	}
	for c := 0; c < r.cfg.Columns; c++ {
		if r.playable(c) {
			r.plies++ // the opponent's disc
			r.drop(c)
			won := r.line(c)
			r.undo(c)
			r.plies--
			if won {
				return wantTest{reason: ReasonForced}
			}
		}
	}
	if open == 1 {
		return wantTest{reason: ReasonForced}
	}
	vals, ok := r.columns()
	best, bestCols := 0, []int(nil)
	var wins, draws []int
	for c, v := range vals {
		if !ok[c] {
			continue
		}
		switch {
		case v > 0:
			wins = append(wins, c)
		case v == 0:
			draws = append(draws, c)
		}
		switch {
		case bestCols == nil || v > best:
			best, bestCols = v, []int{c}
		case v == best:
			bestCols = append(bestCols, c)
		}
	}
	switch {
	case len(wins) > 1:
		return wantTest{reason: ReasonManyWins}
	case len(wins) == 1:
		n := discs(vals[wins[0]], len(moves))
		if n > MaxWinIn {
			return wantTest{reason: ReasonOutOfRange}
		}
		return wantTest{kind: WinIn, n: n, solution: wins[0]}
	case len(draws) > 1:
		return wantTest{reason: ReasonManyDraws}
	case len(draws) == 1:
		return wantTest{kind: OnlyMove, solution: draws[0]}
	case len(bestCols) > 1:
		return wantTest{reason: ReasonManyDefences}
	}
	return wantTest{kind: Defence, n: discs(best, len(moves)), solution: bestCols[0]}
}

// randomGames returns the moves of count random games on cfg, seeded.
func randomGames(cfg game.Config, count int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out [][]int
	for range count {
		b, _ := game.NewBoard(cfg.Rows, cfg.Columns)
		var moves []int
		p := game.Player1
		for {
			var open []int
			for c := 0; c < cfg.Columns; c++ {
				if b.CanDrop(c) {
					open = append(open, c)
				}
			}
			c := open[rng.IntN(len(open))]
			row, _ := b.Drop(c, p)
			moves = append(moves, c)
			if len(b.LinesThrough(row, c, cfg.Connect)) > 0 || b.Full() {
				break
			}
			p = p.Other()
		}
		out = append(out, moves)
	}
	return out
}

// TestOnlyMoveTestAgainstReference runs the only-move test, through an
// engine (Test) and through a Prover (the generator's weak-first path), on
// every position of random games on small boards (40 a board; 10 under the
// race detector or -short, with a smaller board for the largest), and holds every verdict to the brute-force
// reference's: the same task, N and solution, or the same reason to fail.
func TestOnlyMoveTestAgainstReference(t *testing.T) {
	engine := ai.NewEngine(ai.Options{TableMB: 4})
	pv := NewProver(4)
	allKinds, allReasons := map[Kind]int{}, map[Reason]int{}
	games := 40
	boards := []game.Config{
		{Rows: 4, Columns: 5, Connect: 3},
		{Rows: 5, Columns: 4, Connect: 4},
		{Rows: 4, Columns: 4, Connect: 3},
	}
	if raceEnabled || testing.Short() {
		games = 10
		// The reference alone takes 10 s on 5x4 under the race detector.
		boards[1] = game.Config{Rows: 4, Columns: 4, Connect: 4}
		t.Log("under the race detector or -short: 10 games a board, 4x4 connect 4 for 5x4")
	}
	for _, cfg := range boards {
		r := newRef(cfg)
		start := time.Now()
		kinds := map[Kind]int{}
		reasons := map[Reason]int{}
		for _, played := range randomGames(cfg, games, uint64(cfg.Columns)) {
			for i := 0; i < len(played); i++ {
				moves := played[:i]
				want := r.test(moves)
				for name, run := range map[string]func() (Puzzle, error){
					"Test":        func() (Puzzle, error) { return Test(context.Background(), engine, cfg, moves) },
					"Prover.Test": func() (Puzzle, error) { return pv.Test(context.Background(), cfg, moves) },
				} {
					p, err := run()
					var npe *NotPuzzleError
					switch {
					case want.reason != 0:
						if !errors.As(err, &npe) || npe.Reason != want.reason {
							t.Fatalf("%s %dx%d %q: got %+v, %v; want %v", name, cfg.Rows, cfg.Columns, game.MovesCode(moves), p, err, want.reason)
						}
					case err != nil:
						t.Fatalf("%s %dx%d %q: %v; want %+v", name, cfg.Rows, cfg.Columns, game.MovesCode(moves), err, want)
					case p.Kind != want.kind || p.N != want.n || p.Solution != want.solution:
						t.Fatalf("%s %dx%d %q: got %s %d in column %d; want %s %d in column %d", name, cfg.Rows, cfg.Columns, game.MovesCode(moves),
							p.Kind, p.N, p.Solution+1, want.kind, want.n, want.solution+1)
					}
				}
				if want.reason != 0 {
					reasons[want.reason]++
				} else {
					kinds[want.kind]++
				}
			}
		}
		for k, n := range kinds {
			allKinds[k] += n
		}
		for r, n := range reasons {
			allReasons[r] += n
		}
		t.Logf("%dx%d connect %d: %v %v %v memo %d", cfg.Rows, cfg.Columns, cfg.Connect, kinds, reasons, time.Since(start), len(r.memo))
	}
	// The games must reach every verdict, or the test proves little.
	for _, k := range []Kind{WinIn, OnlyMove, Defence} {
		if allKinds[k] == 0 {
			t.Errorf("no position of kind %s in the sample", k)
		}
	}
	for r := ReasonWinInOne; r <= ReasonManyDefences; r++ {
		if allReasons[r] == 0 {
			t.Errorf("no position fails for %s in the sample", r)
		}
	}
}

// TestWinTooLong holds that a position whose only winning move wins in
// more than MaxWinIn discs is no puzzle. The position (17 discs on 6x7) was
// found by the generator, which rejected it; the engine's values say why.
func TestWinTooLong(t *testing.T) {
	moves, err := parseMoves("54554525544421222", std.Columns)
	if err != nil {
		t.Fatal(err)
	}
	vals := evaluate(t, std, moves)
	var wins []int
	for _, v := range vals {
		if v.Legal && v.Score > 0 {
			wins = append(wins, v.Column)
		}
	}
	if len(wins) != 1 || vals[wins[0]].In <= MaxWinIn {
		t.Fatalf("the position's wins: %v, want one of more than %d discs (values %+v)", wins, MaxWinIn, vals)
	}
	for name, run := range map[string]func() (Puzzle, error){
		"Test":        func() (Puzzle, error) { return Test(context.Background(), testEngine, std, moves) },
		"Prover.Test": func() (Puzzle, error) { return NewProver(16).Test(context.Background(), std, moves) },
	} {
		p, err := run()
		var npe *NotPuzzleError
		if !errors.As(err, &npe) || npe.Reason != ReasonOutOfRange {
			t.Errorf("%s: %+v, %v; want %v", name, p, err, ReasonOutOfRange)
		}
	}
}
