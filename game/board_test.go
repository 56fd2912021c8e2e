package game_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
)

// TestDropLines drops one disc on a pictured board and checks the lines
// through it: every direction, edges and corners, several N, non-square
// boards, lines longer than N, several lines at once, and no false lines
// across the ends of rows (the cells are stored row-major).
func TestDropLines(t *testing.T) {
	tests := []struct {
		name    string
		picture string
		player  game.Player
		column  int
		connect int
		want    string // cells "row,column ..." in LinesThrough order; "" for none
		full    bool   // the drop fills the board
	}{
		{
			name: "horizontal from the bottom-left corner",
			picture: `
				.......
				.......
				.......
				.......
				.......
				.xxxooo`,
			player: game.Player1, column: 0, connect: 4,
			want: "0,0 0,1 0,2 0,3",
		},
		{
			name: "horizontal into the top-right corner",
			picture: `
				ooo.
				xxox
				oxxo
				xoxo`,
			player: game.Player2, column: 3, connect: 4,
			want: "3,0 3,1 3,2 3,3", full: true,
		},
		{
			name: "horizontal in the middle of the row",
			picture: `
				.......
				.......
				.......
				.......
				.......
				oxx.xoo`,
			player: game.Player1, column: 3, connect: 4,
			want: "0,1 0,2 0,3 0,4",
		},
		{
			name: "vertical at the left edge, connect 3",
			picture: `
				...
				xo.
				xo.`,
			player: game.Player1, column: 0, connect: 3,
			want: "0,0 1,0 2,0",
		},
		{
			name: "vertical into the top-right corner, connect 5 on 5x2",
			picture: `
				..
				.x
				.x
				ox
				ox`,
			player: game.Player1, column: 1, connect: 5,
			want: "0,1 1,1 2,1 3,1 4,1",
		},
		{
			name: "diagonal from the bottom-left to the top-right corner",
			picture: `
				....
				..xo
				.xoo
				xoox`,
			player: game.Player1, column: 3, connect: 4,
			want: "0,0 1,1 2,2 3,3",
		},
		{
			name: "diagonal completed in its middle",
			picture: `
				.......
				.......
				...x...
				...o...
				.xoxo..
				xoxoo..`,
			player: game.Player1, column: 2, connect: 4,
			want: "0,0 1,1 2,2 3,3",
		},
		{
			name: "anti-diagonal into the top-left corner, listed from its left end",
			picture: `
				....
				ox..
				oox.
				xoox`,
			player: game.Player1, column: 0, connect: 4,
			want: "3,0 2,1 1,2 0,3",
		},
		{
			name: "anti-diagonal into the bottom-right corner",
			picture: `
				x...
				ox..
				oox.
				xoo.`,
			player: game.Player1, column: 3, connect: 4,
			want: "3,0 2,1 1,2 0,3",
		},
		{
			name: "diagonal into the top-right corner, connect 5 on 5x8",
			picture: `
				........
				......xo
				.....xoo
				....xoox
				...xooxo`,
			player: game.Player1, column: 7, connect: 5,
			want: "0,3 1,4 2,5 3,6 4,7",
		},
		{
			name:    "connect 1 on 1x1",
			picture: `.`,
			player:  game.Player1, column: 0, connect: 1,
			want: "0,0", full: true,
		},
		{
			name: "connect 1: every run through the disc, the disc once",
			picture: `
				...
				xo.
				ox.`,
			player: game.Player2, column: 1, connect: 1,
			want: "2,1 1,1",
		},
		{
			name: "connect 2 vertical on 2x2",
			picture: `
				..
				xo`,
			player: game.Player1, column: 0, connect: 2,
			want: "0,0 1,0",
		},
		{
			name: "connect 2 anti-diagonal on 2x2",
			picture: `
				..
				ox`,
			player: game.Player1, column: 0, connect: 2,
			want: "1,0 0,1",
		},
		{
			name:    "connect 3 on 3x10",
			picture: "..........\n..........\n......xx..",
			player:  game.Player1, column: 8, connect: 3,
			want: "0,6 0,7 0,8",
		},
		{
			name: "connect 3 along the top row of 10x3",
			picture: `
				xx.
				oox
				xxo
				oox
				xxo
				oox
				xxo
				oox
				xxo
				oox`,
			player: game.Player1, column: 2, connect: 3,
			want: "9,0 9,1 9,2", full: true,
		},
		{
			name:    "connect 6 on 1x6",
			picture: `xxx.xx`,
			player:  game.Player1, column: 3, connect: 6,
			want: "0,0 0,1 0,2 0,3 0,4 0,5", full: true,
		},
		{
			name:    "connect 6 on 6x1",
			picture: ".\no\no\no\no\no",
			player:  game.Player2, column: 0, connect: 6,
			want: "0,0 1,0 2,0 3,0 4,0 5,0", full: true,
		},
		{
			name:    "connect 6 not reached by 5 on 1x8",
			picture: `xxx.xo..`,
			player:  game.Player1, column: 3, connect: 6,
			want: "",
		},
		{
			name:    "a line longer than N: all 7 cells",
			picture: `xxx.xxx.`,
			player:  game.Player1, column: 3, connect: 4,
			want: "0,0 0,1 0,2 0,3 0,4 0,5 0,6",
		},
		{
			name: "a diagonal longer than N: all 5 cells",
			picture: `
				.....
				...xo
				..xoo
				.xoxx
				xooxo`,
			player: game.Player1, column: 4, connect: 4,
			want: "0,0 1,1 2,2 3,3 4,4",
		},
		{
			name: "two lines at once: the dropped cell once",
			picture: `
				xx.
				oox
				oox`,
			player: game.Player1, column: 2, connect: 3,
			want: "2,0 2,1 2,2 0,2 1,2", full: true,
		},
		{
			name: "four lines at once, one longer than N",
			picture: `
				x...x
				ox.xx
				xx.oo
				ooxxo
				ooxox`,
			player: game.Player1, column: 2, connect: 3,
			want: "2,0 2,1 2,2 0,2 1,2 3,3 4,4 4,0 3,1 1,3 0,4",
		},
		{
			name: "no line: one short in every direction",
			picture: `
				.......
				.......
				.......
				..x....
				..xo...
				.xxoo..`,
			player: game.Player1, column: 3, connect: 4,
			want: "",
		},
		{
			name: "no line for the other player's discs",
			picture: `
				.......
				.......
				.......
				.......
				.......
				.ooo...`,
			player: game.Player1, column: 0, connect: 4,
			want: "",
		},
		{
			name: "no horizontal line across the end of a row",
			picture: `
				x..
				oxx`,
			player: game.Player1, column: 1, connect: 3,
			want: "",
		},
		{
			name: "no diagonal line across the end of a row",
			picture: `
				..
				xo
				oo
				ox`,
			player: game.Player1, column: 1, connect: 3,
			want: "",
		},
		{
			name: "no anti-diagonal line across the end of a row",
			picture: `
				x..
				oxo`,
			player: game.Player1, column: 2, connect: 3,
			want: "",
		},
		{
			name: "no line past the top of a column",
			picture: `
				.x
				.x
				xo`,
			player: game.Player1, column: 0, connect: 3,
			want: "",
		},
		{
			name: "the last cell fills the board with no line",
			picture: `
				oxo.
				oxox
				xoxo
				xoxo`,
			player: game.Player1, column: 3, connect: 4,
			want: "", full: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustParse(t, tt.picture)
			before := b.Discs()
			row, err := b.Drop(tt.column, tt.player)
			if err != nil {
				t.Fatalf("Drop(%d, %v): %v", tt.column, tt.player, err)
			}
			if got, want := b.At(row, tt.column), tt.player; got != want {
				t.Errorf("At(%d, %d) = %v, want %v", row, tt.column, got, want)
			}
			if got, want := b.Discs(), before+1; got != want {
				t.Errorf("Discs() = %d, want %d", got, want)
			}
			got := b.LinesThrough(row, tt.column, tt.connect)
			want := cells(t, tt.want)
			if !slices.Equal(got, want) {
				t.Errorf("LinesThrough(%d, %d, %d) = %v, want %v\nboard:\n%s", row, tt.column, tt.connect, got, want, b)
			}
			if tt.want == "" && got != nil {
				t.Errorf("LinesThrough = %#v, want nil", got)
			}
			if got := b.Full(); got != tt.full {
				t.Errorf("Full() = %v, want %v", got, tt.full)
			}
			longest := b.LongestRun(tt.player)
			if gotWon, wantWon := longest >= tt.connect, tt.want != ""; gotWon != wantWon {
				t.Errorf("LongestRun(%v) = %d with connect %d, but line %v", tt.player, longest, tt.connect, got)
			}
		})
	}
}

