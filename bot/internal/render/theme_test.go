package render

import (
	"image/color"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/picture"
)

// look is how Twemoji 16.0.1 (Discord's emoji) draws an emoji used as a
// disc: its shape and its fill colour, read from its SVG
// (@discordapp/twemoji 16.0.1, assets/svg/<code point>.svg).
type look struct {
	shape  string
	colour color.RGBA
}

var twemoji = map[string]look{
	"🔴": {"circle", color.RGBA{0xDD, 0x2E, 0x44, 0xff}}, // 1f534
	"🟡": {"circle", color.RGBA{0xFD, 0xCB, 0x58, 0xff}}, // 1f7e1
	"🔵": {"circle", color.RGBA{0x55, 0xAC, 0xEE, 0xff}}, // 1f535
	"🟠": {"circle", color.RGBA{0xF4, 0x90, 0x0C, 0xff}}, // 1f7e0
	"🟣": {"circle", color.RGBA{0xAA, 0x8E, 0xD6, 0xff}}, // 1f7e3
	"🟢": {"circle", color.RGBA{0x78, 0xB1, 0x59, 0xff}}, // 1f7e2
	"⭐": {"star", color.RGBA{0xFF, 0xAC, 0x33, 0xff}},   // 2b50
	"🍀": {"clover", color.RGBA{0x77, 0xB2, 0x55, 0xff}}, // 1f340
	// The empty cells.
	"🟦": {"square", color.RGBA{0x55, 0xAC, 0xEE, 0xff}}, // 1f7e6
	"🔳": {"square", color.RGBA{0x31, 0x37, 0x3D, 0xff}}, // 1f533 (its frame; the inside is #E6E7E8)
	"🟫": {"square", color.RGBA{0xC1, 0x69, 0x4F, 0xff}}, // 1f7eb
}

// discsApart reports whether two disc emoji can be told apart without
// their hues: another shape, or a contrast of picture.MinDiscContrast.
func discsApart(a, b look) bool {
	return a.shape != b.shape || picture.Contrast(a.colour, b.colour) >= picture.MinDiscContrast
}

// TestThemesDiscsApartWithoutHue checks, for every theme, that its two
// discs differ in shape or in lightness, as emoji and as pictures, and
// that the criterion bites: the forest's former pair (purple and green
// circles, 1.1 to 1) and the colour-blind theme's (blue and orange
// circles) fail it.
func TestThemesDiscsApartWithoutHue(t *testing.T) {
	for _, th := range Themes {
		a, okA := twemoji[th.Disc[game.Player1]]
		b, okB := twemoji[th.Disc[game.Player2]]
		if !okA || !okB {
			t.Errorf("theme %s: discs %s and %s have no Twemoji look in this test: add them", th.Name, th.Disc[1], th.Disc[2])
			continue
		}
		if !discsApart(a, b) {
			t.Errorf("theme %s: discs %s and %s are both %ss of contrast %.2f, want another shape or %.1f to 1",
				th.Name, th.Disc[1], th.Disc[2], a.shape, picture.Contrast(a.colour, b.colour), picture.MinDiscContrast)
		}
		// A disc stands out from the empty cells around it: another
		// shape (a circle among squares), or enough lightness.
		if e, ok := twemoji[th.Empty]; !ok {
			t.Errorf("theme %s: empty cell %s has no Twemoji look in this test: add it", th.Name, th.Empty)
		} else {
			for _, d := range []look{a, b} {
				if !discsApart(d, e) {
					t.Errorf("theme %s: a disc (%s) and the empty cell %s are alike in shape and lightness", th.Name, d.shape, th.Empty)
				}
			}
		}
		if !th.Picture.Distinct() {
			t.Errorf("theme %s: the picture's discs are neither %.1f to 1 apart nor marked differently", th.Name, picture.MinDiscContrast)
		}
		for p := game.Player1; p <= game.Player2; p++ {
			if th.Colours[p] == "" {
				t.Errorf("theme %s: player %d's colour has no name", th.Name, p)
			}
		}
	}
	for _, pair := range [][2]string{{"🟣", "🟢"}, {"🔵", "🟠"}} {
		if discsApart(twemoji[pair[0]], twemoji[pair[1]]) {
			t.Errorf("%s and %s pass the test, want them refused: the test does not bite", pair[0], pair[1])
		}
	}
}
