package picture

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/connectn/connectn/game"
)

// ErrInvalid is wrapped by every error this package returns for input it
// cannot draw; the error's text says what was wrong.
var ErrInvalid = errors.New("invalid picture input")

// MaxChartPlies is the most plies an evaluation chart shows: a 12 × 12
// board, the largest the solver settles.
const MaxChartPlies = 144

// The evaluation chart's size in pixels. It is drawn at twice the width
// Discord shows an embed's image at (400 pixels), so that it stays sharp
// on high-density screens; its text is 24 pixels high, 12 as shown.
const (
	ChartWidth = 800
	evalHeight = 440 // without the legend
	chartFont  = 24
	legendRow  = 38
)

// EvalChart is the solver's verdict on each ply of a round, drawn by
// DrawEvalChart as chess sites chart a game: the move number across (1 to
// n), the verdict up the side, Player 1's wins at the top, a draw in the
// middle, Player 2's wins at the bottom, and a quick win further from the
// middle than a slow one.
type EvalChart struct {
	// Plies holds the verdict on the position each ply left, in the order
	// played: 1 to MaxChartPlies of them.
	Plies []Verdict
	// Opener is the player who played the even plies (0, 2, ...): the
	// round's opener, Player1 or Player2.
	Opener game.Player
	// Cells is the number of cells of the board (rows × columns), the
	// most plies a round can last: at least len(Plies). It scales the
	// distances: a win Distance plies away is drawn at 1 - Distance/(2 ×
	// Cells) from the middle (1 the top or bottom), so every win lies in
	// the outer half, beyond every draw.
	Cells int
	// Sides are the two players as the chart shows them, indexed by
	// game.Player (index 0 unused): the colour of their points, the tint
	// of their half and their legend entry.
	Sides [3]Side
	// Mistakes are the plies ringed and labelled as mistakes: each a
	// settled ply, at most once.
	Mistakes []Mistake
	// Text holds the chart's words, already in the reader's language.
	Text ChartText
}

// Verdict is the solver's verdict on the position a ply left.
type Verdict struct {
	// Settled reports whether the solver settled the position in time;
	// the rest of the verdict is ignored when it did not.
	Settled bool
	// Winner is the player who wins with perfect play from the position,
	// NoPlayer for a draw.
	Winner game.Player
	// Distance is, for a win, how many plies after this one the winning
	// disc falls: 0 when this ply completed the line. It is from 0 to
	// the chart's Cells.
	Distance int
}

// Side is one player as a chart or a card shows them.
type Side struct {
	// Name is the player's label in the legend (a name, or a fallback
	// such as "Player 1"): left out when CanDraw refuses it.
	Name string
	// Disc is the colour of the player's discs and Mark their mark.
	Disc color.RGBA
	Mark Mark
}

// Side returns player p's side in style st, labelled name.
func (st Style) Side(p game.Player, name string) Side {
	return Side{Name: name, Disc: st.Discs[p], Mark: st.Marks[p]}
}

// Mistake is a ply the chart rings and labels.
type Mistake struct {
	// Ply is the mistake's index in EvalChart.Plies, from 0.
	Ply int
	// Label is the text beside the ring, as the analysis's text numbers
	// the mistake (for example "1", or the move number "12"): not empty.
	Label string
}

// ChartText holds the words of an evaluation chart. Each is drawn only
// when CanDraw accepts it (see CanDraw); the chart's colours and shapes
// carry the same facts without them.
type ChartText struct {
	// Outcomes label the vertical axis, indexed by the winner:
	// [game.NoPlayer] the middle (for example "Draw"), [game.Player1] the
	// top ("Alice wins"), [game.Player2] the bottom.
	Outcomes [3]string
	// Move titles the horizontal axis (for example "Move").
	Move string
	// Mistake and Unsettled name the legend's entries for the ring of a
	// mistake and the hatched band of an unsettled ply (for example
	// "mistake", "not settled"); shown only when the chart has one.
	Mistake, Unsettled string
}

