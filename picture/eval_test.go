package picture

import (
	"errors"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/connectn/connectn/game"
)

// sampleChart is a round of 12 plies on a 6 × 7 board, opened by
// Player 1 (Alice): three drawn plies, Bob's mistake at ply 3 (a win for
// Alice in 9), ply 4 unsettled, then Alice's win coming closer, with
// Alice's own mistake at ply 6 (a draw again) and her win from ply 7
// on. Between plies 3 and 5 the line must break.
func sampleChart() EvalChart {
	st := Classic
	win := func(d int) Verdict { return Verdict{Settled: true, Winner: game.Player1, Distance: d} }
	draw := Verdict{Settled: true}
	return EvalChart{
		Plies:  []Verdict{draw, draw, draw, win(9), {}, win(7), draw, win(5), win(4), win(3), win(2), win(1), win(0)},
		Opener: game.Player1,
		Cells:  42,
		Sides:  [3]Side{{}, st.Side(game.Player1, "Alice"), st.Side(game.Player2, "Bob")},
		Mistakes: []Mistake{
			{Ply: 3, Label: "1"},
			{Ply: 6, Label: "2"},
		},
		Text: ChartText{Outcomes: [3]string{"Draw", "Alice wins", "Bob wins"}, Move: "Move", Mistake: "mistake", Unsettled: "not settled"},
	}
}

// chartPoint returns the image pixel of value v at ply i (from 0) of
// chart c as DrawEvalChart lays it out.
func chartPoint(t *testing.T, c EvalChart, i int, v float64) image.Point {
	t.Helper()
	g, h := chartGeometry(t, c)
	return image.Pt(int(math.Floor(float64(g.tx(float64(i+1))))), h-1-int(math.Floor(float64(g.ty(v)))))
}

// chartGeometry returns the layout DrawEvalChart uses for c and the
// image's height.
func chartGeometry(t *testing.T, c EvalChart) (evalGeometry, int) {
	t.Helper()
	rows := c.legend().rows(ChartWidth - 2*chartPad)
	h := evalHeight + rows*legendRow
	dc := draw.New(vgimg.NewWith(vgimg.UseWH(ChartWidth, vg.Length(h)), vgimg.UseDPI(72)))
	return c.geometry(dc, rows), h
}

// dark reports whether c is ink-dark: the line, the rings, the outlines,
// not the hatching nor the middle line.
func dark(c color.RGBA) bool { return c.R < 0x60 && c.G < 0x60 && c.B < 0x60 }

func drawChart(t *testing.T, c EvalChart) *image.RGBA {
	t.Helper()
	img, err := DrawEvalChart(c)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestEvalChartSize(t *testing.T) {
	long := sampleChart()
	long.Sides[1].Name = strings.Repeat("Alexandra ", 3) + "the First"
	long.Sides[2].Name = strings.Repeat("Bartholomew ", 3)
	for _, tc := range []struct {
		name     string
		c        EvalChart
		wantRows int
	}{
		{"one row of legend", sampleChart(), 1},
		{"long names wrap the legend", long, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := drawChart(t, tc.c)
			if got, want := img.Bounds().Size(), image.Pt(ChartWidth, 440+38*tc.wantRows); got != want {
				t.Errorf("size %v, want %v", got, want)
			}
		})
	}
}

// TestEvalChartPoints: each settled ply's point is in its mover's colour
// at its verdict's height (Alice's plies red, Bob's yellow), the winners'
// discs stand beside the vertical axis, and the halves are tinted.
func TestEvalChartPoints(t *testing.T) {
	c := sampleChart()
	img := drawChart(t, c)
	for i, v := range c.Plies {
		if !v.Settled {
			continue
		}
		at := chartPoint(t, c, i, c.Value(v))
		if got, want := img.RGBAAt(at.X, at.Y), c.Sides[c.mover(i)].Disc; got != want {
			t.Errorf("ply %d at %v: %v, want the mover's %v", i, at, got, want)
		}
	}
	g, h := chartGeometry(t, c)
	for _, tc := range []struct {
		value float64
		label string
		want  color.RGBA
	}{
		{1, "Alice wins", c.Sides[1].Disc},
		{-1, "Bob wins", c.Sides[2].Disc},
	} {
		x, y := int(g.iconX(tc.label)), h-1-int(g.ty(tc.value))
		if got := img.RGBAAt(x, y); got != tc.want {
			t.Errorf("disc beside %q: %v, want %v", tc.label, got, tc.want)
		}
	}
	top, bottom := chartPoint(t, c, 0, 1.1), chartPoint(t, c, 0, -1.1)
	if got, want := img.RGBAAt(top.X-20, top.Y), tint(c.Sides[1].Disc); got != want {
		t.Errorf("top half %v, want Alice's tint %v", got, want)
	}
	if got, want := img.RGBAAt(bottom.X-20, bottom.Y), tint(c.Sides[2].Disc); got != want {
		t.Errorf("bottom half %v, want Bob's tint %v", got, want)
	}
}

