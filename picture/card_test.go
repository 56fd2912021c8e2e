package picture

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
)

// playRound returns the last round of a match of cfg after the moves
// (columns from 0), played in turn.
func playRound(t *testing.T, cfg game.Config, moves ...int) *game.Round {
	t.Helper()
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	return m.Round()
}

// wonRound is a 6 × 7 round that Player 1 won with a vertical line in
// column 2 (index 2), Player 2's discs along the bottom of columns 3 to 5.
func wonRound(t *testing.T) *game.Round {
	t.Helper()
	return playRound(t, game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, 2, 3, 2, 4, 2, 5, 2)
}

func sampleCard(t *testing.T, st Style) Card {
	t.Helper()
	return Card{
		Round: wonRound(t), Style: st, Winner: game.Player1,
		Players: [3]CardPlayer{{},
			{Name: "Alice", Fallback: "Player 1", Score: 2, Rating: "+12"},
			{Name: "Bob", Fallback: "Player 2", Score: 1, Rating: "−12"}},
		Detail: "1 draw",
		Title:  "Connect 4 · 6 × 7 · first to 2", Date: "29 November 2025",
	}
}

func drawCard(t *testing.T, c Card) *image.RGBA {
	t.Helper()
	img, err := DrawCard(c)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// cellCentre returns the image pixel at the centre of board cell (row,
// column) of card c, dx to the right of it.
func cellCentre(c Card, row, column, dx int) image.Point {
	l := c.layout()
	x := l.boardX + l.frame + column*l.cell + l.cell/2 + dx
	y := l.boardY + l.frame + (c.Round.Rows()-1-row)*l.cell + l.cell/2
	return image.Pt(x, y)
}

func TestCardSize(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cfg          game.Config
		wantW, wantH int
	}{
		{"6 × 7", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, 800, 776},
		{"12 × 12", game.Config{Rows: 12, Columns: 12, Connect: 4, Wins: 1}, 800, 858},
		{"4 × 4", game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 1}, 800, 616},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sampleCard(t, Classic)
			c.Round = playRound(t, tc.cfg, 0)
			if got := drawCard(t, c).Bounds().Size(); got != image.Pt(tc.wantW, tc.wantH) {
				t.Errorf("size %v, want %dx%d", got, tc.wantW, tc.wantH)
			}
		})
	}
}

// TestCardBoard: the card's board is the final position in the card's
// style: each disc in its player's colour (and mark), empty holes, the
// winning line ringed, the players' discs in the header, the band along
// the top in the winner's colour.
func TestCardBoard(t *testing.T) {
	for _, st := range []struct {
		name string
		st   Style
	}{{"classic", Classic}, {"colorblind", ColorBlind}, {"forest", Forest}} {
		t.Run(st.name, func(t *testing.T) {
			c := sampleCard(t, st.st)
			img := drawCard(t, c)
			l := c.layout()
			off := l.cell * 15 / 100 // inside the disc, off its mark, its ring and its dot
			for _, tc := range []struct {
				name        string
				row, column int
				dx          int
				want        color.RGBA
			}{
				{"Player 1's disc", 0, 2, off, st.st.Discs[1]},
				{"Player 2's disc", 0, 4, off, st.st.Discs[2]},
				{"an empty hole", 0, 0, 0, st.st.Empty},
				{"an empty hole at the top", 5, 6, 0, st.st.Empty},
				{"the winning line's ring", 3, 2, int(float64(l.cell) * 0.36 * 0.71), st.st.Ring},
			} {
				p := cellCentre(c, tc.row, tc.column, tc.dx)
				if got := img.RGBAAt(p.X, p.Y); got != tc.want {
					t.Errorf("%s at %v: %v, want %v", tc.name, p, got, tc.want)
				}
			}
			if got := img.RGBAAt(CardWidth/2, 2); got != st.st.Discs[1] {
				t.Errorf("the top band: %v, want the winner's %v", got, st.st.Discs[1])
			}
			for p, x := range map[game.Player]int{game.Player1: cardPad + 22 - 8, game.Player2: CardWidth - cardPad - 22 - 8} {
				if got := img.RGBAAt(x, l.headerY); got != st.st.Discs[p] {
					t.Errorf("player %d's disc in the header: %v, want %v", p, got, st.st.Discs[p])
				}
			}
		})
	}
	c := sampleCard(t, Classic)
	c.Winner = game.NoPlayer
	if got := drawCard(t, c).RGBAAt(CardWidth/2, 2); got != neutralBar {
		t.Errorf("the top band of a match nobody won: %v, want grey %v", got, neutralBar)
	}
}

