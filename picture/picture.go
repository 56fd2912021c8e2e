// Package picture draws a Connect N board as a PNG image, the way the
// classroom assignment behind ConnectN drew it on a canvas (seed 002): each
// cell a square, each disc a circle with an outline, empty cells white. The
// winning line gets a ring and the last disc played a dot, as on the emoji
// board; a theme whose two disc colours are as light as each other marks
// one player's discs with a cross (see Style.Distinct).
//
// It also draws a round's evaluation chart (EvalChart, with
// gonum.org/v1/plot) and a match's result card (Card). Their text is set in
// the Liberation Sans that gonum/plot embeds; CanDraw says which strings it
// can draw, and text it cannot draw is left out, never drawn as boxes. The
// caller passes every word already in the reader's language: this package
// knows no catalog. Describe, EvalChart.Facts and Card.Facts return the
// facts an alt text needs. It imports only the game package, gonum/plot
// and the standard library.
//
// Usage:
//
//	err := picture.Encode(w, round, picture.Classic, 2)
//	err = picture.EncodeCard(w, picture.Card{Round: round, Style: picture.Classic, ...})
//	err = picture.EncodeEvalChart(w, picture.EvalChart{Plies: verdicts, ...})
package picture

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"github.com/connectn/connectn/game"
)

// Geometry of one cell at scale 1, in pixels: the assignment's 25 × 25
// squares holding circles of radius 10 with a 2-pixel outline.
const (
	cellSize = 25
	radius   = 10
	outline  = 2
	// MaxScale bounds the scale factor: a 256 × 256 board at scale 8 is
	// already 51,200 pixels wide.
	MaxScale = 8
)

// Style is the colours of a picture, and the marks that tell the two
// players' discs apart by shape where their colours are close in lightness
// (see Distinct).
type Style struct {
	// Frame is the board around the holes; Empty an empty hole; Outline
	// the circle around every hole.
	Frame, Empty, Outline color.RGBA
	// Discs holds each player's disc, indexed by game.Player (index 0
	// unused); Ring marks the discs of the winning line and the last disc.
	Discs [3]color.RGBA
	Ring  color.RGBA
	// Marks holds the shape drawn on each player's discs, indexed by
	// game.Player (index 0 unused), in the Outline colour: MarkNone for a
	// plain disc.
	Marks [3]Mark
}

// Mark is a shape drawn on every disc of one player, so that the two
// players' discs differ in shape as well as in colour: a reader who cannot
// tell the colours apart (a colour vision deficiency, a grey-scale print)
// still can tell the discs apart. It stays clear of the winning line's
// ring (from 62% to 80% of the disc's radius) and is drawn under the last
// disc's dot.
type Mark uint8

// The marks.
const (
	// MarkNone leaves the disc plain.
	MarkNone Mark = iota
	// MarkCross draws a diagonal cross (×) whose arms reach 50% of the
	// disc's radius from its centre, each 16% of the radius wide.
	MarkCross
)

// The styles of the bot's themes: red and yellow on blue, blue and orange on
// grey (apart under colour vision deficiencies), purple and green on wood.
// Each style's two discs can be told apart without their hues (see
// Distinct): red and yellow differ in lightness (a contrast of 3.05 to 1),
// while blue and orange (1.04 to 1) and purple and green (1.09 to 1) are
// as light as each other, so Player 2's discs carry a cross in those two.
var (
	Classic = Style{
		Frame: color.RGBA{0x1f, 0x5f, 0xc8, 0xff}, Empty: color.RGBA{0xff, 0xff, 0xff, 0xff}, Outline: color.RGBA{0x10, 0x20, 0x40, 0xff},
		Discs: [3]color.RGBA{{}, {0xdd, 0x2e, 0x44, 0xff}, {0xfd, 0xcb, 0x58, 0xff}}, Ring: color.RGBA{0xff, 0xff, 0xff, 0xff},
	}
	ColorBlind = Style{
		Frame: color.RGBA{0x5c, 0x5f, 0x66, 0xff}, Empty: color.RGBA{0xff, 0xff, 0xff, 0xff}, Outline: color.RGBA{0x20, 0x20, 0x20, 0xff},
		Discs: [3]color.RGBA{{}, {0x55, 0xac, 0xee, 0xff}, {0xf4, 0x90, 0x0c, 0xff}}, Ring: color.RGBA{0x00, 0x00, 0x00, 0xff},
		Marks: [3]Mark{MarkNone, MarkNone, MarkCross},
	}
	Forest = Style{
		Frame: color.RGBA{0xa0, 0x60, 0x40, 0xff}, Empty: color.RGBA{0xff, 0xf8, 0xe8, 0xff}, Outline: color.RGBA{0x40, 0x20, 0x10, 0xff},
		Discs: [3]color.RGBA{{}, {0xaa, 0x8e, 0xd6, 0xff}, {0x78, 0xb1, 0x59, 0xff}}, Ring: color.RGBA{0xff, 0xff, 0xff, 0xff},
		Marks: [3]Mark{MarkNone, MarkNone, MarkCross},
	}
)

