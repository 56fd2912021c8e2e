package render

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/limits"
	"github.com/connectn/connectn/bot/internal/wire"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// TestHeadersMatchButtons checks, for every width, that the header row
// reads as the buttons' labels: keycaps 1 to 10, then letters kept apart so
// that no two regional indicators touch (they would become a flag).
func TestHeadersMatchButtons(t *testing.T) {
	for columns := minColumns; columns <= maxColumns; columns++ {
		s := testSession(t, game.Config{Rows: 6, Columns: columns, Connect: 4, Wins: 1}, "", nil, "A", "B")
		header := headerRow(columns)
		var cells []string
		if columns <= 10 {
			for c := 0; c < columns; c++ {
				if !strings.HasPrefix(header, keycaps[c]) {
					t.Fatalf("%d columns: header %q lacks keycap %d at its place", columns, header, c+1)
				}
				header = header[len(keycaps[c]):]
				cells = append(cells, fmt.Sprint(c+1))
			}
			if header != "" {
				t.Fatalf("%d columns: header has %q left", columns, header)
			}
		} else {
			prevRegional := false
			for _, r := range header {
				regional := r >= 0x1F1E6 && r <= 0x1F1FF
				if regional && prevRegional {
					t.Fatalf("%d columns: two regional indicators touch in %q", columns, header)
				}
				if regional {
					cells = append(cells, string(rune('A'+r-0x1F1E6)))
				} else if string(r) != zwsp {
					t.Fatalf("%d columns: header holds %q", columns, r)
				}
				prevRegional = regional
			}
		}
		var got []string
		for _, b := range boardButtons(en, s) {
			row, _ := wire.Component[discordgo.ActionsRow](b)
			for _, c := range row.Components {
				if btn, _ := wire.Component[discordgo.Button](c); btn.Label != "Forfeit match" {
					got = append(got, btn.Label)
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(cells, " ") {
			t.Errorf("%d columns: buttons %q, header reads %q", columns, got, cells)
		}
	}
}

func TestTallBoardsRepeatTheHeader(t *testing.T) {
	for rows := minRows; rows <= maxRows; rows++ {
		s := testSession(t, game.Config{Rows: rows, Columns: 7, Connect: 4, Wins: 1}, "", nil, "A", "B")
		grid := Grid(ThemeNamed(""), s.Match.Round())
		lines := strings.Split(strings.TrimSuffix(grid, "\n"), "\n")
		want := rows + 1
		if rows >= tallRows {
			want++
			if lines[len(lines)-1] != lines[0] {
				t.Errorf("%d rows: last line %q, want the header again", rows, lines[len(lines)-1])
			}
		}
		if len(lines) != want {
			t.Errorf("%d rows: %d grid lines, want %d", rows, len(lines), want)
		}
	}
}

// TestLastMarkOverItsColumn: from the first disc on, LastMark stands in the
// header row over the column of the last disc (the top disc of that
// column), in place of its label, and nowhere else: not in the grid, not in
// the header repeated under a tall board; a fresh board has none.
func TestLastMarkOverItsColumn(t *testing.T) {
	for _, columns := range []int{4, 7, 10, 11, 12} {
		for _, rows := range []int{6, tallRows} {
			cfg := game.Config{Rows: rows, Columns: columns, Connect: 4, Wins: 1}
			moves := []int{0, columns - 1, 2, 2}
			for n := range moves {
				s := testSession(t, cfg, "", moves[:n], "A", "B")
				lines := strings.Split(Grid(ThemeNamed(""), s.Match.Round()), "\n")
				if n == 0 {
					if strings.Contains(strings.Join(lines, "\n"), LastMark) || lines[0] != headerRow(columns) {
						t.Errorf("%dx%d fresh board: header %q, want %q and no %s", rows, columns, lines[0], headerRow(columns), LastMark)
					}
					continue
				}
				if got := strings.Count(strings.Join(lines, "\n"), LastMark); got != 1 || !strings.Contains(lines[0], LastMark) {
					t.Errorf("%dx%d after %d discs: %d marks, header %q", rows, columns, n, got, lines[0])
				}
				var want strings.Builder
				writeHeader(&want, columns, moves[n-1])
				if lines[0] != want.String() {
					t.Errorf("%dx%d after %d discs: header %q, want the mark over column %d: %q", rows, columns, n, lines[0], moves[n-1]+1, want.String())
				}
				if !strings.HasPrefix(boardNotes(en, s, s.Match.Round()), LastMark+" Last disc: ") {
					t.Errorf("%dx%d after %d discs: notes %q do not start with the mark", rows, columns, n, boardNotes(en, s, s.Match.Round()))
				}
			}
		}
	}
}

// TestWinningLines names the line of every kind of win: along the bottom
// row or another, up a column, up either diagonal (from its left end), two
// lines at once, a line longer than connect, and columns labelled by
// letters on wide boards.
func TestWinningLines(t *testing.T) {
	tests := []struct {
		name  string
		cfg   game.Config
		moves []int
		want  string
	}{
		{"column", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{0, 1, 0, 1, 0, 1, 0},
			"🟥 4 in a row: column 1, rows 1–4"},
		{"column, higher up", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{2, 2, 1, 2, 1, 2, 1, 2},
			"🟨 4 in a row: column 3, rows 2–5"},
		{"bottom row", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{1, 1, 2, 2, 3, 3, 4},
			"🟥 4 in a row: the bottom row, columns 2–5"},
		{"row 2", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{0, 2, 1, 0, 3, 1, 6, 2, 6, 3},
			"🟨 4 in a row: row 2, columns 1–4"},
		{"diagonal up to the right", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3},
			"🟥 4 in a row: diagonal from column 1, row 1 to column 4, row 4"},
		{"diagonal down to the right", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3},
			"🟥 4 in a row: diagonal from column 4, row 4 to column 7, row 1"},
		{"two lines", game.Config{Rows: 6, Columns: 7, Connect: 3, Wins: 1}, []int{0, 0, 1, 6, 1, 6, 0, 5, 2},
			"🟥 3 in a row: the bottom row, columns 1–3 · 🟥 3 in a row: diagonal from column 1, row 3 to column 3, row 1"},
		{"longer than connect", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{0, 0, 1, 1, 3, 3, 4, 4, 2},
			"🟥 5 in a row: the bottom row, columns 1–5"},
		{"letters", game.Config{Rows: 6, Columns: 12, Connect: 4, Wins: 1}, []int{8, 8, 9, 9, 10, 10, 11},
			"🟥 4 in a row: the bottom row, columns I–L"},
		{"colour-blind", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, []int{0, 1, 0, 1, 0, 1, 0},
			"🔷 4 in a row: column 1, rows 1–4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			theme := ""
			if tc.name == "colour-blind" {
				theme = "colorblind"
			}
			s := testSession(t, tc.cfg, theme, tc.moves, "A", "B")
			r := s.Match.Round()
			if r.Outcome() != game.Won {
				t.Fatalf("round %v, want won:\n%s", r.Outcome(), r.Board())
			}
			got := boardNotes(en, s, r)
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q in it:\n%s", got, tc.want, r.Board())
			}
		})
	}
}

