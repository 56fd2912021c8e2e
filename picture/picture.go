// Package picture draws a Connect N board as a PNG image, the way the
// classroom assignment behind ConnectN drew it on a canvas (seed 002): each
// cell a square, each disc a circle with an outline, empty cells white. The
// winning line gets a ring and the last disc played a dot, as on the emoji
// board. It imports only the game package and the standard library.
//
// Usage:
//
//	err := picture.Encode(w, round, picture.Classic, 2)
package picture

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"

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

// Style is the colours of a picture.
type Style struct {
	// Frame is the board around the holes; Empty an empty hole; Outline
	// the circle around every hole.
	Frame, Empty, Outline color.RGBA
	// Discs holds each player's disc, indexed by game.Player (index 0
	// unused); Ring marks the discs of the winning line and the last disc.
	Discs [3]color.RGBA
	Ring  color.RGBA
}

// The styles of the bot's themes: red and yellow on blue, blue and orange on
// grey (apart under colour vision deficiencies), purple and green on wood.
var (
	Classic = Style{
		Frame: color.RGBA{0x1f, 0x5f, 0xc8, 0xff}, Empty: color.RGBA{0xff, 0xff, 0xff, 0xff}, Outline: color.RGBA{0x10, 0x20, 0x40, 0xff},
		Discs: [3]color.RGBA{{}, {0xdd, 0x2e, 0x44, 0xff}, {0xfd, 0xcb, 0x58, 0xff}}, Ring: color.RGBA{0xff, 0xff, 0xff, 0xff},
	}
	ColorBlind = Style{
		Frame: color.RGBA{0x5c, 0x5f, 0x66, 0xff}, Empty: color.RGBA{0xff, 0xff, 0xff, 0xff}, Outline: color.RGBA{0x20, 0x20, 0x20, 0xff},
		Discs: [3]color.RGBA{{}, {0x55, 0xac, 0xee, 0xff}, {0xf4, 0x90, 0x0c, 0xff}}, Ring: color.RGBA{0x00, 0x00, 0x00, 0xff},
	}
	Forest = Style{
		Frame: color.RGBA{0xa0, 0x60, 0x40, 0xff}, Empty: color.RGBA{0xff, 0xf8, 0xe8, 0xff}, Outline: color.RGBA{0x40, 0x20, 0x10, 0xff},
		Discs: [3]color.RGBA{{}, {0xaa, 0x8e, 0xd6, 0xff}, {0x78, 0xb1, 0x59, 0xff}}, Ring: color.RGBA{0xff, 0xff, 0xff, 0xff},
	}
)

// Draw returns round r's board as an image of (columns × 25 × scale) by
// (rows × 25 × scale) pixels, top row first as on a real board, in style
// st. scale is from 1 to MaxScale; anything else returns an error.
func Draw(r *game.Round, st Style, scale int) (*image.RGBA, error) {
	if scale < 1 || scale > MaxScale {
		return nil, fmt.Errorf("picture scale %d: want 1 to %d", scale, MaxScale)
	}
	b := r.Board()
	rows, columns := b.Rows(), b.Columns()
	cell := cellSize * scale
	img := image.NewRGBA(image.Rect(0, 0, columns*cell, rows*cell))
	last, hasLast := r.LastMove()
	for row := 0; row < rows; row++ {
		for c := 0; c < columns; c++ {
			x0, y0 := c*cell, (rows-1-row)*cell // row 0 is at the bottom
			p := b.At(row, c)
			fill := st.Empty
			if p.Valid() {
				fill = st.Discs[p]
			}
			at := game.Cell{Row: row, Column: c}
			ring, dot := r.InLine(at), hasLast && at == last && !r.InLine(at)
			drawCell(img, x0, y0, scale, st, fill, ring, dot)
		}
	}
	return img, nil
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

// drawCell paints one square: the frame, then the hole or disc with its
// outline, then a ring inside the disc for the winning line, or a dot in its
// centre for the last disc. Edges are smoothed by sampling each pixel 4 × 4
// times.
func drawCell(img *image.RGBA, x0, y0, scale int, st Style, fill color.RGBA, ring, dot bool) {
	size := cellSize * scale
	cx, cy := float64(size)/2, float64(size)/2
	rOuter := float64(radius*scale) + float64(outline*scale)/2
	rInner := float64(radius*scale) - float64(outline*scale)/2
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var acc [4]float64
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					px, py := float64(x)+(float64(sx)+0.5)/4-cx, float64(y)+(float64(sy)+0.5)/4-cy
					d2 := px*px + py*py
					c := st.Frame
					switch {
					case d2 <= rInner*rInner:
						c = fill
						if ring && d2 >= sq(rInner*0.62) && d2 <= sq(rInner*0.8) {
							c = st.Ring
						}
						if dot && d2 <= sq(rInner*0.3) {
							c = st.Ring
						}
					case d2 <= rOuter*rOuter:
						c = st.Outline
					}
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
