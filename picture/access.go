package picture

import (
	"image/color"
	"math"
)

// MinDiscContrast is the least contrast ratio (WCAG 2.x) between the two
// players' disc colours for the discs to be told apart by lightness alone:
// 3 to 1, what WCAG 2.1 success criterion 1.4.11 (Non-text Contrast) asks
// of the parts of a graphic a reader needs to understand it. Lightness is
// what survives every colour vision deficiency and a grey-scale print,
// where hue does not.
const MinDiscContrast = 3.0

// Contrast returns the contrast ratio of colours a and b as WCAG 2.x
// defines it: (L1 + 0.05) / (L2 + 0.05), L1 the relative luminance of the
// lighter colour and L2 of the darker, from 1 (the same lightness) to 21
// (black and white). Alpha is ignored.
func Contrast(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is the relative luminance of c (WCAG 2.x, from the sRGB
// transfer function): from 0 for black to 1 for white.
func luminance(c color.RGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// Distinct reports whether the two players' discs of st can be told apart
// without telling their hues apart: their colours' contrast ratio is at
// least MinDiscContrast, or the two players' discs carry different marks.
func (st Style) Distinct() bool {
	return Contrast(st.Discs[1], st.Discs[2]) >= MinDiscContrast || st.Marks[1] != st.Marks[2]
}