// TestButtonRowsBalanced: the column buttons take as few rows of at most
// four as they need (a row of five wraps as 4 + 1 at 400 pixels; Discord
// allows five), as even as can be (7 as 4 + 3, 12 as 4 + 4 + 4), the
// longer rows first, in column order, and Forfeit match alone under them.
func TestButtonRowsBalanced(t *testing.T) {
	if rowButtons > limits.ButtonsPerRow {
		t.Fatalf("rows of %d buttons, Discord allows %d", rowButtons, limits.ButtonsPerRow)
	}
	want := map[int]string{4: "4", 5: "3 2", 6: "3 3", 7: "4 3", 8: "4 4", 9: "3 3 3", 10: "4 3 3", 11: "4 4 3", 12: "4 4 4"}
	for columns := minColumns; columns <= maxColumns; columns++ {
		s := testSession(t, game.Config{Rows: 6, Columns: columns, Connect: 4, Wins: 1}, "", nil, "A", "B")
		rows := boardButtons(en, s)
		var widths []string
		var labels []string
		for k, row := range rows {
			r, _ := wire.Component[discordgo.ActionsRow](row)
			for _, c := range r.Components {
				b, _ := wire.Component[discordgo.Button](c)
				labels = append(labels, b.Label)
			}
			if k < len(rows)-1 {
				widths = append(widths, fmt.Sprint(len(r.Components)))
			} else if len(r.Components) != 1 || labels[len(labels)-1] != "Forfeit match" {
				t.Errorf("%d columns: last row %q, want Forfeit match alone", columns, labels)
			}
		}
		if got := strings.Join(widths, " "); got != want[columns] {
			t.Errorf("%d columns: rows of %s, want %s", columns, got, want[columns])
		}
		for c := range columns {
			if labels[c] != ColumnLabel(c, columns) {
				t.Errorf("%d columns: button %d reads %q, want %q", columns, c, labels[c], ColumnLabel(c, columns))
			}
		}
	}
}

