package picture

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Crosstable is a round robin's table of results, as chess tournaments
// print it: a row per player in the order of the final standings, their
// number and name, their result against each other player in the column
// of that player's number (the diagonal shaded), and their points. Every
// text is passed in, already in the reader's language, and drawn only
// where CanDraw accepts it: a name it refuses leaves its row with the
// number alone, and the caller gives the names in its message.
type Crosstable struct {
	// Title is drawn above the table; empty for none.
	Title string
	// Players are the rows, from the winner down: 1 to
	// MaxCrosstablePlayers.
	Players []CrosstableRow
	// Cells[i][j] is player i's results against player j ("1", "½", "0",
	// "+" and "−" for a win and a loss by forfeit, "1 ½" for two games),
	// "" where they did not meet; Cells[i][i] is not drawn. As many rows
	// and columns as Players.
	Cells [][]string
	// PointsLabel heads the column of points (for example "Pts").
	PointsLabel string
}

// CrosstableRow is one player of a crosstable.
type CrosstableRow struct {
	// Name is drawn when CanDraw accepts it (shortened to fit with an
	// ellipsis); otherwise the row shows its number only.
	Name string
	// Points are the player's points, already written ("4½").
	Points string
}

// MaxCrosstablePlayers is the most players a crosstable draws: 32 columns
// of results are as wide as a picture can be and still be read.
const MaxCrosstablePlayers = 32

// The crosstable's layout, in pixels.
const (
	crossPad    = 24
	crossTitle  = 56 // the title's band, when there is a title
	crossNumber = 44 // the column of numbers
	crossName   = 260
	crossPoints = 76
	crossMaxCel = 56
	crossMinCel = 34
	crossWidth  = 1200 // the widest the table grows before its cells shrink
)