// Draw returns round r's board as an image of (columns × 25 × scale) by
// (rows × 25 × scale) pixels, top row first as on a real board, in style
// st. scale is from 1 to MaxScale; anything else returns an error.
func Draw(r *game.Round, st Style, scale int) (*image.RGBA, error) {
	if scale < 1 || scale > MaxScale {
		return nil, fmt.Errorf("picture scale %d: want 1 to %d", scale, MaxScale)
	}
	cell := cellSize * scale
	img := image.NewRGBA(image.Rect(0, 0, r.Columns()*cell, r.Rows()*cell))
	drawBoard(img, r, st, 0, 0, cell)
	return img, nil
}

// drawBoard draws round r's board in style st into img, its top-left
// corner at (x0, y0), each cell a square of cell pixels.
func drawBoard(img *image.RGBA, r *game.Round, st Style, x0, y0, cell int) {
	rows, columns := r.Rows(), r.Columns()
	last, hasLast := r.LastMove()
	for row := 0; row < rows; row++ {
		for c := 0; c < columns; c++ {
			p := r.At(row, c)
			fill, mark := st.Empty, MarkNone
			if p.Valid() {
				fill, mark = st.Discs[p], st.Marks[p]
			}
			at := game.Cell{Row: row, Column: c}
			ring, dot := r.InLine(at), hasLast && at == last && !r.InLine(at)
			// Row 0 is at the bottom.
			drawCell(img, x0+c*cell, y0+(rows-1-row)*cell, cell, st, fill, mark, ring, dot)
		}
	}
}

// Encode writes round r's board as a PNG to w; see Draw.
func Encode(w io.Writer, r *game.Round, st Style, scale int) error {
	img, err := Draw(r, st, scale)
	if err != nil {
		return err
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("encode the board picture: %w", err)
	}
	return nil
}

// drawCell paints one square of size pixels with its top-left corner at
// (x0, y0): the frame, then the hole or disc with its outline, the disc's
// mark, then a ring inside the disc for the winning line, or a dot in its
// centre for the last disc. The geometry is the assignment's at any size:
// a hole of radius 10/25 of the cell inside an outline 2/25 wide. Edges
// are smoothed by sampling each pixel 4 × 4 times; a pixel that no edge
// crosses is sampled once, which gives the same colour.
func drawCell(img *image.RGBA, x0, y0, size int, st Style, fill color.RGBA, mark Mark, ring, dot bool) {
	cx, cy := float64(size)/2, float64(size)/2
	rOuter := float64(size*(2*radius+outline)) / (2 * cellSize)
	rInner := float64(size*(2*radius-outline)) / (2 * cellSize)
	arm, half := rInner*0.5, rInner*0.08*math.Sqrt2
	// The circles where the colour changes: the outline's edges, the
	// ring's, the dot's and the end of the mark's arms.
	edges := [...]float64{rOuter, rInner, rInner * 0.62, rInner * 0.8, rInner * 0.3, arm}
	colour := func(px, py float64) color.RGBA {
		d2 := px*px + py*py
		switch {
		case d2 <= rInner*rInner:
			c := fill
			if mark == MarkCross && d2 <= arm*arm && (math.Abs(px-py) <= half || math.Abs(px+py) <= half) {
				c = st.Outline
			}
			if ring && d2 >= sq(rInner*0.62) && d2 <= sq(rInner*0.8) {
				c = st.Ring
			}
			if dot && d2 <= sq(rInner*0.3) {
				c = st.Ring
			}
			return c
		case d2 <= rOuter*rOuter:
			return st.Outline
		}
		return st.Frame
	}
	// uniform reports whether every sample of the pixel centred at (px,
	// py) is the colour of its centre: no edge passes within half the
	// pixel's diagonal.
	const reach = 0.5 * math.Sqrt2
	uniform := func(px, py float64) bool {
		d := math.Hypot(px, py)
		for _, r := range edges {
			if math.Abs(d-r) <= reach {
				return false
			}
		}
		if mark == MarkCross && d <= arm+reach {
			for _, v := range [...]float64{math.Abs(px - py), math.Abs(px + py)} {
				if math.Abs(v-half) <= 2*reach { // |px ∓ py| moves up to twice the reach
					return false
				}
			}
		}
		return true
	}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			px, py := float64(x)+0.5-cx, float64(y)+0.5-cy
			if uniform(px, py) {
				img.SetRGBA(x0+x, y0+y, colour(px, py))
				continue
			}
			var acc [4]float64
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					c := colour(float64(x)+(float64(sx)+0.5)/4-cx, float64(y)+(float64(sy)+0.5)/4-cy)
					acc[0] += float64(c.R)
					acc[1] += float64(c.G)
					acc[2] += float64(c.B)
					acc[3] += float64(c.A)
				}
			}
			img.SetRGBA(x0+x, y0+y, color.RGBA{uint8(acc[0]/16 + 0.5), uint8(acc[1]/16 + 0.5), uint8(acc[2]/16 + 0.5), uint8(acc[3]/16 + 0.5)})
		}
	}
}

func sq(v float64) float64 { return v * v }