// The chart's colours beyond the players': the band of an unsettled ply
// and its hatching, the middle line, the guides at the edge of the wins.
var (
	unsettledFill  = color.RGBA{0xe4, 0xe5, 0xea, 0xff}
	unsettledHatch = color.RGBA{0xa8, 0xab, 0xb5, 0xff}
	middleLine     = color.RGBA{0x8a, 0x8d, 0x96, 0xff}
	guideLine      = color.RGBA{0xc4, 0xc6, 0xcc, 0xff}
	background     = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// Geometry of the chart's marks, in pixels.
const (
	pointRadius   = 9
	mistakeRadius = 15
	lineWidth     = 3
	iconRadius    = 11 // the discs beside the vertical axis and in the legend
	yLimit        = 1.18
)

// Validate returns an error wrapping ErrInvalid when c cannot be drawn:
// no ply or more than MaxChartPlies, an opener or winner that is not a
// player, a Cells below the plies or above game.MaxSize², a distance out
// of range, a mistake outside the plies, on an unsettled ply, repeated or
// without a label.
func (c EvalChart) Validate() error {
	n := len(c.Plies)
	switch {
	case n == 0 || n > MaxChartPlies:
		return fmt.Errorf("evaluation chart of %d plies, want 1 to %d: %w", n, MaxChartPlies, ErrInvalid)
	case !c.Opener.Valid():
		return fmt.Errorf("evaluation chart opener %d, want player 1 or 2: %w", c.Opener, ErrInvalid)
	case c.Cells < n || c.Cells > game.MaxSize*game.MaxSize:
		return fmt.Errorf("evaluation chart of %d cells for %d plies, want %d to %d: %w", c.Cells, n, n, game.MaxSize*game.MaxSize, ErrInvalid)
	}
	for i, v := range c.Plies {
		switch {
		case !v.Settled:
		case v.Winner != game.NoPlayer && !v.Winner.Valid():
			return fmt.Errorf("evaluation chart ply %d: winner %d, want none, player 1 or 2: %w", i, v.Winner, ErrInvalid)
		case v.Winner.Valid() && (v.Distance < 0 || v.Distance > c.Cells):
			return fmt.Errorf("evaluation chart ply %d: distance %d, want 0 to %d: %w", i, v.Distance, c.Cells, ErrInvalid)
		}
	}
	seen := make(map[int]bool, len(c.Mistakes))
	for _, m := range c.Mistakes {
		switch {
		case m.Ply < 0 || m.Ply >= n:
			return fmt.Errorf("evaluation chart mistake at ply %d of %d: %w", m.Ply, n, ErrInvalid)
		case !c.Plies[m.Ply].Settled:
			return fmt.Errorf("evaluation chart mistake at ply %d, which is not settled: %w", m.Ply, ErrInvalid)
		case seen[m.Ply]:
			return fmt.Errorf("evaluation chart mistake at ply %d given twice: %w", m.Ply, ErrInvalid)
		case m.Label == "":
			return fmt.Errorf("evaluation chart mistake at ply %d has no label: %w", m.Ply, ErrInvalid)
		}
		seen[m.Ply] = true
	}
	return nil
}

// Value returns where verdict v of chart c is drawn on the vertical axis:
// 0 for a draw, 1 - Distance/(2 × Cells) for Player 1's win (1 when the
// ply won), the negative for Player 2's.
func (c EvalChart) Value(v Verdict) float64 {
	if !v.Winner.Valid() {
		return 0
	}
	y := 1 - float64(v.Distance)/float64(2*c.Cells)
	if v.Winner == game.Player2 {
		return -y
	}
	return y
}

// mover returns the player who played ply i.
func (c EvalChart) mover(i int) game.Player {
	if i%2 == 0 {
		return c.Opener
	}
	return c.Opener.Other()
}

// DrawEvalChart draws c on a white canvas ChartWidth pixels wide and 440
// high, plus 38 for each row of its legend: the halves tinted with each
// player's colour, the middle line (a draw), a hatched band over each
// unsettled ply, a line through the settled plies that never crosses an
// unsettled one, each settled ply's point in its mover's colour and mark,
// a ring and a label at each mistake, the outcomes beside the vertical
// axis with each winner's disc, the move numbers across, and a legend
// (the players, "mistake" and "not settled" when the chart has them). It
// returns an error wrapping ErrInvalid for a chart Validate refuses.
func DrawEvalChart(c EvalChart) (*image.RGBA, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	legend := c.legend()
	rows := legend.rows(ChartWidth - 2*chartPad)
	canvas := vgimg.NewWith(vgimg.UseWH(ChartWidth, vg.Length(evalHeight+rows*legendRow)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(background))
	dc := draw.New(canvas)
	g := c.geometry(dc, rows)
	g.plot.Draw(g.area)

	// The winners' discs beside the vertical axis, each just left of its
	// label: Player 1's at the top, Player 2's at the bottom, both halves
	// at the middle (the labels are right-aligned against the widest).
	for _, t := range g.plot.Y.Tick.Marker.Ticks(g.plot.Y.Min, g.plot.Y.Max) {
		at := vg.Point{X: g.iconX(t.Label), Y: g.ty(t.Value)}
		switch t.Value {
		case 1:
			drawDisc(&dc, at, iconRadius, c.Sides[game.Player1])
		case -1:
			drawDisc(&dc, at, iconRadius, c.Sides[game.Player2])
		default:
			drawHalves(&dc, at, iconRadius, c.Sides[game.Player1].Disc, c.Sides[game.Player2].Disc)
		}
	}
	legend.draw(&dc, vg.Point{X: dc.Min.X + chartPad, Y: dc.Min.Y + vg.Length(rows*legendRow) - legendRow/2 + 4}, ChartWidth-2*chartPad)
	return canvas.Image().(*image.RGBA), nil
}

// evalGeometry is where an evaluation chart's parts go on a canvas.
type evalGeometry struct {
	plot *plot.Plot
	// area holds the plot (axes and data); tx and ty map a ply number
	// (from 1) and a value to the canvas.
	area   draw.Canvas
	tx, ty func(float64) vg.Length
	// widest is the width of the widest label of the vertical axis.
	widest vg.Length
}

// geometry returns where c's parts go on dc, a canvas of ChartWidth by
// the chart's height with legend rows of legend under the plot.
func (c EvalChart) geometry(dc draw.Canvas, rows int) evalGeometry {
	g := evalGeometry{plot: c.plot()}
	g.area = draw.Crop(dc, chartPad+2*iconRadius+8, -chartPad, vg.Length(rows*legendRow)+chartPad/2, -chartPad)
	data := g.plot.DataCanvas(g.area)
	g.tx, g.ty = g.plot.Transforms(&data)
	for _, t := range g.plot.Y.Tick.Marker.Ticks(g.plot.Y.Min, g.plot.Y.Max) {
		g.widest = max(g.widest, g.plot.Y.Tick.Label.Width(t.Label))
	}
	return g
}

// iconX returns the centre of the disc beside the vertical axis' label.
func (g evalGeometry) iconX(label string) vg.Length {
	if label == "" {
		return g.area.Min.X + g.widest - iconRadius
	}
	return g.area.Min.X + g.widest - g.plot.Y.Tick.Label.Width(label) - 8 - iconRadius
}

// chartPad is the white margin around the chart, in pixels.
const chartPad = 16

// fastPNG encodes the chart and the card: zlib's fastest level halves the
// time of the default one (about 25 ms against 50 for an 800 × 776 card)
// for files about a tenth larger (60 kB against 55), and a picture is
// drawn on a button click.
var fastPNG = png.Encoder{CompressionLevel: png.BestSpeed}

// EncodeEvalChart writes c drawn by DrawEvalChart as a PNG to w,
// compressed for speed (see fastPNG).
func EncodeEvalChart(w io.Writer, c EvalChart) error {
	img, err := DrawEvalChart(c)
	if err != nil {
		return err
	}
	if err := fastPNG.Encode(w, img); err != nil {
		return fmt.Errorf("encode the evaluation chart: %w", err)
	}
	return nil
}

// plot builds the gonum plot of c: axes, ticks and the plotters.
func (c EvalChart) plot() *plot.Plot {
	n := len(c.Plies)
	p := plot.New()
	p.BackgroundColor = nil
	p.X.Min, p.X.Max = 0.5, float64(n)+0.5
	p.Y.Min, p.Y.Max = -yLimit, yLimit
	p.X.Padding, p.Y.Padding = 0, 0
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.LineStyle = draw.LineStyle{Color: middleLine, Width: 1.5}
		a.Tick.LineStyle = draw.LineStyle{Color: middleLine, Width: 1.5}
		a.Tick.Length = 6
		a.Tick.Label = textStyle(sansFont, chartFont, ink, a.Tick.Label.XAlign, a.Tick.Label.YAlign)
	}
	p.X.Tick.Marker = moveTicks{}
	p.X.Label.Text = drawable(c.Text.Move)
	p.X.Label.TextStyle = textStyle(sansFont, chartFont, muted, text.XCenter, text.YBottom)
	p.X.Label.Padding = 4
	p.Y.Tick.Marker = plot.ConstantTicks{
		{Value: 1, Label: drawable(c.Text.Outcomes[game.Player1])},
		{Value: 0, Label: drawable(c.Text.Outcomes[game.NoPlayer])},
		{Value: -1, Label: drawable(c.Text.Outcomes[game.Player2])},
	}
	p.Add(&backdrop{c: c})
	p.Add(c.lines()...)
	p.Add(&points{c: c})
	p.Add(&mistakes{c: c})
	return p
}

// moveTicks marks the move numbers: every one on a round of up to 16
// plies, else 1 and every multiple of a step of 2, 5, 10 or 20 chosen to
// leave at most 12 labels, with the other plies as minor ticks while they
// stay apart (up to 60 plies).
type moveTicks struct{}

// Ticks returns the ticks from min to max (the axis' range, 0.5 to n +
// 0.5).
func (moveTicks) Ticks(min, max float64) []plot.Tick {
	n := int(max)
	step := 1
	if n > 16 {
		for _, s := range []int{2, 5, 10, 20} {
			step = s
			if n/s <= 12 {
				break
			}
		}
	}
	var ticks []plot.Tick
	for i := 1; i <= n; i++ {
		switch {
		case i == 1 || i%step == 0:
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: strconv.Itoa(i)})
		case n <= 60:
			ticks = append(ticks, plot.Tick{Value: float64(i)})
		}
	}
	return ticks
}

