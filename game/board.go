package game

import (
	"fmt"
	"strings"
)

// Player identifies one of the two sides of a match, and the disc it owns on
// the board. NoPlayer marks an empty cell or "nobody" (no winner yet, a draw).
type Player uint8

// The players. Player1 plays the x (red) discs, Player2 the o (yellow) discs.
const (
	NoPlayer Player = iota
	Player1
	Player2
)

// String returns "player 1", "player 2" or "nobody".
func (p Player) String() string {
	switch p {
	case Player1:
		return "player 1"
	case Player2:
		return "player 2"
	default:
		return "nobody"
	}
}

// Other returns the opponent of p: Player1 for Player2 and the reverse.
// Other(NoPlayer) is NoPlayer.
func (p Player) Other() Player {
	switch p {
	case Player1:
		return Player2
	case Player2:
		return Player1
	default:
		return NoPlayer
	}
}

// Valid reports whether p is Player1 or Player2.
func (p Player) Valid() bool { return p == Player1 || p == Player2 }

// Cell is a position on a board. Row 0 is the bottom row, Column 0 the
// leftmost column; both are zero-based.
type Cell struct {
	Row, Column int
}

// String returns the cell as "(row,column)".
func (c Cell) String() string { return fmt.Sprintf("(%d,%d)", c.Row, c.Column) }

// directions are the four line directions as (row, column) steps:
// horizontal, vertical, diagonal (rising to the right) and anti-diagonal
// (falling to the right).
var directions = [4][2]int{{0, 1}, {1, 0}, {1, 1}, {-1, 1}}

// Board is a grid of rows x columns cells under gravity: a disc dropped in a
// column falls to the lowest empty cell. The zero Board is not usable; create
// one with NewBoard or ParseBoard.
type Board struct {
	rows, columns int
	cells         []Player // row-major, row 0 at the bottom
	heights       []int    // discs in each column
	discs         int
}

// NewBoard returns an empty board of the given size. Both dimensions must be
// at least 1; otherwise it returns an error wrapping ErrInvalidConfig.
func NewBoard(rows, columns int) (*Board, error) {
	if rows < 1 || columns < 1 {
		return nil, fmt.Errorf("board of %dx%d: rows and columns must be at least 1: %w", rows, columns, ErrInvalidConfig)
	}
	if rows > MaxSize || columns > MaxSize {
		return nil, fmt.Errorf("board of %dx%d: rows and columns must be at most %d: %w", rows, columns, MaxSize, ErrInvalidConfig)
	}
	return &Board{
		rows:    rows,
		columns: columns,
		cells:   make([]Player, rows*columns),
		heights: make([]int, columns),
	}, nil
}

// Rows returns the number of rows.
func (b *Board) Rows() int { return b.rows }

// Columns returns the number of columns.
func (b *Board) Columns() int { return b.columns }

// Discs returns how many discs are on the board.
func (b *Board) Discs() int { return b.discs }

// At returns the disc at (row, column), row 0 being the bottom row, or
// NoPlayer when the cell is empty or outside the board.
func (b *Board) At(row, column int) Player {
	if !b.inside(row, column) {
		return NoPlayer
	}
	return b.cells[row*b.columns+column]
}

// Height returns the number of discs in column, 0 for a column outside the
// board.
func (b *Board) Height(column int) int {
	if column < 0 || column >= b.columns {
		return 0
	}
	return b.heights[column]
}

// CanDrop reports whether column is on the board and not full.
func (b *Board) CanDrop(column int) bool {
	return column >= 0 && column < b.columns && b.heights[column] < b.rows
}

// Full reports whether every cell holds a disc.
func (b *Board) Full() bool { return b.discs == b.rows*b.columns }

// Drop lets p's disc fall into column (zero-based) and returns the row it
// came to rest in. It returns ErrColumnOutOfRange or ErrColumnFull (wrapped
// with the column) and changes nothing when the drop is impossible, and
// ErrInvalidPlayer when p is not Player1 or Player2.
func (b *Board) Drop(column int, p Player) (row int, err error) {
	if !p.Valid() {
		return 0, fmt.Errorf("drop by player %d: %w", uint8(p), ErrInvalidPlayer)
	}
	if column < 0 || column >= b.columns {
		return 0, fmt.Errorf("column %d of %d: %w", column+1, b.columns, ErrColumnOutOfRange)
	}
	row = b.heights[column]
	if row >= b.rows {
		return 0, fmt.Errorf("column %d: %w", column+1, ErrColumnFull)
	}
	b.cells[row*b.columns+column] = p
	b.heights[column]++
	b.discs++
	return row, nil
}

// Clone returns an independent copy of b.
func (b *Board) Clone() *Board {
	c := *b
	c.cells = append([]Player(nil), b.cells...)
	c.heights = append([]int(nil), b.heights...)
	return &c
}

func (b *Board) inside(row, column int) bool {
	return row >= 0 && row < b.rows && column >= 0 && column < b.columns
}

