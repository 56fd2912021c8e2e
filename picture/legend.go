package picture

import (
	"math"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/connectn/connectn/game"
)

// legendEntry is one entry of a chart's legend: an icon and its words
// (left out when they cannot be drawn).
type legendEntry struct {
	icon  func(c *draw.Canvas, at vg.Point)
	label string
}

// legendEntries is a legend laid out in rows that wrap at a width.
type legendEntries []legendEntry

// legendGap is the space between two entries, and between an icon and
// its words, in pixels.
const legendGap, legendIconGap = 28, 8

var legendText = textStyle(sansFont, chartFont, ink, text.XLeft, text.YCenter)

// legend returns c's legend: the two players (the opener first), then
// "mistake" when the chart has one and "not settled" when a ply is.
func (c EvalChart) legend() legendEntries {
	var out legendEntries
	for _, p := range []game.Player{c.Opener, c.Opener.Other()} {
		s := c.Sides[p]
		out = append(out, legendEntry{label: drawable(s.Name), icon: func(dc *draw.Canvas, at vg.Point) {
			drawDisc(dc, at, iconRadius, s)
		}})
	}
	if len(c.Mistakes) > 0 {
		out = append(out, legendEntry{label: drawable(c.Text.Mistake), icon: func(dc *draw.Canvas, at vg.Point) {
			dc.SetLineStyle(draw.LineStyle{Color: ink, Width: 3})
			var ring vg.Path
			ring.Move(vg.Point{X: at.X + iconRadius, Y: at.Y})
			ring.Arc(at, iconRadius, 0, 2*math.Pi)
			ring.Close()
			dc.Stroke(ring)
		}})
	}
	for _, v := range c.Plies {
		if !v.Settled {
			out = append(out, legendEntry{label: drawable(c.Text.Unsettled), icon: drawHatchIcon})
			break
		}
	}
	return out
}

// drawHatchIcon draws a square of the unsettled band, hatched, centred at
// at.
func drawHatchIcon(dc *draw.Canvas, at vg.Point) {
	r := vg.Length(iconRadius)
	box := draw.Crop(*dc, at.X-r-dc.Min.X, at.X+r-dc.Max.X, at.Y-r-dc.Min.Y, at.Y+r-dc.Max.Y)
	box.FillPolygon(unsettledFill, []vg.Point{{X: at.X - r, Y: at.Y - r}, {X: at.X + r, Y: at.Y - r}, {X: at.X + r, Y: at.Y + r}, {X: at.X - r, Y: at.Y + r}})
	sty := draw.LineStyle{Color: unsettledHatch, Width: 1.5}
	for x := at.X - 3*r; x < at.X+r; x += 10 {
		for _, l := range box.ClipLinesXY([]vg.Point{{X: x, Y: at.Y - r}, {X: x + 2*r, Y: at.Y + r}}) {
			box.StrokeLines(sty, l)
		}
	}
}

// width returns the width of entry e in pixels.
func (e legendEntry) width() vg.Length {
	w := vg.Length(2 * iconRadius)
	if e.label != "" {
		w += legendIconGap + legendText.Width(e.label)
	}
	return w
}

// layout returns, for each entry, its row (from 0) and its x offset from
// the left, wrapping at width; an entry wider than a row has its label
// shortened to fit.
func (l legendEntries) layout(width vg.Length) (row []int, x []vg.Length) {
	r, at := 0, vg.Length(0)
	for i := range l {
		if max := width - 2*iconRadius - legendIconGap; l[i].label != "" && legendText.Width(l[i].label) > max {
			l[i].label = fit(legendText, l[i].label, max)
		}
		w := l[i].width()
		if at > 0 && at+w > width {
			r, at = r+1, 0
		}
		row, x = append(row, r), append(x, at)
		at += w + legendGap
	}
	return row, x
}

// rows returns how many rows l takes at width.
func (l legendEntries) rows(width vg.Length) int {
	row, _ := l.layout(width)
	if len(row) == 0 {
		return 0
	}
	return row[len(row)-1] + 1
}

// draw draws l with the centre line of its first row at top, rows
// legendRow apart, wrapping at width.
func (l legendEntries) draw(dc *draw.Canvas, top vg.Point, width vg.Length) {
	row, x := l.layout(width)
	for i, e := range l {
		at := vg.Point{X: top.X + x[i] + iconRadius, Y: top.Y - vg.Length(row[i]*legendRow)}
		e.icon(dc, at)
		if e.label != "" {
			dc.FillText(legendText, vg.Point{X: at.X + iconRadius + legendIconGap, Y: at.Y}, e.label)
		}
	}
}