// backdrop draws the tinted halves, the guides at ±0.5 (the edge of the
// wins), the middle line and the hatched band over each unsettled ply.
type backdrop struct{ c EvalChart }

// Plot draws the backdrop on the data canvas dc of plot p.
func (b *backdrop) Plot(dc draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&dc)
	left, right := dc.Min.X, dc.Max.X
	rect := func(x0, x1, y0, y1 vg.Length) []vg.Point {
		return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	}
	dc.FillPolygon(tint(b.c.Sides[game.Player1].Disc), rect(left, right, ty(0), dc.Max.Y))
	dc.FillPolygon(tint(b.c.Sides[game.Player2].Disc), rect(left, right, dc.Min.Y, ty(0)))
	for i, v := range b.c.Plies {
		if v.Settled {
			continue
		}
		x0, x1 := tx(float64(i)+0.5), tx(float64(i)+1.5)
		dc.FillPolygon(unsettledFill, rect(x0, x1, dc.Min.Y, dc.Max.Y))
		// Hatching: lines rising at 45°, 10 pixels apart, kept inside
		// the band.
		band := draw.Crop(dc, x0-dc.Min.X, x1-dc.Max.X, 0, 0)
		sty := draw.LineStyle{Color: unsettledHatch, Width: 1.5}
		h := dc.Max.Y - dc.Min.Y
		start := vg.Length(math.Floor(float64(x0-h)/10) * 10)
		for x := start; x < x1; x += 10 {
			for _, l := range band.ClipLinesXY([]vg.Point{{X: x, Y: dc.Min.Y}, {X: x + h, Y: dc.Max.Y}}) {
				band.StrokeLines(sty, l)
			}
		}
	}
	guide := draw.LineStyle{Color: guideLine, Width: 1.5, Dashes: []vg.Length{6, 5}}
	dc.StrokeLine2(guide, left, ty(0.5), right, ty(0.5))
	dc.StrokeLine2(guide, left, ty(-0.5), right, ty(-0.5))
	dc.StrokeLine2(draw.LineStyle{Color: middleLine, Width: 2}, left, ty(0), right, ty(0))
}

