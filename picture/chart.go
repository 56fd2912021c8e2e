package picture

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
)

// Chart is the evaluation of every ply of a round, as chess sites chart a
// game: one point per disc, its value from Player 1's side. It is drawn by
// hand, without axes or legend; EvalChart supersedes it, and it stays, with
// DrawChart and EncodeChart unchanged, only until the bot switches to
// EvalChart.
type Chart struct {
	// Values holds, for each disc (in the order played), the value of the
	// position it left, from -1 (Player 2 wins at once) through 0 (a draw)
	// to 1 (Player 1 wins at once); NaN is not allowed: use Settled.
	Values []float64
	// Settled says which values are known; an unknown value leaves a gap.
	Settled []bool
	// Mistakes are the indexes in Values of the discs that gave the result
	// away: each gets a cross in its player's colour.
	Mistakes []int
	// Players are the two players' colours (index 1 and 2; 0 unused):
	// the area above the middle line is tinted with Player 1's, below with
	// Player 2's.
	Players [3]color.RGBA
}

// Chart geometry at scale 1, in pixels.
const (
	chartHeight  = 120
	chartPly     = 8 // per disc
	chartMargin  = 10
	chartMaxPlys = 144
)

// ErrChart is returned for a chart that cannot be drawn: no value, more
// than 144 (a 12 × 12 board), a Settled of another length, or a mistake
// out of range.
var ErrChart = errors.New("picture: a chart needs 1 to 144 values, a Settled of the same length and mistakes among them")

// DrawChart draws c at scale (1 to MaxScale): a white canvas, a grey
// middle line (a draw), the tinted halves, the value of each settled disc
// joined by a dark line, and a cross at each mistake. It returns ErrChart
// for a chart it cannot draw.
func DrawChart(c Chart, scale int) (*image.RGBA, error) {
	n := len(c.Values)
	if n == 0 || n > chartMaxPlys || len(c.Settled) != n || scale < 1 || scale > MaxScale {
		return nil, ErrChart
	}
	for _, m := range c.Mistakes {
		if m < 0 || m >= n {
			return nil, ErrChart
		}
	}
	ply := plyWidth(n)
	w := (2*chartMargin + ply*(n+1)) * scale
	h := (2*chartMargin + chartHeight) * scale
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Bounds(), color.RGBA{0xff, 0xff, 0xff, 0xff})
	mid := chartMargin*scale + chartHeight*scale/2
	top, bottom := chartMargin*scale, chartMargin*scale+chartHeight*scale
	tint := func(c color.RGBA) color.RGBA {
		return color.RGBA{255 - (255-c.R)/6, 255 - (255-c.G)/6, 255 - (255-c.B)/6, 0xff}
	}
	fill(img, image.Rect(chartMargin*scale, top, w-chartMargin*scale, mid), tint(c.Players[1]))
	fill(img, image.Rect(chartMargin*scale, mid, w-chartMargin*scale, bottom), tint(c.Players[2]))
	fill(img, image.Rect(chartMargin*scale, mid-scale/2, w-chartMargin*scale, mid+(scale+1)/2), color.RGBA{0x99, 0x99, 0x99, 0xff})
	x := func(i int) int { return (chartMargin + ply*(i+1)) * scale }
	y := func(v float64) int {
		v = max(-1, min(1, v))
		return mid - int(v*float64(chartHeight*scale/2-2*scale))
	}
	ink := color.RGBA{0x20, 0x20, 0x30, 0xff}
	prev := -1
	for i, v := range c.Values {
		if !c.Settled[i] {
			prev = -1
			continue
		}
		if prev >= 0 {
			line(img, x(prev), y(c.Values[prev]), x(i), y(v), scale, ink)
		}
		fill(img, image.Rect(x(i)-scale-1, y(v)-scale-1, x(i)+scale+1, y(v)+scale+1), ink)
		prev = i
	}
	for _, m := range c.Mistakes {
		player := 1 + m%2 // even discs are the opener's: Player 1 in the chart's terms
		cx, cy, r := x(m), mid, 4*scale
		if c.Settled[m] {
			cy = y(c.Values[m])
		}
		line(img, cx-r, cy-r, cx+r, cy+r, scale+1, darker(c.Players[player]))
		line(img, cx-r, cy+r, cx+r, cy-r, scale+1, darker(c.Players[player]))
	}
	return img, nil
}

// plyWidth is the width of one disc's step at scale 1: chartPly, or
// wider for a short round, so that the chart is at least 320 pixels wide.
func plyWidth(n int) int { return max(chartPly, 320/(n+1)) }

// EncodeChart writes c drawn at scale as a PNG to w.
func EncodeChart(w io.Writer, c Chart, scale int) error {
	img, err := DrawChart(c, scale)
	if err != nil {
		return err
	}
	return png.Encode(w, img)
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// line draws a line of width w from (x0, y0) to (x1, y1), by steps.
func line(img *image.RGBA, x0, y0, x1, y1, w int, c color.RGBA) {
	steps := max(abs(x1-x0), abs(y1-y0), 1)
	for k := 0; k <= steps; k++ {
		x := x0 + (x1-x0)*k/steps
		y := y0 + (y1-y0)*k/steps
		fill(img, image.Rect(x-w/2, y-w/2, x-w/2+w, y-w/2+w), c)
	}
}

func darker(c color.RGBA) color.RGBA {
	return color.RGBA{uint8(int(c.R) * 3 / 4), uint8(int(c.G) * 3 / 4), uint8(int(c.B) * 3 / 4), 0xff}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