func TestLinesThroughEdgeCases(t *testing.T) {
	b := mustParse(t, `
		x..
		xo.`)
	tests := []struct {
		name        string
		row, column int
		n           int
		want        string
	}{
		{name: "empty cell", row: 1, column: 1, n: 1, want: ""},
		{name: "outside below", row: -1, column: 0, n: 1, want: ""},
		{name: "outside right", row: 0, column: 3, n: 1, want: ""},
		{name: "outside above", row: 2, column: 0, n: 1, want: ""},
		{name: "n longer than the board", row: 0, column: 0, n: 9, want: ""},
		{name: "vertical pair", row: 0, column: 0, n: 2, want: "0,0 1,0"},
		{name: "n of 1", row: 0, column: 1, n: 1, want: "0,1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := b.LinesThrough(tt.row, tt.column, tt.n)
			if want := cells(t, tt.want); !slices.Equal(got, want) {
				t.Errorf("LinesThrough(%d, %d, %d) = %v, want %v", tt.row, tt.column, tt.n, got, want)
			}
		})
	}
}

func TestLongestRun(t *testing.T) {
	tests := []struct {
		name    string
		picture string
		x, o    int
	}{
		{name: "empty", picture: "....\n....", x: 0, o: 0},
		{name: "one disc each", picture: "....\nxo..", x: 1, o: 1},
		{name: "horizontal", picture: "....\nxxxo", x: 3, o: 1},
		{name: "vertical", picture: "o...\no...\nox..\nox..", x: 2, o: 4},
		{name: "diagonal", picture: "...x\n..xo\n.xoo\nxooo", x: 4, o: 3},
		{name: "anti-diagonal", picture: "x...\nox..\nxox.\nxoox", x: 4, o: 3},
		{name: "broken run", picture: "xx.xx", x: 2, o: 0},
		{name: "not across rows", picture: "x..\noxx", x: 2, o: 1},
		{name: "whole 1x1", picture: "o", x: 0, o: 1},
		{name: "column of 1", picture: "x\nx\nx\no", x: 3, o: 1},
		{name: "full board", picture: "xoxo\nxoxo\noxox\noxox", x: 2, o: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustParse(t, tt.picture)
			if got := b.LongestRun(game.Player1); got != tt.x {
				t.Errorf("LongestRun(Player1) = %d, want %d", got, tt.x)
			}
			if got := b.LongestRun(game.Player2); got != tt.o {
				t.Errorf("LongestRun(Player2) = %d, want %d", got, tt.o)
			}
			// Not a player: no discs, and it must not count empty cells
			// (which used to walk off the board forever).
			for _, p := range []game.Player{game.NoPlayer, game.Player(3), game.Player(255)} {
				if got := b.LongestRun(p); got != 0 {
					t.Errorf("LongestRun(%d) = %d, want 0", p, got)
				}
			}
		})
	}
}

