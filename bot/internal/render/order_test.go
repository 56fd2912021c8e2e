package render

import (
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// playing returns a session of a two-round match of Connect 4 on 6 × 7
// between Alice and Bob with moves played in its first round.
func playing(t *testing.T, moves ...int) *sessions.Session {
	t.Helper()
	cfg := game.DefaultConfig()
	cfg.Wins = 2
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	return &sessions.Session{
		ID: 7, ChannelID: "1300000000000000001", GuildID: "1200000000000000001",
		Players: [2]sessions.Member{{ID: "1400000000000000001", Name: "Alice"}, {ID: "1400000000000000002", Name: "Bob"}},
		Config:  m.Config(), Match: m, Phase: sessions.PhasePlaying,
		Deadline: time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC),
	}
}

// TestBoardTextBeforeTheGrid checks the order a screen reader reads a
// board message's description in: the score, whose turn it is (or how the
// round or match ended), the last disc (or the winning line), and only
// then the grid, whose emoji it reads one by one; in every language.
func TestBoardTextBeforeTheGrid(t *testing.T) {
	for _, lang := range []string{"en", "de", "ja"} {
		l := locale.Default().Localizer(lang)
		live := playing(t, 3, 3, 2)
		won := playing(t, 0, 1, 0, 1, 0, 1, 0) // Alice wins round 1 in column 1
		record := won.Match.Previous()
		over := finishedMatch(t, "classic", "Alice", "Bob")
		r := live.Match.Round()
		last, _ := r.LastMove()
		for _, tc := range []struct {
			name   string
			desc   string
			before []string // in this order, all before the grid
			grid   string   // the grid's header row
		}{
			{"board", Board(l, live).Embeds[0].Description,
				[]string{scoreLine(l, live), l.T("board_to_play", "Player", Name(l, live, game.Player2)),
					l.T("board_last_disc", "Mark", LastMark, "Disc", "🔴", "Column", ColumnLabel(last.Column, 7))},
				"1️⃣2️⃣⬇️4️⃣"},
			{"round record", RoundRecord(l, won, record).Embeds[0].Description,
				[]string{RoundResult(l, won, record), winningLines(l, Themes[0], record, game.Cell{Row: 3, Column: 0}, 4)},
				"⬇️2️⃣3️⃣"},
			{"match over", MatchOver(l, over, nil, "", true).Embeds[0].Description,
				[]string{matchResult(l, over), winningLines(l, Themes[0], over.Match.Round(), game.Cell{Row: 3, Column: 3}, 4)},
				"1️⃣2️⃣3️⃣⬇️"},
		} {
			grid := strings.Index(tc.desc, tc.grid)
			if grid < 0 {
				t.Fatalf("%s %s: no grid %q in\n%s", lang, tc.name, tc.grid, tc.desc)
			}
			at := -1
			for _, want := range tc.before {
				i := strings.Index(tc.desc, want)
				switch {
				case i < 0:
					t.Errorf("%s %s: lacks %q:\n%s", lang, tc.name, want, tc.desc)
				case i < at:
					t.Errorf("%s %s: %q comes before what it should follow:\n%s", lang, tc.name, want, tc.desc)
				case i > grid:
					t.Errorf("%s %s: %q comes after the grid; a screen reader reads it last:\n%s", lang, tc.name, want, tc.desc)
				}
				at = i
			}
		}
	}
}