// TestEvalChartGap: an unsettled ply breaks the line. Down the middle of
// the unsettled ply, between the heights of its settled neighbours, no
// pixel is ink-dark, and the band there is the unsettled one; the same
// chart with that ply settled has the line there (so the test sees a
// line where there is one).
func TestEvalChartGap(t *testing.T) {
	gap := sampleChart()
	bridged := sampleChart()
	bridged.Plies[4] = Verdict{Settled: true, Winner: game.Player1, Distance: 8}
	for _, tc := range []struct {
		name     string
		c        EvalChart
		wantLine bool
	}{
		{"unsettled ply", gap, false},
		{"settled ply", bridged, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := drawChart(t, tc.c)
			// Halfway between plies 3 and 5, away from ply 4's point.
			a := chartPoint(t, tc.c, 3, tc.c.Value(tc.c.Plies[3]))
			b := chartPoint(t, tc.c, 5, tc.c.Value(tc.c.Plies[5]))
			inks := 0
			for _, x := range []int{(3*a.X + b.X) / 4, (a.X + 3*b.X) / 4} {
				for y := min(a.Y, b.Y) - 3; y <= max(a.Y, b.Y)+3; y++ {
					if dark(img.RGBAAt(x, y)) {
						inks++
					}
				}
			}
			if got := inks > 0; got != tc.wantLine {
				t.Errorf("%d ink pixels across ply 4: line drawn %v, want %v", inks, got, tc.wantLine)
			}
		})
	}
	img := drawChart(t, gap)
	mid := chartPoint(t, gap, 4, 0.3)
	band, tinted := 0, 0
	for x := mid.X - 10; x <= mid.X+10; x++ {
		switch img.RGBAAt(x, mid.Y) {
		case unsettledFill:
			band++
		case tint(gap.Sides[1].Disc):
			tinted++
		}
	}
	if band < 8 || tinted > 0 {
		t.Errorf("across the unsettled ply, %d of 21 pixels are its band and %d the tint of the half", band, tinted)
	}
}

// TestEvalChartMistakes: each mistake's point is ringed in ink and
// labelled above it; a point that is not a mistake has no ring.
func TestEvalChartMistakes(t *testing.T) {
	c := sampleChart()
	img := drawChart(t, c)
	ringed := func(i int) bool {
		at := chartPoint(t, c, i, c.Value(c.Plies[i]))
		hits := 0
		for _, d := range []image.Point{{mistakeRadius, 0}, {-mistakeRadius, 0}, {0, mistakeRadius}, {0, -mistakeRadius}} {
			for e := -1; e <= 1; e++ {
				p := at.Add(d).Add(image.Pt(e*abs(d.Y)/mistakeRadius, e*abs(d.X)/mistakeRadius))
				if dark(img.RGBAAt(p.X, p.Y)) {
					hits++
					break
				}
			}
		}
		return hits == 4
	}
	for _, tc := range []struct {
		ply  int
		want bool
	}{{3, true}, {6, true}, {5, false}, {1, false}} {
		if got := ringed(tc.ply); got != tc.want {
			t.Errorf("ply %d ringed: %v, want %v", tc.ply, got, tc.want)
		}
	}
	// The labels: drawn beside their rings. A label that cannot be
	// drawn is left out: the only pixels that differ are those near its
	// point.
	unlabelled := sampleChart()
	unlabelled.Mistakes[0].Label = "一"
	other := drawChart(t, unlabelled)
	at := chartPoint(t, c, 3, c.Value(c.Plies[3]))
	near, far := 0, 0
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			if img.RGBAAt(x, y) != other.RGBAAt(x, y) {
				if abs(x-at.X) <= 50 && abs(y-at.Y) <= 50 {
					near++
				} else {
					far++
				}
			}
		}
	}
	if near < 20 || far > 0 {
		t.Errorf("mistake 1's label: %d pixels near its point, %d elsewhere", near, far)
	}
}