func TestNewBoard(t *testing.T) {
	tests := []struct {
		name          string
		rows, columns int
		wantErr       error
	}{
		{name: "1x1", rows: 1, columns: 1},
		{name: "6x7", rows: 6, columns: 7},
		{name: "1x256", rows: 1, columns: game.MaxSize},
		{name: "256x256", rows: game.MaxSize, columns: game.MaxSize},
		{name: "zero rows", rows: 0, columns: 7, wantErr: game.ErrInvalidConfig},
		{name: "zero columns", rows: 6, columns: 0, wantErr: game.ErrInvalidConfig},
		{name: "negative", rows: -1, columns: -1, wantErr: game.ErrInvalidConfig},
		{name: "too many rows", rows: game.MaxSize + 1, columns: 7, wantErr: game.ErrInvalidConfig},
		{name: "too many columns", rows: 6, columns: game.MaxSize + 1, wantErr: game.ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := game.NewBoard(tt.rows, tt.columns)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("NewBoard(%d, %d) error = %v, want %v", tt.rows, tt.columns, err, tt.wantErr)
			}
			if err != nil {
				if b != nil {
					t.Errorf("NewBoard(%d, %d) = %v with error, want nil", tt.rows, tt.columns, b)
				}
				return
			}
			if got, want := b.Rows(), tt.rows; got != want {
				t.Errorf("Rows() = %d, want %d", got, want)
			}
			if got, want := b.Columns(), tt.columns; got != want {
				t.Errorf("Columns() = %d, want %d", got, want)
			}
			if got := b.Discs(); got != 0 {
				t.Errorf("Discs() = %d, want 0", got)
			}
			if b.Full() {
				t.Errorf("Full() = true on an empty board")
			}
		})
	}
}