// tint returns c at 16% over white: a player's half of the chart.
func tint(c color.RGBA) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(255 - (255-int(v))*16/100) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// lines returns one gonum line per run of consecutive settled plies, so
// that no line bridges an unsettled ply.
func (c EvalChart) lines() []plot.Plotter {
	var out []plot.Plotter
	var run plotter.XYs
	flush := func() {
		if len(run) > 1 {
			l := &plotter.Line{XYs: run, LineStyle: draw.LineStyle{Color: ink, Width: lineWidth}}
			out = append(out, l)
		}
		run = nil
	}
	for i, v := range c.Plies {
		if !v.Settled {
			flush()
			continue
		}
		run = append(run, plotter.XY{X: float64(i + 1), Y: c.Value(v)})
	}
	flush()
	return out
}

// points draws each settled ply's point: a disc in its mover's colour and
// mark, outlined in ink, of radius pointRadius or, where the plies are
// closer than 2.5 radii apart, 40% of the step from one ply to the next
// (at least 3 pixels), so that the points of a long round stay apart.
type points struct{ c EvalChart }

// Plot draws the points on the data canvas dc of plot p.
func (s *points) Plot(dc draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&dc)
	r := min(pointRadius, max(3, 0.4*(tx(2)-tx(1))))
	for i, v := range s.c.Plies {
		if v.Settled {
			drawDisc(&dc, vg.Point{X: tx(float64(i + 1)), Y: ty(s.c.Value(v))}, r, s.c.Sides[s.c.mover(i)])
		}
	}
}

