package picture

import (
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestCanDraw(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
		want bool
	}{
		{"empty", "", true},
		{"English", "Alice wins", true},
		{"accents", "Zoë Ærøskøbing Ğ ß", true},
		{"Cyrillic", "Победа Алисы", true},
		{"Greek", "Νίκη", true},
		{"typographic marks", "2 – 1 · −12 …", true},
		{"Japanese", "アリスの勝ち", false},
		{"Chinese", "平局", false},
		{"Korean", "무승부", false},
		{"emoji", "🔴 wins", false},
		{"variation selector", "Bob\ufe0f", false},
		{"zero-width joiner", "Bob\u200d", false},
		{"combining accent", "Zoe\u0308", false},
		{"Hebrew", "שלום", false},
		{"Arabic", "سلام", false},
		{"control character", "Bob\n", false},
		{"invalid UTF-8", "Bob\xff", false},
	} {
		if got := CanDraw(tc.s); got != tc.want {
			t.Errorf("%s: CanDraw(%q) = %v, want %v", tc.name, tc.s, got, tc.want)
		}
	}
}

func TestFit(t *testing.T) {
	sty := textStyle(sansFont, 24, ink, 0, 0)
	long := "Bartholomew the Magnificent"
	for _, tc := range []struct {
		name  string
		s     string
		width float64
		want  string
	}{
		{"fits", "Bob", 200, "Bob"},
		{"shortened", long, 150, "Bartholome…"},
		{"nothing fits", long, 5, ""},
	} {
		got := fit(sty, tc.s, vgLen(tc.width))
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if w := sty.Width(got); float64(w) > tc.width {
			t.Errorf("%s: %q is %.0f wide, more than %.0f", tc.name, got, float64(w), tc.width)
		}
		// Shortened no more than needed: one more letter would not fit.
		if n := len([]rune(got)); got != tc.s && n > 0 {
			longer := string([]rune(tc.s)[:n]) + "…"
			if w := sty.Width(longer); float64(w) <= tc.width {
				t.Errorf("%s: %q shortened too much: %q is %.0f wide", tc.name, got, longer, float64(w))
			}
		}
	}
}

func vgLen(v float64) vg.Length { return vg.Length(v) }