func TestBoardDrop(t *testing.T) {
	b := mustParse(t, `
		x..
		x..
		xo.`)
	tests := []struct {
		name    string
		column  int
		player  game.Player
		wantRow int
		wantErr error
	}{
		{name: "full column", column: 0, player: game.Player2, wantErr: game.ErrColumnFull},
		{name: "negative column", column: -1, player: game.Player2, wantErr: game.ErrColumnOutOfRange},
		{name: "column past the right edge", column: 3, player: game.Player2, wantErr: game.ErrColumnOutOfRange},
		{name: "no player", column: 2, player: game.NoPlayer, wantErr: game.ErrInvalidPlayer},
		{name: "unknown player", column: 2, player: game.Player(7), wantErr: game.ErrInvalidPlayer},
		{name: "on top of a disc", column: 1, player: game.Player2, wantRow: 1},
		{name: "empty column", column: 2, player: game.Player1, wantRow: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := b.Clone()
			before := b.String()
			row, err := b.Drop(tt.column, tt.player)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Drop(%d, %v) error = %v, want %v", tt.column, tt.player, err, tt.wantErr)
			}
			if err != nil {
				if got := b.String(); got != before {
					t.Errorf("board changed after error:\n%s\nwant\n%s", got, before)
				}
				return
			}
			if row != tt.wantRow {
				t.Errorf("Drop(%d, %v) row = %d, want %d", tt.column, tt.player, row, tt.wantRow)
			}
			if got := b.Height(tt.column); got != tt.wantRow+1 {
				t.Errorf("Height(%d) = %d, want %d", tt.column, got, tt.wantRow+1)
			}
		})
	}
}

func TestBoardAccessors(t *testing.T) {
	b := mustParse(t, `
		x..
		xo.`)
	if got, want := b.At(1, 0), game.Player1; got != want {
		t.Errorf("At(1, 0) = %v, want %v", got, want)
	}
	if got, want := b.At(0, 1), game.Player2; got != want {
		t.Errorf("At(0, 1) = %v, want %v", got, want)
	}
	for _, c := range []game.Cell{{Row: -1, Column: 0}, {Row: 0, Column: -1}, {Row: 2, Column: 0}, {Row: 0, Column: 3}, {Row: 1, Column: 1}} {
		if got := b.At(c.Row, c.Column); got != game.NoPlayer {
			t.Errorf("At%v = %v, want nobody", c, got)
		}
	}
	for column, want := range []int{2, 1, 0} {
		if got := b.Height(column); got != want {
			t.Errorf("Height(%d) = %d, want %d", column, got, want)
		}
	}
	for _, column := range []int{-1, 3, 100} {
		if got := b.Height(column); got != 0 {
			t.Errorf("Height(%d) = %d, want 0", column, got)
		}
		if b.CanDrop(column) {
			t.Errorf("CanDrop(%d) = true outside the board", column)
		}
	}
	for column, want := range []bool{false, true, true} {
		if got := b.CanDrop(column); got != want {
			t.Errorf("CanDrop(%d) = %v, want %v", column, got, want)
		}
	}
	if got, want := b.Discs(), 3; got != want {
		t.Errorf("Discs() = %d, want %d", got, want)
	}

	c := b.Clone()
	if _, err := c.Drop(2, game.Player1); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "x..\nxo.\n"; got != want {
		t.Errorf("original changed by a drop on its clone: %q, want %q", got, want)
	}
	if got, want := c.String(), "x..\nxox\n"; got != want {
		t.Errorf("clone = %q, want %q", got, want)
	}
}