// TestBoardButtonsAllocations keeps boardButtons, which runs at every move,
// to its few allocations at every width: the custom_ids, their offsets,
// the buttons and the rows, each in one piece, and the Forfeit label.
func TestBoardButtonsAllocations(t *testing.T) {
	for _, columns := range []int{4, 7, 11, 12} {
		s := testSession(t, game.Config{Rows: 6, Columns: columns, Connect: 4, Wins: 1}, "", nil, "A", "B")
		boardButtons(en, s) // the catalog's cache
		if n := testing.AllocsPerRun(100, func() { boardButtons(en, s) }); n > 7 {
			t.Errorf("%d columns: %v allocations, want at most 7", columns, n)
		}
	}
}

// TestPlainNameNeedsNoEscape: every name plainName lets through unchanged
// is one EscapeName's full path would also leave unchanged, and the names
// it refuses include every kind the full path changes.
func TestPlainNameNeedsNoEscape(t *testing.T) {
	full := func(name string) string { return escapeAnyName(en, name) }
	names := []string{"Alice", "Bob 2", "J.-P. Sartre", "x", strings.Repeat("a", maxNameLength),
		"", " Alice", "Alice ", "Al  ice", "Al\nice", "Al\tice", "*bold*", "a_b", "back`tick", "<@1>", "Zoë", "名前",
		strings.Repeat("a", maxNameLength+1), "a|b", "[x](y)", "~~s~~", "\\"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("aZ09 .-_*\\\n\t`<>|~@()[]")
	for range 5000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		names = append(names, string(b))
	}
	for _, name := range names {
		if got, want := EscapeName(en, name), full(name); got != want {
			t.Errorf("EscapeName(%q) = %q, want %q", name, got, want)
		}
		if plainName(name) && full(name) != name {
			t.Errorf("plainName(%q) = true, but escaping changes it to %q", name, full(name))
		}
	}
	for _, name := range []string{"Alice", "Bob 2", "J.-P. Sartre"} {
		if !plainName(name) {
			t.Errorf("plainName(%q) = false, want true (a plain name)", name)
		}
	}
}

// en is the English localizer the tests draw with.
var en = locale.English()

// The bounds of a board's sides, as the challenge's options have them.
const minRows, maxRows, minColumns, maxColumns = 4, 12, 4, 12

// testSession returns a match of cfg in theme with moves played by
// whoever is to move, between players called p1 and p2.
func testSession(t testing.TB, cfg game.Config, theme string, moves []int, p1, p2 string) *sessions.Session {
	t.Helper()
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatalf("play %d: %v", c, err)
		}
	}
	s := &sessions.Session{
		ID: 123456789, ChannelID: "1300000000000000001", GuildID: "1200000000000000001",
		Players: [2]sessions.Member{{ID: "1400000000000000001", Name: p1}, {ID: "1400000000000000002", Name: p2}},
		Config:  m.Config(), Match: m, Phase: sessions.PhasePlaying, Theme: theme, PostSeq: 3,
	}
	if m.Over() {
		s.Phase, s.End = sessions.PhaseFinished, sessions.EndWon
	}
	return s
}