var (
	crossHeader   = color.RGBA{0x2b, 0x2d, 0x31, 0xff}
	crossZebra    = color.RGBA{0xec, 0xed, 0xf0, 0xff}
	crossDiagonal = color.RGBA{0x9a, 0x9c, 0xa3, 0xff}
	crossWin      = color.RGBA{0xd4, 0xef, 0xdc, 0xff}
	crossLoss     = color.RGBA{0xf6, 0xd9, 0xdc, 0xff}
	crossDraw     = color.RGBA{0xfb, 0xf0, 0xc9, 0xff}
	crossLine     = color.RGBA{0xc8, 0xca, 0xd0, 0xff}
	white         = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// Validate returns an error wrapping ErrInvalid when c cannot be drawn: no
// player, more than MaxCrosstablePlayers, or cells of another shape than
// the players'.
func (c Crosstable) Validate() error {
	n := len(c.Players)
	switch {
	case n == 0:
		return fmt.Errorf("crosstable without players: %w", ErrInvalid)
	case n > MaxCrosstablePlayers:
		return fmt.Errorf("crosstable of %d players, want at most %d: %w", n, MaxCrosstablePlayers, ErrInvalid)
	case len(c.Cells) != n:
		return fmt.Errorf("crosstable with %d rows of cells for %d players: %w", len(c.Cells), n, ErrInvalid)
	}
	for i, row := range c.Cells {
		if len(row) != n {
			return fmt.Errorf("crosstable row %d has %d cells for %d players: %w", i+1, len(row), n, ErrInvalid)
		}
	}
	return nil
}

// crossLayout is where a crosstable's parts go.
type crossLayout struct {
	cell, width, height, top int
}

func (c Crosstable) layout() crossLayout {
	n := len(c.Players)
	cell := max(crossMinCel, min(crossMaxCel, (crossWidth-2*crossPad-crossNumber-crossName-crossPoints)/n))
	l := crossLayout{cell: cell, top: crossPad}
	if drawable(c.Title) != "" {
		l.top += crossTitle
	}
	l.width = 2*crossPad + crossNumber + crossName + n*cell + crossPoints
	l.height = l.top + (n+1)*cell + crossPad
	return l
}

// DrawCrosstable draws c on a light background, as wide as its columns
// need (at most about 1,300 pixels for 32 players): the title, a dark
// header row with each column's player number and the points' label,
// then a row per player on alternate shades, with their number, name,
// their results (a win on green, a loss on red, a draw on yellow, the
// diagonal grey) and their points in bold. It returns an error wrapping
// ErrInvalid for a crosstable Validate refuses.
func DrawCrosstable(c Crosstable) (*image.RGBA, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	l := c.layout()
	n := len(c.Players)
	W, H := vg.Length(l.width), vg.Length(l.height)
	canvas := vgimg.NewWith(vgimg.UseWH(W, H), vgimg.UseDPI(72), vgimg.UseBackgroundColor(cardBackground))
	dc := draw.New(canvas)
	y := func(imgY int) vg.Length { return H - vg.Length(imgY) }
	rect := func(x0, y0, x1, y1 int, col color.Color) {
		dc.FillPolygon(col, []vg.Point{{X: vg.Length(x0), Y: y(y0)}, {X: vg.Length(x1), Y: y(y0)}, {X: vg.Length(x1), Y: y(y1)}, {X: vg.Length(x0), Y: y(y1)}})
	}
	if t := drawable(c.Title); t != "" {
		sty := textStyle(boldFont, 30, ink, text.XLeft, text.YCenter)
		dc.FillText(sty, vg.Point{X: crossPad, Y: y(crossPad + crossTitle/2 - 4)}, fit(sty, t, W-2*crossPad))
	}
	cell := l.cell
	left := crossPad
	cellsX := left + crossNumber + crossName
	pointsX := cellsX + n*cell
	right := pointsX + crossPoints
	size := vg.Length(min(24, cell*45/100))

	// The header row: the numbers over the columns of results.
	rect(left, l.top, right, l.top+cell, crossHeader)
	head := textStyle(boldFont, size, white, text.XCenter, text.YCenter)
	for j := range n {
		dc.FillText(head, vg.Point{X: vg.Length(cellsX + j*cell + cell/2), Y: y(l.top + cell/2)}, strconv.Itoa(j+1))
	}
	if p := drawable(c.PointsLabel); p != "" {
		dc.FillText(head, vg.Point{X: vg.Length(pointsX + crossPoints/2), Y: y(l.top + cell/2)}, fit(head, p, crossPoints-8))
	}

	plain := textStyle(sansFont, size, ink, text.XCenter, text.YCenter)
	bold := textStyle(boldFont, size, ink, text.XCenter, text.YCenter)
	nameStyle := textStyle(sansFont, size, ink, text.XLeft, text.YCenter)
	number := textStyle(boldFont, size, muted, text.XCenter, text.YCenter)
	for i, p := range c.Players {
		top := l.top + (i+1)*cell
		mid := y(top + cell/2)
		if i%2 == 1 {
			rect(left, top, right, top+cell, crossZebra)
		} else {
			rect(left, top, right, top+cell, white)
		}
		dc.FillText(number, vg.Point{X: vg.Length(left + crossNumber/2), Y: mid}, strconv.Itoa(i+1))
		if name := drawable(p.Name); name != "" {
			dc.FillText(nameStyle, vg.Point{X: vg.Length(left + crossNumber + 8), Y: mid}, fit(nameStyle, name, crossName-16))
		}
		for j := range n {
			x := cellsX + j*cell
			if i == j {
				rect(x+1, top+1, x+cell-1, top+cell-1, crossDiagonal)
				continue
			}
			v := drawable(c.Cells[i][j])
			if tint, ok := cellTint(v); ok {
				rect(x+1, top+1, x+cell-1, top+cell-1, tint)
			}
			if v != "" {
				dc.FillText(plain, vg.Point{X: vg.Length(x + cell/2), Y: mid}, fit(plain, v, vg.Length(cell-4)))
			}
		}
		if pts := drawable(p.Points); pts != "" {
			dc.FillText(bold, vg.Point{X: vg.Length(pointsX + crossPoints/2), Y: mid}, fit(bold, pts, crossPoints-8))
		}
	}
	// The lines between the columns of results and around the table.
	dc.SetColor(crossLine)
	dc.SetLineWidth(1)
	for j := 0; j <= n; j++ {
		x := vg.Length(cellsX + j*cell)
		dc.StrokeLine2(draw.LineStyle{Color: crossLine, Width: 1}, x, y(l.top+cell), x, y(l.top+(n+1)*cell))
	}
	bottom := y(l.top + (n+1)*cell)
	dc.StrokeLine2(draw.LineStyle{Color: crossLine, Width: 1}, vg.Length(left), bottom, vg.Length(right), bottom)
	return canvas.Image().(*image.RGBA), nil
}

// cellTint returns the shade of a cell of results: green for wins only
// (and wins by forfeit), red for losses only, yellow for anything else
// played; none for an empty cell.
func cellTint(v string) (color.RGBA, bool) {
	if strings.TrimSpace(v) == "" {
		return color.RGBA{}, false
	}
	wins, losses := 0, 0
	fields := strings.Fields(v)
	for _, f := range fields {
		switch f {
		case "1", "+":
			wins++
		case "0", "−", "-":
			losses++
		}
	}
	switch {
	case wins == len(fields):
		return crossWin, true
	case losses == len(fields):
		return crossLoss, true
	}
	return crossDraw, true
}

// EncodeCrosstable writes c drawn by DrawCrosstable as a PNG to w,
// compressed for speed (see fastPNG).
func EncodeCrosstable(w io.Writer, c Crosstable) error {
	img, err := DrawCrosstable(c)
	if err != nil {
		return err
	}
	if err := fastPNG.Encode(w, img); err != nil {
		return fmt.Errorf("encode the crosstable: %w", err)
	}
	return nil
}