func TestParseBoardErrors(t *testing.T) {
	tests := []struct {
		name    string
		picture string
	}{
		{name: "empty", picture: ""},
		{name: "only blank lines", picture: "\n  \n\t\n"},
		{name: "ragged, shorter row", picture: "...\n..\n..."},
		{name: "ragged, longer row", picture: "...\n....\n..."},
		{name: "unknown character", picture: "...\n.y."},
		{name: "digit", picture: "1.."},
		{name: "unicode disc", picture: "●.."},
		{name: "floating disc", picture: ".x.\n..."},
		{name: "floating above a gap", picture: "x\n.\nx"},
		{name: "too wide", picture: strings.Repeat(".", game.MaxSize+1)},
		{name: "too tall", picture: strings.Repeat(".\n", game.MaxSize+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := game.ParseBoard(tt.picture)
			if !errors.Is(err, game.ErrInvalidBoard) {
				t.Fatalf("ParseBoard(%q) = %v, %v; want error wrapping ErrInvalidBoard", tt.picture, b, err)
			}
			if b != nil {
				t.Errorf("ParseBoard(%q) returned a board with its error", tt.picture)
			}
		})
	}
}

func TestParseBoardString(t *testing.T) {
	tests := []struct {
		name    string
		picture string
		want    string
		discs   int
		heights []int
	}{
		{name: "1x1 empty", picture: ".", want: ".\n", heights: []int{0}},
		{name: "1x1 full", picture: "X", want: "x\n", discs: 1, heights: []int{1}},
		{name: "upper case and spaces", picture: "  . O .\n  X x o  \n\n", want: ".o.\nxxo\n", discs: 4, heights: []int{1, 2, 1}},
		{name: "column", picture: ".\no\nx", want: ".\no\nx\n", discs: 2, heights: []int{2}},
		{name: "row", picture: "xo..ox", want: "xo..ox\n", discs: 4, heights: []int{1, 1, 0, 0, 1, 1}},
		{
			name: "6x7",
			picture: `
				.......
				.......
				...o...
				...x...
				..ox...
				.xoxo..`,
			want:    ".......\n.......\n...o...\n...x...\n..ox...\n.xoxo..\n",
			discs:   8,
			heights: []int{0, 1, 2, 4, 1, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustParse(t, tt.picture)
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := b.Discs(); got != tt.discs {
				t.Errorf("Discs() = %d, want %d", got, tt.discs)
			}
			var heights []int
			for c := range b.Columns() {
				heights = append(heights, b.Height(c))
			}
			if !slices.Equal(heights, tt.heights) {
				t.Errorf("heights = %v, want %v", heights, tt.heights)
			}
			again := mustParse(t, b.String())
			if got, want := again.String(), b.String(); got != want {
				t.Errorf("ParseBoard(String()).String() = %q, want %q", got, want)
			}
			if got, want := again.Discs(), b.Discs(); got != want {
				t.Errorf("round trip Discs() = %d, want %d", got, want)
			}
			if got, want := again.Full(), b.Full(); got != want {
				t.Errorf("round trip Full() = %v, want %v", got, want)
			}
		})
	}
}

func TestPlayerAndCellStrings(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "player 1", got: game.Player1.String(), want: "player 1"},
		{name: "player 2", got: game.Player2.String(), want: "player 2"},
		{name: "nobody", got: game.NoPlayer.String(), want: "nobody"},
		{name: "cell", got: game.Cell{Row: 2, Column: 5}.String(), want: "(2,5)"},
		{name: "other of 1", got: game.Player1.Other().String(), want: "player 2"},
		{name: "other of 2", got: game.Player2.Other().String(), want: "player 1"},
		{name: "other of nobody", got: game.NoPlayer.Other().String(), want: "nobody"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
	for _, p := range []game.Player{game.NoPlayer, game.Player(3)} {
		if p.Valid() {
			t.Errorf("Player(%d).Valid() = true", p)
		}
	}
}
