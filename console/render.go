package console

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
)

// ANSI escape sequences used when colour is on.
const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
)

// painter turns discs and player names into text, coloured or plain. The
// board and the discs are layout; a player's label is read from the catalog
// through l.
type painter struct {
	l     *locale.Localizer
	color bool
	names [3]string // indexed by game.Player
}

// disc returns p's disc: x or o, upper case when it is part of a winning line,
// red or yellow (and bold when upper case) when colour is on.
func (pt painter) disc(p game.Player, upper bool) string {
	var s string
	switch p {
	case game.Player1:
		s = "x"
	case game.Player2:
		s = "o"
	default:
		return "."
	}
	if upper {
		s = strings.ToUpper(s)
	}
	if !pt.color {
		return s
	}
	code := ansiRed
	if p == game.Player2 {
		code = ansiYellow
	}
	if upper {
		code = ansiBold + code
	}
	return code + s + ansiReset
}

// label returns p's name followed by their disc, as "Alice (x)".
func (pt painter) label(p game.Player) string {
	return pt.l.T("console_player_label", "Name", pt.names[p], "Disc", pt.disc(p, false))
}

// board draws b top row first between two column headers, each line ending
// in a newline. Cells of r's winning line are drawn in upper case; r may be
// nil. Columns are numbered from first (0 or 1). When every number fits in
// one character each cell is one character wide with nothing between cells;
// otherwise every cell and number is right-aligned in a field as wide as the
// widest number, and fields are separated by one space.
func (pt painter) board(b *game.Board, r *game.Round, first int) string {
	width := len(strconv.Itoa(first + b.Columns() - 1))
	sep, pad := "", ""
	if width > 1 {
		sep, pad = " ", strings.Repeat(" ", width-1)
	}
	var header strings.Builder
	for c := 0; c < b.Columns(); c++ {
		if c > 0 {
			header.WriteString(sep)
		}
		fmt.Fprintf(&header, "%*d", width, first+c)
	}
	header.WriteByte('\n')
	var sb strings.Builder
	sb.WriteString(header.String())
	for row := b.Rows() - 1; row >= 0; row-- {
		for c := 0; c < b.Columns(); c++ {
			if c > 0 {
				sb.WriteString(sep)
			}
			sb.WriteString(pad)
			cell := game.Cell{Row: row, Column: c}
			sb.WriteString(pt.disc(b.At(row, c), r != nil && r.InLine(cell)))
		}
		sb.WriteByte('\n')
	}
	sb.WriteString(header.String())
	return sb.String()
}