// TestEvalChartUndrawableText: a text CanDraw refuses is left out, not
// drawn as boxes: the chart is the one drawn without it.
func TestEvalChartUndrawableText(t *testing.T) {
	ja, none := sampleChart(), sampleChart()
	ja.Text = ChartText{Outcomes: [3]string{"引き分け", "🔴 の勝ち", "🟡 の勝ち"}, Move: "手", Mistake: "悪手", Unsettled: "未確定"}
	ja.Sides[1].Name, ja.Sides[2].Name = "アリス", "ボブ"
	none.Text = ChartText{}
	none.Sides[1].Name, none.Sides[2].Name = "", ""
	a, b := drawChart(t, ja), drawChart(t, none)
	if !a.Rect.Eq(b.Rect) || string(a.Pix) != string(b.Pix) {
		t.Error("the chart with Japanese text differs from the chart without text")
	}
	if string(a.Pix) == string(drawChart(t, sampleChart()).Pix) {
		t.Error("the chart without text is the chart with English text")
	}
}

func TestEvalChartValue(t *testing.T) {
	c := EvalChart{Cells: 40}
	for _, tc := range []struct {
		name string
		v    Verdict
		want float64
	}{
		{"draw", Verdict{Settled: true}, 0},
		{"player 1 won", Verdict{Settled: true, Winner: game.Player1}, 1},
		{"player 2 won", Verdict{Settled: true, Winner: game.Player2}, -1},
		{"player 1 in 10", Verdict{Settled: true, Winner: game.Player1, Distance: 10}, 0.875},
		{"player 2 at the longest", Verdict{Settled: true, Winner: game.Player2, Distance: 40}, -0.5},
	} {
		if got := c.Value(tc.v); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestEvalChartRefuses(t *testing.T) {
	ok := sampleChart()
	with := func(f func(c *EvalChart)) EvalChart {
		c := sampleChart()
		c.Plies = append([]Verdict(nil), c.Plies...)
		c.Mistakes = append([]Mistake(nil), c.Mistakes...)
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		c    EvalChart
		want string
	}{
		{"no ply", with(func(c *EvalChart) { c.Plies = nil }), "0 plies"},
		{"145 plies", with(func(c *EvalChart) { c.Plies = make([]Verdict, 145); c.Cells = 150; c.Mistakes = nil }), "145 plies"},
		{"no opener", with(func(c *EvalChart) { c.Opener = game.NoPlayer }), "opener"},
		{"fewer cells than plies", with(func(c *EvalChart) { c.Cells = 12 }), "12 cells"},
		{"winner not a player", with(func(c *EvalChart) { c.Plies[0].Winner = 3 }), "winner 3"},
		{"distance beyond the board", with(func(c *EvalChart) { c.Plies[3].Distance = 43 }), "distance 43"},
		{"negative distance", with(func(c *EvalChart) { c.Plies[3].Distance = -1 }), "distance -1"},
		{"mistake outside", with(func(c *EvalChart) { c.Mistakes[0].Ply = 13 }), "ply 13 of 13"},
		{"mistake unsettled", with(func(c *EvalChart) { c.Mistakes[0].Ply = 4 }), "not settled"},
		{"mistake twice", with(func(c *EvalChart) { c.Mistakes[1].Ply = 3 }), "twice"},
		{"mistake without a label", with(func(c *EvalChart) { c.Mistakes[1].Label = "" }), "no label"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := DrawEvalChart(tc.c)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || img != nil {
				t.Errorf("error %v, want ErrInvalid saying %q and no image", err, tc.want)
			}
		})
	}
	if _, err := DrawEvalChart(ok); err != nil {
		t.Errorf("the sample chart: %v", err)
	}
}

func TestEvalChartGolden(t *testing.T) {
	checkGolden(t, "eval-chart.golden.png", drawChart(t, sampleChart()))
}

// TestMoveTicks: every move is labelled on a round of up to 16 plies, and a long one
// keeps to at most 12 labels, starting at 1.
func TestMoveTicks(t *testing.T) {
	for _, tc := range []struct {
		name       string
		plies      int
		wantLabels int
	}{
		{"one ply", 1, 1},
		{"sixteen plies", 16, 16},
		{"seventeen plies", 17, 9},  // 1, 2, 4, ..., 16
		{"a 6 × 7 board", 42, 9},    // 1, 5, 10, ..., 40
		{"a 12 × 12 board", 144, 8}, // 1, 20, 40, ..., 140
	} {
		t.Run(tc.name, func(t *testing.T) {
			labels := 0
			for _, tk := range (moveTicks{}).Ticks(0.5, float64(tc.plies)+0.5) {
				if tk.Label != "" {
					labels++
				}
			}
			if labels != tc.wantLabels {
				t.Errorf("%d labels, want %d", labels, tc.wantLabels)
			}
		})
	}
}
