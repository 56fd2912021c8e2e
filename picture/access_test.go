package picture

import (
	"image/color"
	"math"
	"testing"

	"github.com/connectn/connectn/game"
)

func TestContrast(t *testing.T) {
	black, white := color.RGBA{0, 0, 0, 0xff}, color.RGBA{0xff, 0xff, 0xff, 0xff}
	red, yellow := color.RGBA{0xdd, 0x2e, 0x44, 0xff}, color.RGBA{0xfd, 0xcb, 0x58, 0xff}
	for _, tc := range []struct {
		name string
		a, b color.RGBA
		want float64
	}{
		{"black on white", black, white, 21},
		{"white on black", white, black, 21},
		{"same colour", red, red, 1},
		{"Twemoji red and yellow", red, yellow, 3.05},
		// WCAG's own example: #767676 on white is the lightest grey
		// that reaches 4.5 to 1.
		{"#767676 on white", color.RGBA{0x76, 0x76, 0x76, 0xff}, white, 4.54},
	} {
		if got := Contrast(tc.a, tc.b); math.Abs(got-tc.want) > 0.005 {
			t.Errorf("%s: %.3f, want %.2f", tc.name, got, tc.want)
		}
	}
}

// TestStylesDistinct holds the claim for every theme's picture: its two
// players' discs differ in lightness by a contrast of at least 3 to 1
// (MinDiscContrast, WCAG 2.1 SC 1.4.11) or carry different marks. The
// rows say which holds for each theme, so that a change of colours or
// marks is a decision made here.
func TestStylesDistinct(t *testing.T) {
	for _, tc := range []struct {
		name          string
		st            Style
		wantLightness bool // the contrast alone tells the discs apart
		wantMarks     bool // the marks alone do
	}{
		{"classic", Classic, true, false},
		{"colorblind", ColorBlind, false, true},
		{"forest", Forest, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Contrast(tc.st.Discs[1], tc.st.Discs[2])
			if got := c >= MinDiscContrast; got != tc.wantLightness {
				t.Errorf("contrast %.2f to 1: apart by lightness %v, want %v", c, got, tc.wantLightness)
			}
			if got := tc.st.Marks[1] != tc.st.Marks[2]; got != tc.wantMarks {
				t.Errorf("marks %v: apart by shape %v, want %v", tc.st.Marks, got, tc.wantMarks)
			}
			if !tc.st.Distinct() {
				t.Errorf("the discs (contrast %.2f to 1, marks %v) cannot be told apart without their hues", c, tc.st.Marks)
			}
		})
	}
	// A style whose discs are as light as each other and unmarked fails
	// the claim: Distinct can say no.
	same := Forest
	same.Marks = [3]Mark{}
	if same.Distinct() {
		t.Error("purple and green unmarked (1.09 to 1) counted as distinct")
	}
}

// TestMarksDrawn: a marked player's discs show the mark, in the outline's
// colour, on the diagonal of the disc; an unmarked player's do not.
func TestMarksDrawn(t *testing.T) {
	r := wonRound(t) // Player 1 in column 2, Player 2 at the bottom of 3 to 5
	for _, tc := range []struct {
		name string
		st   Style
	}{{"classic", Classic}, {"colorblind", ColorBlind}, {"forest", Forest}} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := Draw(r, tc.st, 4)
			if err != nil {
				t.Fatal(err)
			}
			cell := cellSize * 4
			// On the diagonal at 30% of the radius: inside the cross's arm.
			d := 8 // 0.3 × 40 / √2
			for _, at := range []game.Cell{{Row: 0, Column: 2}, {Row: 0, Column: 4}} {
				p := r.At(at.Row, at.Column)
				x := at.Column*cell + cell/2 + d
				y := (r.Rows()-1-at.Row)*cell + cell/2 + d
				got := img.RGBAAt(x, y)
				want := tc.st.Discs[p]
				if tc.st.Marks[p] == MarkCross {
					want = tc.st.Outline
				}
				if got != want {
					t.Errorf("player %d's disc on its diagonal: %v, want %v (mark %v)", p, got, want, tc.st.Marks[p])
				}
			}
		})
	}
}