// mistakes draws a ring around each mistake's point and its label beside
// it: above and to the right, or below for a point in the top quarter.
type mistakes struct{ c EvalChart }

// Plot draws the mistakes on the data canvas dc of plot p.
func (m *mistakes) Plot(dc draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&dc)
	label := textStyle(boldFont, chartFont, ink, text.XLeft, text.YBottom)
	for _, mk := range m.c.Mistakes {
		v := m.c.Value(m.c.Plies[mk.Ply])
		pt := vg.Point{X: tx(float64(mk.Ply + 1)), Y: ty(v)}
		dc.SetLineStyle(draw.LineStyle{Color: ink, Width: 3})
		var ring vg.Path
		ring.Move(vg.Point{X: pt.X + mistakeRadius, Y: pt.Y})
		ring.Arc(pt, mistakeRadius, 0, 2*math.Pi)
		ring.Close()
		dc.Stroke(ring)
		s := drawable(mk.Label)
		if s == "" {
			continue
		}
		sty := label
		at := vg.Point{X: pt.X + mistakeRadius - 2, Y: pt.Y + mistakeRadius - 4}
		if v > 0.75 {
			sty.YAlign = text.YTop
			at.Y = pt.Y - mistakeRadius + 4
		}
		if pt.X+mistakeRadius+sty.Width(s) > dc.Max.X {
			sty.XAlign = text.XRight
			at.X = pt.X - mistakeRadius + 2
		}
		dc.FillText(sty, at, s)
	}
}

// drawDisc draws a disc of radius r at pt in side s's colour, outlined in
// ink, with s's mark.
func drawDisc(c *draw.Canvas, pt vg.Point, r vg.Length, s Side) {
	var disc vg.Path
	disc.Move(vg.Point{X: pt.X + r, Y: pt.Y})
	disc.Arc(pt, r, 0, 2*math.Pi)
	disc.Close()
	c.SetColor(s.Disc)
	c.Fill(disc)
	c.SetLineStyle(draw.LineStyle{Color: ink, Width: vg.Length(math.Max(1.5, float64(r)/6))})
	c.Stroke(disc)
	if s.Mark == MarkCross {
		a := r * 0.5
		sty := draw.LineStyle{Color: ink, Width: vg.Length(math.Max(1.5, float64(r)/5))}
		c.StrokeLine2(sty, pt.X-a, pt.Y-a, pt.X+a, pt.Y+a)
		c.StrokeLine2(sty, pt.X-a, pt.Y+a, pt.X+a, pt.Y-a)
	}
}

// drawHalves draws a disc of radius r at pt, its left half in colour a and
// its right half in b, outlined in ink: a draw, shared by both players.
func drawHalves(c *draw.Canvas, pt vg.Point, r vg.Length, a, b color.RGBA) {
	half := func(from float64) vg.Path {
		var p vg.Path
		p.Move(pt)
		p.Arc(pt, r, from, math.Pi)
		p.Close()
		return p
	}
	c.SetColor(a)
	c.Fill(half(math.Pi / 2))
	c.SetColor(b)
	c.Fill(half(-math.Pi / 2))
	var disc vg.Path
	disc.Move(vg.Point{X: pt.X + r, Y: pt.Y})
	disc.Arc(pt, r, 0, 2*math.Pi)
	disc.Close()
	c.SetLineStyle(draw.LineStyle{Color: ink, Width: vg.Length(math.Max(1.5, float64(r)/6))})
	c.Stroke(disc)
}
