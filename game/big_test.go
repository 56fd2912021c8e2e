package game_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/connectn/connectn/game"
)

// diagonalMoves returns a legal sequence of columns, player 1 opening, after
// which player 1 completes the main diagonal of a size x size board, or its
// anti-diagonal when anti is true, with its last disc. Diagonal cell i is at
// row i of column i (or of column size-1-i); the other discs fill the cells
// below the diagonal first, then pile on columns already done.
func diagonalMoves(size int, anti bool) []int {
	col := func(i int) int {
		if anti {
			return size - 1 - i
		}
		return i
	}
	height := make([]int, size)
	var moves []int
	drop := func(c int) {
		moves = append(moves, c)
		height[c]++
	}
	next := 0 // the diagonal cell to fill next
	for next < size {
		p1 := len(moves)%2 == 0
		if p1 && height[col(next)] == next {
			drop(col(next))
			next++
			continue
		}
		placed := false
		// Below the diagonal, nearest first.
		for i := next; i < size && !placed; i++ {
			if height[col(i)] < i {
				drop(col(i))
				placed = true
			}
		}
		// Above the diagonal in a column already done.
		for i := 0; i < next && !placed; i++ {
			if height[col(i)] < size {
				drop(col(i))
				placed = true
			}
		}
		if !placed {
			panic("diagonalMoves: no room")
		}
	}
	return moves
}

func TestBigBoardWins(t *testing.T) {
	const size = 64
	line := func(f func(i int) game.Cell) []game.Cell {
		var cs []game.Cell
		for i := range size {
			cs = append(cs, f(i))
		}
		return cs
	}
	var horizontal, vertical []int
	for c := range size {
		horizontal = append(horizontal, c, c) // player 2 piles on top
		vertical = append(vertical, 0, 1)     // player 2 builds column 1
	}
	horizontal = horizontal[:len(horizontal)-1]
	vertical = vertical[:len(vertical)-1]
	tests := []struct {
		name  string
		moves []int
		line  []game.Cell
	}{
		{
			name:  "horizontal",
			moves: horizontal,
			line:  line(func(i int) game.Cell { return game.Cell{Row: 0, Column: i} }),
		},
		{
			name:  "vertical",
			moves: vertical,
			line:  line(func(i int) game.Cell { return game.Cell{Row: i, Column: 0} }),
		},
		{
			name:  "diagonal",
			moves: diagonalMoves(size, false),
			line:  line(func(i int) game.Cell { return game.Cell{Row: i, Column: i} }),
		},
		{
			name:  "anti-diagonal",
			moves: diagonalMoves(size, true),
			line:  line(func(i int) game.Cell { return game.Cell{Row: size - 1 - i, Column: i} }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustMatch(t, game.Config{Rows: size, Columns: size, Connect: size, Wins: 1})
			for i, c := range tt.moves {
				r, err := m.Play(m.ToMove(), c)
				if err != nil {
					t.Fatalf("move %d in column %d: %v", i, c, err)
				}
				if last := i == len(tt.moves)-1; r.Over() != last {
					t.Fatalf("move %d of %d: round %v\n%s", i, len(tt.moves), r.Outcome(), r.Board())
				}
			}
			r := m.Round()
			if r.Outcome() != game.Won || r.Winner() != game.Player1 || m.Winner() != game.Player1 {
				t.Fatalf("round %v by %v, match winner %v; want won by player 1", r.Outcome(), r.Winner(), m.Winner())
			}
			if !slices.Equal(r.Line(), tt.line) {
				t.Errorf("Line = %v, want %v", r.Line(), tt.line)
			}
			if got := r.Board().LongestRun(game.Player1); got != size {
				t.Errorf("LongestRun(player 1) = %d, want %d", got, size)
			}
			if got := r.Board().LongestRun(game.Player2); got >= size {
				t.Errorf("LongestRun(player 2) = %d, want less than %d", got, size)
			}
			again := mustParse(t, r.Board().String())
			if got, want := again.String(), r.Board().String(); got != want {
				t.Errorf("64x64 board does not round-trip through ParseBoard")
			}
		})
	}
}

func TestMaxSizeBoard(t *testing.T) {
	b, err := game.NewBoard(game.MaxSize, game.MaxSize)
	if err != nil {
		t.Fatal(err)
	}
	for c := range game.MaxSize {
		if _, err := b.Drop(c, game.Player2); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(b.LinesThrough(0, game.MaxSize/2, game.MaxSize)); got != game.MaxSize {
		t.Errorf("LinesThrough a full bottom row = %d cells, want %d", got, game.MaxSize)
	}
	if got := b.LongestRun(game.Player2); got != game.MaxSize {
		t.Errorf("LongestRun = %d, want %d", got, game.MaxSize)
	}
	if _, err := game.NewMatch(game.Config{Rows: game.MaxSize, Columns: 1, Connect: game.MaxSize, Wins: 1}); err != nil {
		t.Errorf("NewMatch(%dx1): %v", game.MaxSize, err)
	}
}

// randomRound returns the columns of one random round on a fresh match of
// cfg, played to its end.
func randomRound(tb testing.TB, cfg game.Config, seed uint64) []int {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	m := mustMatch(tb, cfg)
	var moves []int
	for r := m.Round(); !r.Over(); {
		c := rng.IntN(cfg.Columns)
		if !r.Board().CanDrop(c) {
			continue
		}
		play(tb, m, c)
		moves = append(moves, c)
	}
	return moves
}

func BenchmarkPlay(b *testing.B) {
	configs := []struct {
		name string
		cfg  game.Config
	}{
		{name: "6x7-connect4", cfg: game.DefaultConfig()},
		{name: "64x64-connect4", cfg: game.Config{Rows: 64, Columns: 64, Connect: 4, Wins: 1}},
		{name: "64x64-connect64", cfg: game.Config{Rows: 64, Columns: 64, Connect: 64, Wins: 1}},
	}
	for _, bc := range configs {
		moves := randomRound(b, bc.cfg, 1)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				m, _ := game.NewMatch(bc.cfg)
				for _, c := range moves {
					if _, err := m.Play(m.ToMove(), c); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(moves)), "drops/op")
		})
	}
}

func BenchmarkLongestRun(b *testing.B) {
	board, _ := game.NewBoard(64, 64)
	rng := rand.New(rand.NewPCG(3, 3))
	for range 64 * 64 / 2 {
		c := rng.IntN(64)
		if board.CanDrop(c) {
			_, _ = board.Drop(c, game.Player(1+rng.IntN(2)))
		}
	}
	for b.Loop() {
		board.LongestRun(game.Player1)
	}
}

func BenchmarkReplay(b *testing.B) {
	cfg := game.Config{Rows: 64, Columns: 64, Connect: 4, Wins: 1}
	m := mustMatch(b, cfg)
	for _, c := range randomRound(b, cfg, 2) {
		play(b, m, c)
	}
	actions := m.Actions()
	for b.Loop() {
		if _, err := game.Replay(cfg, actions); err != nil {
			b.Fatal(err)
		}
	}
}
