package picture

import (
	"image/color"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"

	stdfont "golang.org/x/image/font"
)

// The pictures' text is set in Liberation Sans (SIL Open Font License 1.1),
// the sans-serif face that gonum.org/v1/plot embeds: it covers Latin,
// Greek and Cyrillic, not Chinese, Japanese, Korean or emoji (see CanDraw).
var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: stdfont.WeightBold}
)

// ink is the colour of the pictures' text and lines: a near-black that
// reads on their light backgrounds.
var ink = color.RGBA{0x1e, 0x1f, 0x24, 0xff}

// muted is the colour of secondary text (dates, axis titles).
var muted = color.RGBA{0x5c, 0x5e, 0x66, 0xff}

// textStyle returns the style of text in f at size pixels (the pictures'
// canvases have 72 dots per inch, so a point is a pixel), in colour c,
// anchored at its left and baseline... as XAlign and YAlign say.
func textStyle(f font.Font, size vg.Length, c color.Color, x text.XAlignment, y text.YAlignment) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(f, size),
		XAlign:  x,
		YAlign:  y,
		Handler: plot.DefaultTextHandler,
	}
}

// CanDraw reports whether the pictures can draw s as text: every rune of s
// has a glyph in both faces they use (Liberation Sans, regular and bold),
// and s needs nothing the drawing does not do, namely no control or format
// character (an emoji's variation selector or zero-width joiner, a
// direction mark), no combining mark (it would not be placed over its
// letter) and no right-to-left script (it would be drawn backwards). So a
// Latin, Greek or Cyrillic name can be drawn; one in Chinese, Japanese,
// Korean, Arabic or Hebrew, or with an emoji, cannot. The empty string can
// (it draws nothing). Every function of this package that takes text
// leaves out, rather than draws as empty boxes, the text that CanDraw
// refuses; a caller that wants words in every language checks with
// CanDraw and passes a fallback.
func CanDraw(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	faces := [...]*sfnt.Font{fontFace(sansFont), fontFace(boldFont)}
	var buf sfnt.Buffer
	for _, r := range s {
		switch {
		case r == ' ':
			continue
		case unicode.IsControl(r), unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Zl, unicode.Zp),
			unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko, unicode.Samaritan, unicode.Mandaic):
			return false
		}
		for _, f := range faces {
			if i, err := f.GlyphIndex(&buf, r); err != nil || i == 0 {
				return false
			}
		}
	}
	return true
}

// fontFace returns the parsed font of f from gonum/plot's font cache.
func fontFace(f font.Font) *sfnt.Font {
	return font.DefaultCache.Lookup(f, 12).Face
}

// drawable returns s when CanDraw(s), else "".
func drawable(s string) string {
	if CanDraw(s) {
		return s
	}
	return ""
}

// fit returns s, shortened with an ellipsis until it is at most width
// wide in style sty; "" when not even the ellipsis fits.
func fit(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	runes := []rune(s)
	for n := len(runes) - 1; n > 0; n-- {
		t := string(runes[:n]) + "…"
		if sty.Width(t) <= width {
			return t
		}
	}
	return ""
}
