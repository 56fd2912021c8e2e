package sessionstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// exporter and importer are the Export and Import every backend's Store
// has beside the sessions.Store contract.
type (
	exporter interface {
		Export(ctx context.Context, w io.Writer, opts sessions.ExportOptions) (sessions.ExportCounts, error)
	}
	importer interface {
		Import(ctx context.Context, r io.Reader) (sessions.ExportCounts, error)
	}
)

func exportOf(t *testing.T, st sessions.Store) exporter {
	t.Helper()
	e, ok := st.(exporter)
	if !ok {
		t.Fatalf("%T has no Export method", st)
	}
	return e
}

func importOf(t *testing.T, st sessions.Store) importer {
	t.Helper()
	i, ok := st.(importer)
	if !ok {
		t.Fatalf("%T has no Import method", st)
	}
	return i
}

// testExportImport fills a database with matches in every phase (one
// ended by a moderator, two rated), stats, pair records, ratings and two
// servers' settings, exports it, imports it into an empty database, and
// checks that the copy holds the same sessions (IDs, Rated and Ratings
// included), records, leaderboard, ratings and settings, that its live
// match plays on, its settings change on and its ratings rate on, and that
// new sessions get IDs after the imported ones. It also checks that a file
// cut short, or an import into a database that holds data (if only
// settings, or only ratings), changes nothing, and that exports of format
// 2 (before ratings) and 1 (before settings and ended_by) still import,
// with nothing rated.
func testExportImport(t *testing.T, b Backend) {
	src := b.NewDB(t).Open(t, newClock())
	dave := sessions.Member{ID: "100000000000000004", Name: "Dave"}
	finish(t, src, "chan-1", alice, bob, game.Player1, false, rated)
	finish(t, src, "chan-2", carol, bob, game.Player2, true, rated) // timed out before the first disc: no rating
	finish(t, src, "chan-1", alice, dave, game.Player2, false, rated)
	live := newSession(t, "chan-3")
	live.Phase, live.Match = sessions.PhasePlaying, mustMatch(t, live.Config, 3, 3, 4)
	live.RatedCapped = true
	live.Webhook = sessions.Webhook{AppID: "app", Token: "tok", Message: "@original", At: t0.UTC()}
	live.Deadline = t0.Add(5 * time.Minute).UTC()
	live.Place = sessions.Place{Locale: "pl", Thread: true}
	mustCreate(t, src, live)
	mustCreate(t, src, newSession(t, "chan-4"))
	if _, err := src.Abandon(t.Context(), "chan-4"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, src, newSession(t, "chan-6"))
	mustUpdate(t, src, "chan-6", func(s *sessions.Session) error {
		s.Phase, s.End, s.EndedBy = sessions.PhaseCancelled, sessions.EndEnded, carol.ID
		return nil
	})
	settings := map[string]sessions.GuildSettings{
		"guild-1": mustUpdateSettings(t, src, "guild-1", alice.ID, func(g *sessions.GuildSettings) error {
			*g = everySetting("guild-1")
			return nil
		}),
		"guild-2": mustUpdateSettings(t, src, "guild-2", bob.ID, func(g *sessions.GuildSettings) error { g.Locale = ptr("ja"); return nil }),
	}
	settings["guild-2"] = mustUpdateSettings(t, src, "guild-2", bob.ID, func(g *sessions.GuildSettings) error { g.Wins = ptr(2); return nil })

	var file bytes.Buffer
	n, err := exportOf(t, src).Export(t.Context(), &file, sessions.ExportOptions{})
	if err != nil {
		t.Fatalf("Export() error = %v", err)
	}
	if want := (sessions.ExportCounts{Matches: 6, MemberStats: 4, PairRecords: 6, GuildSettings: 2, MemberRatings: 3}); n != want {
		t.Errorf("Export() counts = %+v, want %+v", n, want)
	}
	lines := strings.Split(strings.TrimSpace(file.String()), "\n")
	if got := len(lines); got != 1+6+4+6+2+3+1 {
		t.Errorf("export lines = %d, want header + 21 rows + trailer", got)
	}
	if last, want := lines[len(lines)-1], `{"end":{"matches":6,"member_stats":4,"pair_records":6,"guild_settings":2,"member_ratings":3}}`; last != want {
		t.Errorf("export trailer = %s, want %s", last, want)
	}
	if kinds := lineKinds(t, lines); kinds["guild_settings"] != 2 || kinds["match"] != 6 || kinds["member_rating"] != 3 {
		t.Errorf("export line kinds = %v, want 6 match, 2 guild_settings and 3 member_rating lines among them", kinds)
	}

	dstDB := b.NewDB(t)
	dst := dstDB.Open(t, newClock())
	// A file cut short changes nothing.
	cut := strings.Join(lines[:len(lines)-3], "\n") + "\n"
	if _, err := importOf(t, dst).Import(t.Context(), strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("Import(a file cut short) error = %v, want it refused as cut short", err)
	}
	if _, err := dst.Get(t.Context(), "chan-1"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("after a refused import, Get() error = %v, want %v", err, sessions.ErrNotFound)
	}
	// So do settings that cannot be read back.
	damaged := slices.Clone(lines)
	for i, l := range damaged {
		if strings.HasPrefix(l, `{"guild_settings":`) {
			damaged[i] = regexp.MustCompile(`"updated_at":"[^"]*"`).ReplaceAllString(l, `"updated_at":"yesterday"`)
			if _, err := importOf(t, dst).Import(t.Context(), strings.NewReader(strings.Join(damaged, "\n")+"\n")); err == nil ||
				!strings.Contains(err.Error(), fmt.Sprintf("line %d: settings of guild ", i+1)) || !errors.Is(err, sessions.ErrCorrupt) {
				t.Errorf("Import() of unreadable settings error = %v, want line %d refused as corrupt", err, i+1)
			}
			break
		}
	}
	if _, err := dst.Get(t.Context(), "chan-1"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("after a refused import, Get() error = %v, want %v", err, sessions.ErrNotFound)
	}
	// So does a database that holds only settings.
	onlySettings := b.NewDB(t).Open(t, newClock())
	mustUpdateSettings(t, onlySettings, "guild-9", alice.ID, func(g *sessions.GuildSettings) error { g.Rows = ptr(5); return nil })
	if _, err := importOf(t, onlySettings).Import(t.Context(), bytes.NewReader(file.Bytes())); err == nil || !strings.Contains(err.Error(), "1 server settings: import into an empty database") {
		t.Errorf("Import() into a database with settings only error = %v, want it refused, naming the settings", err)
	}
	if _, err := onlySettings.Get(t.Context(), "chan-1"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("after a refused import, Get() error = %v, want %v", err, sessions.ErrNotFound)
	}
	// And one that holds only a rating.
	onlyRatingsDB := b.NewDB(t)
	onlyRatings := onlyRatingsDB.Open(t, newClock())
	onlyRatingsDB.Exec(t, `INSERT INTO member_ratings (guild_id, user_id, r, rd, sigma, games, best, last_played) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		"guild-9", carol.ID, 1500.0, 350.0, 0.06, 1, 1500.0, "")
	if _, err := importOf(t, onlyRatings).Import(t.Context(), bytes.NewReader(file.Bytes())); err == nil || !strings.Contains(err.Error(), "1 member ratings") {
		t.Errorf("Import() into a database with a rating only error = %v, want it refused, naming the rating", err)
	}
	if _, err := onlyRatings.Get(t.Context(), "chan-1"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("after a refused import, Get() error = %v, want %v", err, sessions.ErrNotFound)
	}
	got, err := importOf(t, dst).Import(t.Context(), bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatalf("Import() error = %v", err)
	}
	if got != n {
		t.Errorf("Import() counts = %+v, want %+v", got, n)
	}
	for guild, want := range settings {
		assertSameSettings(t, mustSettings(t, dst, guild), want)
	}
	// The imported settings change on, by the compare-and-swap of the
	// revision they kept.
	if g := mustUpdateSettings(t, dst, "guild-2", carol.ID, func(g *sessions.GuildSettings) error { g.Wins = ptr(4); return nil }); showValue(g.Locale) != "ja" || showValue(g.Wins) != "4" {
		t.Errorf("imported settings after a change = %s, want locale ja kept and wins 4", showSettings(g))
	}
	for _, ch := range []string{"chan-1", "chan-2", "chan-3", "chan-4", "chan-6"} {
		want, _ := src.History(t.Context(), ch, 0)
		have, err := dst.History(t.Context(), ch, 0)
		if err != nil || len(have) != len(want) {
			t.Fatalf("History(%s) of the copy = %d sessions, %v, want %d", ch, len(have), err, len(want))
		}
		for i := range want {
			assertSameSession(t, have[i], want[i])
		}
	}
	for _, m := range []sessions.Member{alice, bob, carol, dave} {
		w, _ := src.Stats(t.Context(), "guild-1", m.ID, false)
		h, _ := dst.Stats(t.Context(), "guild-1", m.ID, false)
		if h != w {
			t.Errorf("Stats(%s) of the copy = %+v, want %+v", m.Name, h, w)
		}
	}
	if w, h := mustPair(t, src, alice, bob), mustPair(t, dst, alice, bob); h != w || h.Wins != 1 {
		t.Errorf("Pair(alice, bob) of the copy = %+v, want %+v", h, w)
	}
	wl, _ := src.Leaderboard(t.Context(), "guild-1", 10)
	hl, _ := dst.Leaderboard(t.Context(), "guild-1", 10)
	if len(hl) != len(wl) || len(hl) == 0 || hl[0] != wl[0] {
		t.Errorf("Leaderboard() of the copy = %+v, want %+v", hl, wl)
	}
	for _, m := range []sessions.Member{alice, bob, carol, dave} {
		w, h := mustRating(t, src, "guild-1", m), mustRating(t, dst, "guild-1", m)
		if h != w {
			t.Errorf("Rating(%s) of the copy = %+v, want %+v", m.Name, h, w)
		}
	}
	if h, w := mustRatedToday(t, dst, "guild-1", bob, alice, t0), mustRatedToday(t, src, "guild-1", bob, alice, t0); h != w || h != 1 {
		t.Errorf("RatedToday(bob, alice) of the copy = %d, want %d", h, w)
	}
	// The copy's ratings rate on: Bob beats Alice there, from the ratings
	// imported.
	wantBefore := [2]rating.Rating{mustRating(t, src, "guild-1", bob).Rating, mustRating(t, src, "guild-1", alice).Rating}
	if again := finish(t, dst, "chan-7", bob, alice, game.Player1, false, rated); again.Ratings == nil || again.Ratings.Before != wantBefore {
		t.Errorf("a rated match in the copy: Ratings = %s, want it rated from %+v", showRatings(again.Ratings), wantBefore)
	}
	if played := mustUpdate(t, dst, "chan-3", func(s *sessions.Session) error {
		_, err := s.Match.Play(s.Match.ToMove(), 4)
		return err
	}); played.Match.Plies() != 4 {
		t.Errorf("the imported live match after a move: %d plies, want 4", played.Match.Plies())
	}
	next := mustCreate(t, dst, newSession(t, "chan-5"))
	last, _ := src.Get(t.Context(), "chan-4")
	if next.ID <= last.ID {
		t.Errorf("a session created after the import got ID %d, want more than the imported %d", next.ID, last.ID)
	}
	if _, err := importOf(t, dst).Import(t.Context(), bytes.NewReader(file.Bytes())); err == nil || !strings.Contains(err.Error(), "empty database") {
		t.Errorf("Import() into a database with data error = %v, want it refused", err)
	}
	// An export made before the trailer lost its "Header":null imports.
	old := strings.Join(lines[:len(lines)-1], "\n") + "\n" + strings.TrimSuffix(lines[len(lines)-1], "}") + `,"Header":null}` + "\n"
	if _, err := importOf(t, b.NewDB(t).Open(t, newClock())).Import(t.Context(), strings.NewReader(old)); err != nil {
		t.Errorf("Import() of an export with the old trailer: %v", err)
	}
	// So does one of format 2: no member_rating lines, no rated,
	// rated_capped, ratings nor rated_at in the matches, a trailer of four
	// counts; nothing in it is rated.
	v2 := asFormat2(t, lines)
	old2 := b.NewDB(t).Open(t, newClock())
	if n, err := importOf(t, old2).Import(t.Context(), strings.NewReader(strings.Join(v2, "\n")+"\n")); err != nil || n.Matches != 6 || n.MemberRatings != 0 {
		t.Errorf("Import() of an export of format 2 = %+v, %v, want its 6 matches and no rating", n, err)
	} else {
		h, err := old2.History(t.Context(), "chan-1", 0)
		if err != nil || len(h) != 2 {
			t.Fatalf("History(chan-1) of the import of a format 2 export = %d sessions, %v, want 2", len(h), err)
		}
		for _, s := range h {
			if s.Rated || s.RatedCapped || s.Ratings != nil || s.Phase != sessions.PhaseFinished {
				t.Errorf("a match of a format 2 export: Rated %t, RatedCapped %t, Ratings %s, phase %q; want none, finished",
					s.Rated, s.RatedCapped, showRatings(s.Ratings), s.Phase)
			}
		}
		if s := mustGet(t, old2, "chan-3"); s.RatedCapped || s.Match.Plies() != 3 {
			t.Errorf("the live match of a format 2 export: RatedCapped %t, %d plies; want false, 3", s.RatedCapped, s.Match.Plies())
		}
		assertRating(t, old2, "guild-1", alice, newRating("guild-1", alice))
		if n := mustRatedToday(t, old2, "guild-1", alice, bob, t0); n != 0 {
			t.Errorf("RatedToday() in the import of a format 2 export = %d, want 0", n)
		}
	}
	// And one of format 1: no settings, no ended_by, a trailer of three
	// counts.
	var v1 []string
	for _, l := range v2[:len(v2)-1] {
		switch {
		case strings.HasPrefix(l, `{"connectn_export":`):
			l = strings.Replace(l, `{"connectn_export":2,`, `{"connectn_export":1,`, 1)
		case strings.HasPrefix(l, `{"guild_settings":`), strings.Contains(l, `"ended_by":"`+carol.ID+`"`):
			continue
		}
		v1 = append(v1, strings.Replace(l, `,"ended_by":""`, "", 1))
	}
	v1 = append(v1, `{"end":{"matches":5,"member_stats":4,"pair_records":6},"Header":null}`)
	old1 := b.NewDB(t).Open(t, newClock())
	if n, err := importOf(t, old1).Import(t.Context(), strings.NewReader(strings.Join(v1, "\n")+"\n")); err != nil || n.Matches != 5 {
		t.Errorf("Import() of an export of format 1 = %+v, %v, want its 5 matches", n, err)
	} else if s := mustGet(t, old1, "chan-3"); s.EndedBy != "" || s.Match.Plies() != 3 {
		t.Errorf("a match of a format 1 export: EndedBy %q, %d plies, want none and 3", s.EndedBy, s.Match.Plies())
	}
}

// asFormat2 returns the lines of an export as format 2 wrote them: the
// header's version 2, no member_rating line, no rated, rated_capped,
// ratings nor rated_at in the matches, no member_ratings in the trailer.
func asFormat2(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var line map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("export line %s: %v", l, err)
		}
		switch {
		case line["connectn_export"] != nil:
			l = strings.Replace(l, fmt.Sprintf(`{"connectn_export":%d,`, exportVersion(t, l)), `{"connectn_export":2,`, 1)
		case line["member_rating"] != nil:
			continue
		case line["match"] != nil, line["end"] != nil:
			kind := "match"
			if line["end"] != nil {
				kind = "end"
			}
			var cols map[string]json.RawMessage
			if err := json.Unmarshal(line[kind], &cols); err != nil {
				t.Fatalf("export line %s: %v", l, err)
			}
			for _, k := range []string{"rated", "rated_capped", "ratings", "rated_at", "member_ratings"} {
				delete(cols, k)
			}
			b, err := json.Marshal(map[string]any{kind: cols})
			if err != nil {
				t.Fatal(err)
			}
			l = string(b)
		}
		out = append(out, l)
	}
	return out
}

// exportVersion returns the format version of an export's header line.
func exportVersion(t *testing.T, header string) int {
	t.Helper()
	var h struct {
		Version int `json:"connectn_export"`
	}
	if err := json.Unmarshal([]byte(header), &h); err != nil || h.Version == 0 {
		t.Fatalf("export header %s: %v", header, err)
	}
	return h.Version
}

// lineKinds counts an export's lines by their one key ("match",
// "member_stats", ...; "connectn_export" for the header).
func lineKinds(t *testing.T, lines []string) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("export line %s: %v", l, err)
		}
		if _, ok := m["connectn_export"]; ok {
			kinds["connectn_export"]++
			continue
		}
		for k := range m {
			kinds[k]++
		}
	}
	return kinds
}

// testExportOneGuild fills a database with two servers' sessions, records,
// ratings and settings, and direct messages, then exports one server:
// every line is of that server (its guild_id, and no session, record,
// rating or settings of the other nor of direct messages), and the file
// imports into an empty database, where that server's history, records,
// ratings and settings are the source's and nothing else is.
func testExportOneGuild(t *testing.T, b Backend) {
	src := b.NewDB(t).Open(t, newClock())
	finish(t, src, "chan-1", alice, bob, game.Player1, false, rated) // guild-1
	finish(t, src, "chan-1", alice, carol, game.Player2, false)
	theirs := newSession(t, "chan-2")
	theirs.GuildID = "guild-2"
	mustCreate(t, src, theirs)
	other := newSession(t, "chan-3")
	other.GuildID, other.Players, other.Rated = "guild-2", [2]sessions.Member{bob, carol}, true
	other.Config, other.Match = oneWin, mustMatch(t, oneWin)
	mustCreate(t, src, other)
	if s := mustUpdate(t, src, "chan-3", func(s *sessions.Session) error {
		s.Phase = sessions.PhasePlaying
		mustPlay(t, s.Match, 0, 1)
		return s.Match.Forfeit(game.Player1)
	}); s.Ratings == nil {
		t.Fatal("the rated match in guild-2 changed no rating")
	}
	dm := newSession(t, "dm-1")
	dm.GuildID = ""
	mustCreate(t, src, dm)
	mustUpdateSettings(t, src, "guild-1", alice.ID, func(g *sessions.GuildSettings) error { g.Rows = ptr(7); return nil })
	want := mustUpdateSettings(t, src, "guild-2", bob.ID, func(g *sessions.GuildSettings) error { g.Theme = ptr("dark"); return nil })

	var file bytes.Buffer
	n, err := exportOf(t, src).Export(t.Context(), &file, sessions.ExportOptions{GuildID: "guild-2"})
	if err != nil {
		t.Fatalf("Export(guild-2) error = %v", err)
	}
	if want := (sessions.ExportCounts{Matches: 2, MemberStats: 2, PairRecords: 2, GuildSettings: 1, MemberRatings: 2}); n != want {
		t.Errorf("Export(guild-2) counts = %+v, want %+v", n, want)
	}
	lines := strings.Split(strings.TrimSpace(file.String()), "\n")
	if h := lines[0]; !strings.Contains(h, `"guild_id":"guild-2"`) {
		t.Errorf("export header = %s, want it to name guild-2", h)
	}
	for _, l := range lines[1 : len(lines)-1] {
		var row map[string]map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("export line %s: %v", l, err)
		}
		for kind, cols := range row {
			if cols["guild_id"] != "guild-2" {
				t.Errorf("a %s line of another server in the export of guild-2: %s", kind, l)
			}
		}
	}
	if strings.Contains(file.String(), "guild-1") || strings.Contains(file.String(), `"dm-1"`) {
		t.Errorf("the export of guild-2 names guild-1 or the direct message:\n%s", file.String())
	}
	if last, want := lines[len(lines)-1], `{"end":{"matches":2,"member_stats":2,"pair_records":2,"guild_settings":1,"member_ratings":2}}`; last != want {
		t.Errorf("export trailer = %s, want %s", last, want)
	}

	dst := b.NewDB(t).Open(t, newClock())
	if got, err := importOf(t, dst).Import(t.Context(), bytes.NewReader(file.Bytes())); err != nil || got != n {
		t.Fatalf("Import() of the export of guild-2 = %+v, %v, want %+v", got, err, n)
	}
	for _, ch := range []string{"chan-2", "chan-3"} {
		assertSameSession(t, mustGet(t, dst, ch), mustGet(t, src, ch))
	}
	for _, ch := range []string{"chan-1", "dm-1"} {
		if _, err := dst.Get(t.Context(), ch); !errors.Is(err, sessions.ErrNotFound) {
			t.Errorf("Get(%s) in the copy of guild-2 error = %v, want %v", ch, err, sessions.ErrNotFound)
		}
	}
	for _, m := range []sessions.Member{bob, carol} {
		w, _ := src.Stats(t.Context(), "guild-2", m.ID, false)
		h, _ := dst.Stats(t.Context(), "guild-2", m.ID, false)
		if h != w || h.Matches != 1 {
			t.Errorf("Stats(%s, guild-2) of the copy = %+v, want %+v", m.Name, h, w)
		}
	}
	if s, _ := dst.Stats(t.Context(), "guild-1", alice.ID, false); s.Matches != 0 {
		t.Errorf("Stats(alice, guild-1) of the copy of guild-2 = %+v, want none", s)
	}
	for _, m := range []sessions.Member{bob, carol} {
		w, h := mustRating(t, src, "guild-2", m), mustRating(t, dst, "guild-2", m)
		if h != w || h.Games != 1 {
			t.Errorf("Rating(%s, guild-2) of the copy = %+v, want %+v", m.Name, h, w)
		}
	}
	assertRating(t, dst, "guild-1", alice, newRating("guild-1", alice))
	assertSameSettings(t, mustSettings(t, dst, "guild-2"), want)
	assertSameSettings(t, mustSettings(t, dst, "guild-1"), sessions.GuildSettings{GuildID: "guild-1"})
	if next := mustCreate(t, dst, newSession(t, "chan-9")); next.ID <= mustGet(t, src, "chan-3").ID {
		t.Errorf("a session created in the copy got ID %d, want more than the imported ones", next.ID)
	}
}

func mustPair(t *testing.T, st sessions.Store, a, b sessions.Member) sessions.PairRecord {
	t.Helper()
	r, err := st.Pair(t.Context(), "guild-1", a.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
