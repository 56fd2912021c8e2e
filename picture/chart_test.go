package picture

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"testing"
)

// TestChart draws a chart and checks what it promises: the halves tinted
// with each player's colour, the line through each settled value (a win
// for Player 1 high, for Player 2 low), a gap where a value is unknown,
// and a cross in the mover's colour at each mistake.
func TestChart(t *testing.T) {
	red, yellow := color.RGBA{0xdd, 0x2e, 0x44, 0xff}, color.RGBA{0xfd, 0xcb, 0x58, 0xff}
	c := Chart{
		Values:   []float64{0, 0, 0.5, -0.8, -1},
		Settled:  []bool{true, true, true, false, true},
		Mistakes: []int{2},
		Players:  [3]color.RGBA{{}, red, yellow},
	}
	img, err := DrawChart(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	ply := plyWidth(5)
	if got, want := img.Bounds().Dx(), 2*chartMargin+ply*6; got != want || got < 320 {
		t.Errorf("width %d, want %d (one step per disc)", got, want)
	}
	mid := chartMargin + chartHeight/2
	upper, lower := img.RGBAAt(chartMargin+1, chartMargin+2), img.RGBAAt(chartMargin+1, chartMargin+chartHeight-2)
	if upper.R <= upper.G || lower.G <= lower.B {
		t.Errorf("halves tinted %v above, %v below: want red above, yellow below", upper, lower)
	}
	x := func(i int) int { return chartMargin + ply*(i+1) }
	ink := color.RGBA{0x20, 0x20, 0x30, 0xff}
	if img.RGBAAt(x(0), mid) != ink || img.RGBAAt(x(1), mid) != ink {
		t.Errorf("no ink at the draws' points, on the middle line")
	}
	// Player 2's win sits low, the draw on the middle line.
	low := mid + (chartHeight/2 - 2)
	if img.RGBAAt(x(4), low) != ink {
		t.Errorf("Player 2's win is not drawn at the bottom: %v", img.RGBAAt(x(4), low))
	}
	// The unknown value leaves no point of its own.
	if v := -0.8 * float64(chartHeight/2-2); img.RGBAAt(x(3), mid-int(v)) == ink {
		t.Error("an unsettled value was drawn")
	}
	// The mistake (disc 3, index 2: the opener's, Player 1) is crossed in
	// a darker red.
	v := 0.5 * float64(chartHeight/2-2)
	crossAt := img.RGBAAt(x(2)+3, mid-int(v)+3)
	if crossAt != darker(red) {
		t.Errorf("cross colour %v, want %v", crossAt, darker(red))
	}
	var buf bytes.Buffer
	if err := EncodeChart(&buf, c, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&buf); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
}

func TestChartRefuses(t *testing.T) {
	for name, c := range map[string]Chart{
		"no value":         {},
		"settled mismatch": {Values: []float64{0, 0}, Settled: []bool{true}},
		"mistake outside":  {Values: []float64{0}, Settled: []bool{true}, Mistakes: []int{1}},
		"too many":         {Values: make([]float64, 145), Settled: make([]bool, 145)},
	} {
		if _, err := DrawChart(c, 1); !errors.Is(err, ErrChart) {
			t.Errorf("%s: error %v, want ErrChart", name, err)
		}
	}
}

// TestDarker: a darker colour is three quarters of each channel, without
// the overflow of 8-bit arithmetic.
func TestDarker(t *testing.T) {
	if got, want := darker(color.RGBA{0xfd, 0xcb, 0x58, 0xff}), (color.RGBA{0xbd, 0x98, 0x42, 0xff}); got != want {
		t.Errorf("darker(yellow) = %v, want %v", got, want)
	}
}