// TestCardNames: a name that cannot be drawn gives way to its fallback,
// and to nothing when neither can be drawn; the card is then exactly the
// one drawn with those texts, so no glyph of the name is drawn as a box.
func TestCardNames(t *testing.T) {
	for _, tc := range []struct {
		name            string
		player, drawnAs CardPlayer
		wantName        string
	}{
		{"Latin name", CardPlayer{Name: "Zoë", Fallback: "Player 1"}, CardPlayer{Name: "Zoë"}, "Zoë"},
		{"Japanese name, fallback", CardPlayer{Name: "アリス", Fallback: "Player 1"}, CardPlayer{Name: "Player 1"}, "Player 1"},
		{"emoji in the name", CardPlayer{Name: "Ali 🔥", Fallback: "Player 1"}, CardPlayer{Name: "Player 1"}, "Player 1"},
		{"neither drawable", CardPlayer{Name: "アリス", Fallback: "プレイヤー1"}, CardPlayer{}, ""},
		{"no name", CardPlayer{Fallback: "Player 1"}, CardPlayer{Name: "Player 1"}, "Player 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, want := sampleCard(t, Classic), sampleCard(t, Classic)
			tc.player.Score, tc.drawnAs.Score = 2, 2
			tc.player.Rating, tc.drawnAs.Rating = "+12", "+12"
			c.Players[1], want.Players[1] = tc.player, tc.drawnAs
			if got := c.Facts().Names[1]; got != tc.wantName {
				t.Errorf("facts name %q, want %q", got, tc.wantName)
			}
			if string(drawCard(t, c).Pix) != string(drawCard(t, want).Pix) {
				t.Errorf("the card differs from the card drawn with %+v", tc.drawnAs)
			}
		})
	}
}

// TestCardRating: a rise is drawn in green, a fall in red, an unrated
// match draws no change.
func TestCardRating(t *testing.T) {
	count := func(img *image.RGBA, c color.RGBA) int {
		n := 0
		for i := 0; i < len(img.Pix); i += 4 {
			if img.Pix[i] == c.R && img.Pix[i+1] == c.G && img.Pix[i+2] == c.B {
				n++
			}
		}
		return n
	}
	rated := drawCard(t, sampleCard(t, Classic))
	unrated := sampleCard(t, Classic)
	unrated.Players[1].Rating, unrated.Players[2].Rating = "", ""
	plain := drawCard(t, unrated)
	for _, tc := range []struct {
		name      string
		img       *image.RGBA
		up, down  bool
		wantRated bool
	}{
		{"rated", rated, true, true, true},
		{"unrated", plain, false, false, false},
	} {
		if got := count(tc.img, ratingUp) > 10; got != tc.up {
			t.Errorf("%s: green rise drawn %v, want %v", tc.name, got, tc.up)
		}
		if got := count(tc.img, ratingDown) > 10; got != tc.down {
			t.Errorf("%s: red fall drawn %v, want %v", tc.name, got, tc.down)
		}
	}
	if !sampleCard(t, Classic).Facts().Rated || unrated.Facts().Rated {
		t.Error("facts: Rated wrong")
	}
}

func TestCardRefuses(t *testing.T) {
	with := func(f func(c *Card)) Card {
		c := sampleCard(t, Classic)
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		c    Card
		want string
	}{
		{"no round", with(func(c *Card) { c.Round = nil }), "without a round"},
		{"13 × 12 board", with(func(c *Card) {
			c.Round = playRound(t, game.Config{Rows: 13, Columns: 12, Connect: 4, Wins: 1})
		}), "13 × 12"},
		{"winner not a player", with(func(c *Card) { c.Winner = 3 }), "winner 3"},
		{"negative score", with(func(c *Card) { c.Players[2].Score = -1 }), "2 – -1"},
		{"column labels", with(func(c *Card) { c.Columns = []string{"A", "B"} }), "2 column labels for 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := DrawCard(tc.c)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || img != nil {
				t.Errorf("error %v, want ErrInvalid saying %q and no image", err, tc.want)
			}
		})
	}
}

// TestCardColumns: the column labels the caller passes replace 1 to n.
func TestCardColumns(t *testing.T) {
	c := sampleCard(t, Classic)
	letters := sampleCard(t, Classic)
	letters.Columns = strings.Split("ABCDEFG", "")
	same := sampleCard(t, Classic)
	same.Columns = strings.Split("1234567", "")
	if string(drawCard(t, c).Pix) != string(drawCard(t, same).Pix) {
		t.Error("labels 1 to 7 differ from no labels")
	}
	if string(drawCard(t, c).Pix) == string(drawCard(t, letters).Pix) {
		t.Error("letters drawn as numbers")
	}
}

func TestCardGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		st   Style
	}{
		{"card-classic.golden.png", Classic},
		{"card-forest.golden.png", Forest},
	} {
		checkGolden(t, tc.file, drawCard(t, sampleCard(t, tc.st)))
	}
}

// TestEncodes: the PNGs decode to the images drawn.
func TestEncodes(t *testing.T) {
	var card, chart bytes.Buffer
	if err := EncodeCard(&card, sampleCard(t, Classic)); err != nil {
		t.Fatal(err)
	}
	if err := EncodeEvalChart(&chart, sampleChart()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		buf  *bytes.Buffer
		want *image.RGBA
	}{
		{"card", &card, drawCard(t, sampleCard(t, Classic))},
		{"chart", &chart, drawChart(t, sampleChart())},
	} {
		img, err := png.Decode(tc.buf)
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", tc.name, err)
		}
		got := image.NewRGBA(img.Bounds())
		stddraw.Draw(got, got.Rect, img, image.Point{}, stddraw.Src)
		if !got.Rect.Eq(tc.want.Rect) || string(got.Pix) != string(tc.want.Pix) {
			t.Errorf("%s: the PNG is not the image drawn", tc.name)
		}
	}
	if err := EncodeCard(io.Discard, Card{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("EncodeCard of an empty card: %v, want ErrInvalid", err)
	}
	if err := EncodeEvalChart(io.Discard, EvalChart{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("EncodeEvalChart of an empty chart: %v, want ErrInvalid", err)
	}
}
