package render

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/picture"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// finishedMatch returns a finished, rated match between p1 and p2 in
// theme: Player 1 wins its only round with four in column 4 (rows 1–4),
// on 2026-11-29.
func finishedMatch(t *testing.T, theme, p1, p2 string) *sessions.Session {
	t.Helper()
	m, err := game.NewMatch(game.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{3, 4, 3, 4, 3, 4, 3} {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	if !m.Over() {
		t.Fatal("the match is not over")
	}
	return &sessions.Session{
		ID: 42, ChannelID: "1300000000000000001", GuildID: "1200000000000000001",
		Players: [2]sessions.Member{{ID: "1400000000000000001", Name: p1}, {ID: "1400000000000000002", Name: p2}},
		Config:  m.Config(), Match: m, Phase: sessions.PhaseFinished, End: sessions.EndWon, Theme: theme,
		UpdatedAt: time.Date(2026, 11, 29, 7, 30, 0, 0, time.UTC),
		Rated:     true,
		Ratings: &sessions.RatingChange{
			Before: [2]rating.Rating{{R: 1500, RD: 200, Sigma: 0.06}, {R: 1500, RD: 200, Sigma: 0.06}},
			After:  [2]rating.Rating{{R: 1512.4, RD: 190, Sigma: 0.06}, {R: 1487.6, RD: 190, Sigma: 0.06}},
		},
	}
}

// TestCardFacts checks what a result card shows of a finished match: both
// names, the score, each rating's change, the date, the winning line (the
// facts the card's alt text is made from), the column labels and the
// title; and that the card draws.
func TestCardFacts(t *testing.T) {
	s := finishedMatch(t, "classic", "Alice", "Bob")
	c := Card(locale.English(), s)
	f := c.Facts()
	if f.Names != [3]string{"", "Alice", "Bob"} || f.Score != [3]int{0, 1, 0} || f.Winner != game.Player1 || !f.Rated {
		t.Errorf("Facts() = names %q, score %v, winner %v, rated %t; want Alice and Bob, 1 – 0, Player 1, rated", f.Names, f.Score, f.Winner, f.Rated)
	}
	if c.Players[1].Rating != "+12" || c.Players[2].Rating != "−12" {
		t.Errorf("ratings %q and %q, want +12 and −12", c.Players[1].Rating, c.Players[2].Rating)
	}
	if c.Date != "2026-11-29" {
		t.Errorf("Date = %q, want 2026-11-29", c.Date)
	}
	wantLine := []game.Cell{{Row: 0, Column: 3}, {Row: 1, Column: 3}, {Row: 2, Column: 3}, {Row: 3, Column: 3}}
	if len(f.Board.Line) != 4 || !sameCells(f.Board.Line, wantLine) {
		t.Errorf("winning line %v, want column 4, rows 1–4: %v", f.Board.Line, wantLine)
	}
	if c.Title != "Connect 4 · 6 × 7 · first to win 1 round" || len(c.Columns) != 7 || c.Columns[6] != "7" {
		t.Errorf("title %q, columns %q", c.Title, c.Columns)
	}
	var buf bytes.Buffer
	if err := picture.EncodeCard(&buf, c); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil || img.Bounds().Dx() != picture.CardWidth {
		t.Fatalf("the card: %v, %v; want a PNG %d pixels wide", img.Bounds(), err, picture.CardWidth)
	}
}

func sameCells(a, b []game.Cell) bool {
	for _, x := range b {
		found := false
		for _, y := range a {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return len(a) == len(b)
}

// TestCardAlt checks the alt text says what the card shows, in the
// reader's language: the players with their colours, the score, who won,
// the winning line, the ratings' change and the date; and that a part
// that does not apply (no rating, no line) leaves no trace.
func TestCardAlt(t *testing.T) {
	s := finishedMatch(t, "forest", "Alice", "Bob")
	got := CardAlt(locale.English(), s)
	want := "Result card of a Connect 4 match, 2026-11-29: Alice (purple) 1, Bob (green) 0. Alice wins the match. " +
		"The final board shows the winning line, 4 in a row: column 4, rows 1–4. Ratings: Alice +12, Bob −12."
	if got != want {
		t.Errorf("CardAlt(en) =\n%s\nwant\n%s", got, want)
	}
	ja := CardAlt(locale.Default().Localizer("ja"), s)
	for _, fact := range []string{"Alice（紫）1", "Bob（緑）0", "Aliceの勝ちです。", "勝ちの並び（4連：4列目、1–4段目）", "+12", "−12", "2026-11-29"} {
		if !strings.Contains(ja, fact) {
			t.Errorf("CardAlt(ja) lacks %q: %s", fact, ja)
		}
	}
	if strings.Contains(ja, " 。") || strings.Contains(ja, "。 ") {
		t.Errorf("CardAlt(ja) puts a space beside 。: %s", ja)
	}
	unrated := finishedMatch(t, "classic", "Alice", "Bob")
	unrated.Ratings, unrated.Rated = nil, false
	got = CardAlt(locale.English(), unrated)
	if strings.Contains(got, "Ratings") || strings.Contains(got, "  ") || strings.HasSuffix(got, " ") {
		t.Errorf("CardAlt(unrated) = %q, want no ratings and no stray space", got)
	}
}

// TestCardNamesItCannotDraw checks the card's fallback for names its font
// cannot draw (Japanese, Korean, an emoji): "Player 1" beside the disc,
// in the reader's language when the font draws it (German), in English
// when it does not (Japanese); the card's other words fall back to English
// the same way, while the alt text keeps the real names.
func TestCardNamesItCannotDraw(t *testing.T) {
	s := finishedMatch(t, "classic", "山田太郎", "Bob 🎲")
	for _, tc := range []struct {
		lang, p1, p2, title string
	}{
		{"en", "Player 1", "Player 2", "Connect 4 · 6 × 7 · first to win 1 round"},
		{"de", "Spieler 1", "Spieler 2", "Connect 4 · 6 × 7 · auf 1 Gewinnrunde"},
		{"ja", "Player 1", "Player 2", "Connect 4 · 6 × 7 · first to win 1 round"},
	} {
		l := locale.Default().Localizer(tc.lang)
		c := Card(l, s)
		f := c.Facts()
		if f.Names[1] != tc.p1 || f.Names[2] != tc.p2 {
			t.Errorf("%s: the card draws %q and %q, want %q and %q", tc.lang, f.Names[1], f.Names[2], tc.p1, tc.p2)
		}
		if c.Title != tc.title {
			t.Errorf("%s: title %q, want %q", tc.lang, c.Title, tc.title)
		}
		for _, text := range []string{c.Title, c.Date, c.Detail, f.Names[1], f.Names[2]} {
			if !picture.CanDraw(text) {
				t.Errorf("%s: the card has %q, which it cannot draw", tc.lang, text)
			}
		}
		if alt := CardAlt(l, s); !strings.Contains(alt, "山田太郎") || !strings.Contains(alt, "Bob 🎲") {
			t.Errorf("%s: the alt text lacks the real names: %s", tc.lang, alt)
		}
		if _, err := picture.DrawCard(c); err != nil {
			t.Errorf("%s: DrawCard: %v", tc.lang, err)
		}
	}
}

// TestAttachCarriesAltText checks that an attached picture carries its alt
// text with its bytes, cut to what Discord keeps.
func TestAttachCarriesAltText(t *testing.T) {
	var msg Message
	url := Attach(&msg, "card.png", []byte("png"), strings.Repeat("é", 2000))
	if url != "attachment://card.png" || len(msg.Files) != 1 || msg.Files[0].Name != "card.png" {
		t.Fatalf("Attach() = %q, files %+v", url, msg.Files)
	}
	a, ok := msg.Files[0].Reader.(AltFile)
	if !ok || len([]rune(a.AltText())) != maxAltText || !strings.HasSuffix(a.AltText(), "…") {
		t.Errorf("the file's alt text: %T, %d characters, want %d ending in …", msg.Files[0].Reader, len([]rune(a.Alt)), maxAltText)
	}
}

// TestCardMessagesInEveryLanguage renders the card's messages in every
// language with the longest names: every message is in the catalog, the
// content fits Discord's 2,000 characters, and the alt text fits the
// 1,024 Discord keeps without being cut.
func TestCardMessagesInEveryLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: draws both cards in every language on one goroutine (25 s under the race detector); the plain run checks them")
	}
	worst := strings.Repeat("*", 40)
	s := finishedMatch(t, "forest", worst, worst)
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().Localizer(lang)
		private, err := ResultCard(l, s, true)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := SharedCard(l, s, game.Player2)
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range []*Message{private, shared} {
			if n := len([]rune(msg.Content)); n > 2000 {
				t.Errorf("%s: content of %d characters: %s", lang, n, msg.Content)
			}
		}
		if alt := CardAlt(l, s); len([]rune(alt)) > maxAltText {
			t.Errorf("%s: alt text of %d characters, more than Discord keeps", lang, len([]rune(alt)))
		}
		Card(l, s)
		if missing := l.Missing(); len(missing) > 0 {
			t.Errorf("%s: not in the catalog: %q", lang, missing)
		}
	}
}
