package sessionstest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// exporter and importer are the Export and Import every backend's Store
// has beside the sessions.Store contract.
type (
	exporter interface {
		Export(ctx context.Context, w io.Writer) (sessions.ExportCounts, error)
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

// testExportImport fills a database with matches in every phase, stats and
// pair records, exports it, imports it into an empty database, and checks
// that the copy holds the same sessions (IDs included), records and
// leaderboard, that its live match plays on, and that new sessions get IDs
// after the imported ones. It also checks that a file cut short, or an
// import into a database that holds data, changes nothing.
func testExportImport(t *testing.T, b Backend) {
	src := b.NewDB(t).Open(t, newClock().Now)
	dave := sessions.Member{ID: "100000000000000004", Name: "Dave"}
	finish(t, src, "chan-1", alice, bob, game.Player1, false)
	finish(t, src, "chan-2", carol, bob, game.Player2, true)
	finish(t, src, "chan-1", alice, dave, game.Player2, false)
	live := newSession(t, "chan-3")
	live.Phase, live.Match = sessions.PhasePlaying, mustMatch(t, live.Config, 3, 3, 4)
	live.Webhook = sessions.Webhook{AppID: "app", Token: "tok", Message: "@original", At: t0.UTC()}
	live.Deadline = t0.Add(5 * time.Minute).UTC()
	live.Place = sessions.Place{Locale: "pl", Thread: true}
	mustCreate(t, src, live)
	mustCreate(t, src, newSession(t, "chan-4"))
	if _, err := src.Abandon(t.Context(), "chan-4"); err != nil {
		t.Fatal(err)
	}

	var file bytes.Buffer
	n, err := exportOf(t, src).Export(t.Context(), &file)
	if err != nil {
		t.Fatalf("Export() error = %v", err)
	}
	if n.Matches != 5 || n.MemberStats != 4 || n.PairRecords != 6 {
		t.Errorf("Export() counts = %+v, want 5 matches, 4 member records, 6 pair records", n)
	}
	lines := strings.Split(strings.TrimSpace(file.String()), "\n")
	if got := len(lines); got != 1+5+4+6+1 {
		t.Errorf("export lines = %d, want header + 15 rows + trailer", got)
	}
	if last, want := lines[len(lines)-1], `{"end":{"matches":5,"member_stats":4,"pair_records":6}}`; last != want {
		t.Errorf("export trailer = %s, want %s", last, want)
	}

	dstDB := b.NewDB(t)
	dst := dstDB.Open(t, newClock().Now)
	// A file cut short changes nothing.
	cut := strings.Join(lines[:len(lines)-3], "\n") + "\n"
	if _, err := importOf(t, dst).Import(t.Context(), strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("Import(a file cut short) error = %v, want it refused as cut short", err)
	}
	if _, err := dst.Get(t.Context(), "chan-1"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("after a refused import, Get() error = %v, want %v", err, sessions.ErrNotFound)
	}
	got, err := importOf(t, dst).Import(t.Context(), bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatalf("Import() error = %v", err)
	}
	if got != n {
		t.Errorf("Import() counts = %+v, want %+v", got, n)
	}
	for _, ch := range []string{"chan-1", "chan-2", "chan-3", "chan-4"} {
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
	if _, err := importOf(t, b.NewDB(t).Open(t, newClock().Now)).Import(t.Context(), strings.NewReader(old)); err != nil {
		t.Errorf("Import() of an export with the old trailer: %v", err)
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
