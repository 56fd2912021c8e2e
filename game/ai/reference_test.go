package ai

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// refBoard is a deliberately simple board for the brute-force reference:
// a cell array, no bitboards, no pruning, every line checked cell by cell.
type refBoard struct {
	rows, columns, connect int
	cells                  []int8 // row-major, row 0 at the bottom; 0 empty, 1 or 2
	heights                []int
	moves                  int
}

func newRef(rows, columns, connect int) *refBoard {
	return &refBoard{rows: rows, columns: columns, connect: connect, cells: make([]int8, rows*columns), heights: make([]int, columns)}
}

func (b *refBoard) at(r, c int) int8 {
	if r < 0 || r >= b.rows || c < 0 || c >= b.columns {
		return -1
	}
	return b.cells[r*b.columns+c]
}

// wins reports whether dropping the mover's disc in column c makes a line.
func (b *refBoard) wins(c int) bool {
	r := b.heights[c]
	me := int8(b.moves%2 + 1)
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		n := 1
		for k := 1; b.at(r+k*d[0], c+k*d[1]) == me; k++ {
			n++
		}
		for k := 1; b.at(r-k*d[0], c-k*d[1]) == me; k++ {
			n++
		}
		if n >= b.connect {
			return true
		}
	}
	return false
}

func (b *refBoard) play(c int) {
	b.cells[b.heights[c]*b.columns+c] = int8(b.moves%2 + 1)
	b.heights[c]++
	b.moves++
}

func (b *refBoard) undo(c int) {
	b.moves--
	b.heights[c]--
	b.cells[b.heights[c]*b.columns+c] = 0
}

// key encodes the cells in base 3 (boards of at most 40 cells).
func (b *refBoard) key() uint64 {
	var k uint64
	for _, v := range b.cells {
		k = k*3 + uint64(v)
	}
	return k
}

// score is the definition of Pons' score, computed by exhaustive negamax
// with memoisation: a win now scores (cells+1-moves)/2, a full board 0,
// otherwise the best of the negated children.
func (b *refBoard) score(memo map[uint64]int) int {
	cells := b.rows * b.columns
	if b.moves == cells {
		return 0
	}
	for c := 0; c < b.columns; c++ {
		if b.heights[c] < b.rows && b.wins(c) {
			return (cells + 1 - b.moves) / 2
		}
	}
	k := b.key()
	if v, ok := memo[k]; ok {
		return v
	}
	best := -cells
	for c := 0; c < b.columns; c++ {
		if b.heights[c] < b.rows {
			b.play(c)
			best = max(best, -b.score(memo))
			b.undo(c)
		}
	}
	memo[k] = best
	return best
}

// TestSolverAgainstBruteForce compares the solver's exact score with the
// brute-force reference on small boards other than 7x6 (rows x columns),
// on the empty board and on every position of up to 3 discs, plus random
// positions deeper in the game.
func TestSolverAgainstBruteForce(t *testing.T) {
	// Beside TestPons, after the other tests: the reference's one goroutine
	// (its 5x5 board alone takes half a minute) and Pons' workers share
	// the cores instead of taking turns.
	t.Parallel()
	boards := []struct{ rows, columns, connect, randomPositions int }{
		{4, 4, 3, 40},
		{4, 4, 4, 40},
		{5, 4, 4, 40},
		{4, 5, 3, 40},
		{5, 5, 4, 30},
		{5, 5, 3, 30},
		{3, 6, 3, 30},
	}
	if testing.Short() || raceEnabled {
		boards = boards[:4]
	}
	for _, bd := range boards {
		t.Run(fmt.Sprintf("%dx%d_connect%d", bd.rows, bd.columns, bd.connect), func(t *testing.T) {
			s, err := NewSolver(bd.rows, bd.columns, bd.connect, SolverOptions{TableMB: 4, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			ref := newRef(bd.rows, bd.columns, bd.connect)
			memo := map[uint64]int{}
			check := func(moves []int) {
				t.Helper()
				pos, err := s.Play(moves)
				if err != nil {
					t.Fatalf("%v: %v", moves, err)
				}
				want := ref.score(memo)
				got, err := s.Solve(context.Background(), pos, false)
				if err != nil {
					t.Fatalf("%v: %v", moves, err)
				}
				if got.Score != want {
					t.Errorf("moves %v: score %d, want %d", moves, got.Score, want)
				}
				weak, err := s.Solve(context.Background(), pos, true)
				if err != nil || weak.Score != sign(want) {
					t.Errorf("moves %v: weak score %d (%v), want %d", moves, weak.Score, err, sign(want))
				}
				// The column returned achieves the score.
				if ref.heights[got.Column] >= ref.rows {
					t.Fatalf("moves %v: best column %d is full", moves, got.Column)
				}
				var after int
				if ref.wins(got.Column) {
					after = (ref.rows*ref.columns + 1 - ref.moves) / 2
				} else {
					ref.play(got.Column)
					after = -ref.score(memo)
					ref.undo(got.Column)
				}
				if after != want {
					t.Errorf("moves %v: best column %d scores %d, want %d", moves, got.Column, after, want)
				}
			}
			var walk func(moves []int, depth int)
			walk = func(moves []int, depth int) {
				check(moves)
				if depth == 0 {
					return
				}
				for c := 0; c < bd.columns; c++ {
					if ref.heights[c] < ref.rows && !ref.wins(c) {
						ref.play(c)
						walk(append(moves, c), depth-1)
						ref.undo(c)
					}
				}
			}
			walk(nil, 3)
			rng := rand.New(rand.NewPCG(uint64(bd.rows), uint64(bd.columns*16+bd.connect)))
			for i := 0; i < bd.randomPositions; i++ {
				var moves []int
				target := rng.IntN(bd.rows*bd.columns - 2)
				for len(moves) < target {
					var open []int
					for c := 0; c < bd.columns; c++ {
						if ref.heights[c] < ref.rows && !ref.wins(c) {
							open = append(open, c)
						}
					}
					if len(open) == 0 {
						break
					}
					c := open[rng.IntN(len(open))]
					ref.play(c)
					moves = append(moves, c)
				}
				if ref.moves < bd.rows*bd.columns {
					check(moves)
				}
				for i := len(moves) - 1; i >= 0; i-- {
					ref.undo(moves[i])
				}
			}
		})
	}
}
