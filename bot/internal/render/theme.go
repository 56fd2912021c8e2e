package render

import (
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/picture"
)

// Theme is the set of emoji a board is drawn with. Every emoji was checked in
// Discord's dark and light themes (drawn with Twemoji, as Discord does): the
// empty cell stands out from the embed's background in both, and the
// winning-line marks differ from the empty cell and from the discs. An emoji
// means one thing in every theme: no theme's winning mark or disc is another
// theme's empty cell, so a player used to one theme never misreads another.
// The last disc played is marked the same way in every theme, by LastMark
// over its column.
type Theme struct {
	// Name is the value of the challenge's theme option; the catalog's
	// message choice_theme_<Name> names it in the option's choices.
	Name string
	// Empty is an empty cell.
	Empty string
	// Disc and Win are indexed by game.Player (index 0 unused): a player's
	// disc, and a disc on the winning line.
	Disc, Win [3]string
	// Color is the embed colour of each player's turn (index 0: neutral).
	Color [3]int
	// Picture is the style of the board drawn as an image.
	Picture picture.Style
	// Colours names each player's colour in the pictures, as the catalog
	// message that says it ("colour_red"), indexed by game.Player (index
	// 0 unused): alt texts name the players' discs by them.
	Colours [3]string
}

// LastMark stands over the column of the last disc played, in place of its
// header, in every theme: the last disc is the top one of its column, and
// an arrow pointing down into a column reads as "dropped here" in any
// colours. Twemoji draws it as a blue tile like the keycaps beside it, so
// it sits in the header row and reads in Discord's dark and light modes.
const LastMark = "⬇️"

// ClosedColor is the embed colour of a challenge that ended without a
// match: a neutral grey, in every theme.
const ClosedColor = 0x80848E

// Themes are the themes, the first being the default. In every theme the
// two players' discs can be told apart without telling their hues apart
// (a colour vision deficiency, a grey-scale screen): they differ in
// lightness (a WCAG contrast of at least picture.MinDiscContrast between
// their Twemoji colours) or in shape. Classic's red and yellow circles
// differ in lightness (3.0 to 1); the colour-blind theme's blue circle and
// orange star, and the forest's purple circle and green clover, are as
// light as each other and differ in shape. The colour-blind pair, blue and
// orange, also stays apart under protanopia, deuteranopia and tritanopia;
// its empty cell is a grey framed square, neither blue nor orange, and its
// winning line diamonds, a shape apart from the discs that needs no colour
// to be told from them (a blue square would be the classic empty cell).
// The forest's clover and circle stand out from its wooden cells, whose
// brown is darker than either.
var Themes = []Theme{
	{
		Name:    "classic",
		Empty:   "🟦",
		Disc:    [3]string{"", "🔴", "🟡"},
		Win:     [3]string{"", "🟥", "🟨"},
		Color:   [3]int{0x5865F2, 0xDD2E44, 0xFDCB58},
		Picture: picture.Classic,
		Colours: [3]string{"", "colour_red", "colour_yellow"},
	},
	{
		Name:    "colorblind",
		Empty:   "🔳",
		Disc:    [3]string{"", "🔵", "⭐"},
		Win:     [3]string{"", "🔷", "🔶"},
		Color:   [3]int{0x5865F2, 0x55ACEE, 0xFFAC33},
		Picture: picture.ColorBlind,
		Colours: [3]string{"", "colour_blue", "colour_orange"},
	},
	{
		Name:    "forest",
		Empty:   "🟫",
		Disc:    [3]string{"", "🟣", "🍀"},
		Win:     [3]string{"", "🟪", "🟩"},
		Color:   [3]int{0x5865F2, 0xAA8ED6, 0x77B255},
		Picture: picture.Forest,
		Colours: [3]string{"", "colour_purple", "colour_green"},
	},
}

// ThemeNamed returns the theme called name, and the default theme for ""
// or an unknown name (a theme retired after a match was stored).
func ThemeNamed(name string) Theme {
	for _, t := range Themes {
		if t.Name == name {
			return t
		}
	}
	return Themes[0]
}

// DiscOf returns p's disc in t, the empty cell for game.NoPlayer.
func (t Theme) DiscOf(p game.Player) string {
	if !p.Valid() {
		return t.Empty
	}
	return t.Disc[p]
}

// ColorOf returns the embed colour for p, neutral for game.NoPlayer.
func (t Theme) ColorOf(p game.Player) int {
	if !p.Valid() {
		return t.Color[0]
	}
	return t.Color[p]
}