// run counts the discs of the same player as (row, column) that lie in
// an unbroken run along direction d through that cell, the cell included,
// and returns the run's two ends. It costs O(length of the run).
func (b *Board) run(row, column int, d [2]int) (length int, from, to Cell) {
	p := b.At(row, column)
	if p == NoPlayer {
		return 0, Cell{row, column}, Cell{row, column}
	}
	from, to = Cell{row, column}, Cell{row, column}
	length = 1
	for r, c := row-d[0], column-d[1]; b.At(r, c) == p; r, c = r-d[0], c-d[1] {
		from = Cell{r, c}
		length++
	}
	for r, c := row+d[0], column+d[1]; b.At(r, c) == p; r, c = r+d[0], c+d[1] {
		to = Cell{r, c}
		length++
	}
	return length, from, to
}

// LinesThrough returns every cell of each line of at least n discs of the
// same player that passes through (row, column), in direction order
// (horizontal, vertical, diagonal, anti-diagonal) and along each line from
// its left end (the bottom end of a vertical line, the top end of an
// anti-diagonal one). The cell itself appears once even when it lies on
// several lines. It returns nil when the cell is empty or no such line
// exists. Checking only the lines through the last disc costs O(n) per
// direction, which is how Match detects wins.
func (b *Board) LinesThrough(row, column, n int) []Cell {
	var cells []Cell
	seen := false
	for _, d := range directions {
		length, from, _ := b.run(row, column, d)
		if length < n || length == 0 {
			continue
		}
		for i, r, c := 0, from.Row, from.Column; i < length; i, r, c = i+1, r+d[0], c+d[1] {
			if r == row && c == column {
				if seen {
					continue
				}
				seen = true
			}
			cells = append(cells, Cell{r, c})
		}
	}
	return cells
}

// LongestRun returns the length of p's longest unbroken line of discs on the
// board in any of the four directions, 0 when p has no disc or is not
// Player1 or Player2. It scans the whole board: O(rows x columns).
func (b *Board) LongestRun(p Player) int {
	if !p.Valid() {
		// Cells outside the board read as NoPlayer: counting empty cells
		// would walk off the board forever.
		return 0
	}
	best := 0
	for row := 0; row < b.rows; row++ {
		for column := 0; column < b.columns; column++ {
			if b.At(row, column) != p {
				continue
			}
			for _, d := range directions {
				// Count only from the start of each run.
				if b.At(row-d[0], column-d[1]) == p {
					continue
				}
				n := 1
				for r, c := row+d[0], column+d[1]; b.At(r, c) == p; r, c = r+d[0], c+d[1] {
					n++
				}
				best = max(best, n)
			}
		}
	}
	return best
}

// String draws the board top row first, one line per row, with '.' for an
// empty cell, 'x' for Player1 and 'o' for Player2. ParseBoard reads it back.
func (b *Board) String() string {
	var sb strings.Builder
	for row := b.rows - 1; row >= 0; row-- {
		for column := 0; column < b.columns; column++ {
			sb.WriteByte(".xo"[b.At(row, column)])
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// ParseBoard builds a board from an ASCII picture, top row first: one line
// per row, '.' for an empty cell, 'x' or 'X' for Player1, 'o' or 'O' for
// Player2. Blank lines and spaces are ignored, so pictures can be indented
// in test tables. It returns an error wrapping ErrInvalidBoard when rows
// differ in width, a character is unknown, or a disc floats above an empty
// cell.
func ParseBoard(picture string) (*Board, error) {
	var lines []string
	for _, line := range strings.Split(picture, "\n") {
		line = strings.ReplaceAll(strings.TrimSpace(line), " ", "")
		if line != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("empty picture: %w", ErrInvalidBoard)
	}
	b, err := NewBoard(len(lines), len(lines[0]))
	if err != nil {
		return nil, fmt.Errorf("picture: %w: %w", ErrInvalidBoard, err)
	}
	for i, line := range lines {
		if len(line) != b.columns {
			return nil, fmt.Errorf("picture line %d has %d cells, want %d: %w", i+1, len(line), b.columns, ErrInvalidBoard)
		}
		row := b.rows - 1 - i
		for column, ch := range []byte(line) {
			var p Player
			switch ch {
			case '.':
				continue
			case 'x', 'X':
				p = Player1
			case 'o', 'O':
				p = Player2
			default:
				return nil, fmt.Errorf("picture line %d: unknown cell %q: %w", i+1, ch, ErrInvalidBoard)
			}
			b.cells[row*b.columns+column] = p
			b.discs++
		}
	}
	for column := 0; column < b.columns; column++ {
		h := 0
		for h < b.rows && b.At(h, column) != NoPlayer {
			h++
		}
		for row := h; row < b.rows; row++ {
			if b.At(row, column) != NoPlayer {
				return nil, fmt.Errorf("picture: disc floats at column %d: %w", column+1, ErrInvalidBoard)
			}
		}
		b.heights[column] = h
	}
	return b, nil
}
