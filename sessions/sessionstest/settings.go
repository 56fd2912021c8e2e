package sessionstest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connectn/connectn/sessions"
)

func ptr[T any](v T) *T { return &v }

// everySetting is a server's settings with every field set.
func everySetting(guildID string) sessions.GuildSettings {
	return sessions.GuildSettings{
		GuildID: guildID,
		Rows:    ptr(7), Columns: ptr(8), Connect: ptr(5), Wins: ptr(3),
		Theme: ptr("colorblind"), AILevel: ptr("perfect"),
		ChallengeTimeout: ptr(10 * time.Minute), TurnTimeout: ptr(90 * time.Second),
		Channels: []string{"chan-1", "chan-9"}, Role: ptr("300000000000000001"),
		Cooldown: ptr(30 * time.Second), Locale: ptr("de"), Threads: ptr(true), Rated: ptr(false),
	}
}

// assertSameSettings compares every field of two servers' settings, the
// pointers by what they point to and UpdatedAt as an instant in UTC.
func assertSameSettings(tb testing.TB, got, want sessions.GuildSettings) {
	tb.Helper()
	if !got.UpdatedAt.Equal(want.UpdatedAt) || (!got.UpdatedAt.IsZero() && got.UpdatedAt.Location() != time.UTC) {
		tb.Errorf("settings of %s: UpdatedAt = %v, want %v in UTC", want.GuildID, got.UpdatedAt, want.UpdatedAt)
	}
	got.UpdatedAt, want.UpdatedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		tb.Errorf("settings of %s =\n%s\nwant\n%s", want.GuildID, showSettings(got), showSettings(want))
	}
}

// showSettings writes g with the values its pointers point to.
func showSettings(g sessions.GuildSettings) string {
	var b strings.Builder
	v := reflect.ValueOf(g)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			f = f.Elem()
		}
		fmt.Fprintf(&b, "%s=%v ", v.Type().Field(i).Name, f)
	}
	return b.String()
}

// mustUpdateSettings runs UpdateGuildSettings and fails the test on error.
func mustUpdateSettings(tb testing.TB, st sessions.Store, guildID, userID string, fn func(*sessions.GuildSettings) error) sessions.GuildSettings {
	tb.Helper()
	g, err := st.UpdateGuildSettings(tb.Context(), guildID, userID, fn)
	if err != nil {
		tb.Fatalf("UpdateGuildSettings(%s) error = %v", guildID, err)
	}
	return g
}

// mustSettings returns a server's settings.
func mustSettings(tb testing.TB, st sessions.Store, guildID string) sessions.GuildSettings {
	tb.Helper()
	g, err := st.GuildSettings(tb.Context(), guildID)
	if err != nil {
		tb.Fatalf("GuildSettings(%s) error = %v", guildID, err)
	}
	return g
}

// testGuildSettingsRoundtrip checks a server's settings from nothing set
// to every field set, then one cleared: what UpdateGuildSettings returns
// is what GuildSettings reads back, in this store, in another store that
// read them before (no process keeps them in memory), and after the store
// is reopened; other servers keep theirs; UpdatedAt and UpdatedBy come
// from the clock and the caller.
func testGuildSettingsRoundtrip(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clock := newClock()
	st, other := db.Open(t, clock), db.Open(t, clock)

	assertSameSettings(t, mustSettings(t, st, "guild-1"), sessions.GuildSettings{GuildID: "guild-1"})
	assertSameSettings(t, mustSettings(t, other, "guild-1"), sessions.GuildSettings{GuildID: "guild-1"})
	if g := mustSettings(t, st, ""); g.GuildID != "" || g.Rows != nil {
		t.Errorf("GuildSettings(\"\") = %s, want the zero settings", showSettings(g))
	}

	clock.Advance(time.Minute)
	want := everySetting("guild-1")
	want.UpdatedAt, want.UpdatedBy = t0.Add(time.Minute).UTC(), alice.ID
	got := mustUpdateSettings(t, st, "guild-1", alice.ID, func(g *sessions.GuildSettings) error {
		if g.GuildID != "guild-1" || g.Rows != nil || !g.UpdatedAt.IsZero() {
			t.Errorf("fn got %s, want the zero settings of guild-1", showSettings(*g))
		}
		*g = everySetting("guild-2") // GuildID stays guild-1 all the same
		g.UpdatedBy = "someone else" // and UpdatedBy the caller
		return nil
	})
	assertSameSettings(t, got, want)
	assertSameSettings(t, mustSettings(t, st, "guild-1"), want)
	assertSameSettings(t, mustSettings(t, other, "guild-1"), want)
	assertSameSettings(t, mustSettings(t, st, "guild-2"), sessions.GuildSettings{GuildID: "guild-2"})

	clock.Advance(time.Minute)
	want.Rows, want.Channels, want.Threads = nil, nil, ptr(false)
	want.UpdatedAt, want.UpdatedBy = t0.Add(2*time.Minute).UTC(), bob.ID
	got = mustUpdateSettings(t, other, "guild-1", bob.ID, func(g *sessions.GuildSettings) error {
		g.Rows, g.Channels, g.Threads = nil, nil, ptr(false)
		return nil
	})
	assertSameSettings(t, got, want)
	assertSameSettings(t, mustSettings(t, st, "guild-1"), want)

	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	assertSameSettings(t, mustSettings(t, db.Open(t, clock), "guild-1"), want)

	errRefused := errors.New("out of bounds")
	clock.Advance(time.Minute)
	_, err := other.UpdateGuildSettings(t.Context(), "guild-1", carol.ID, func(g *sessions.GuildSettings) error {
		g.Rows, g.Theme = ptr(99), nil
		return errRefused
	})
	if err != errRefused { //nolint:errorlint // the contract is the very same value
		t.Errorf("UpdateGuildSettings() with fn failing: error = %v, want fn's own %v", err, errRefused)
	}
	assertSameSettings(t, mustSettings(t, other, "guild-1"), want)
	if _, err := other.UpdateGuildSettings(t.Context(), "", carol.ID, func(*sessions.GuildSettings) error { return nil }); err == nil {
		t.Error("UpdateGuildSettings(\"\") error = nil, want an empty guild refused")
	}
}

// testGuildSettingsTwoStores is two admins changing two different settings
// of one server at once, through two processes (two Stores on one
// database): the second writes while the first one's fn holds the
// settings it loaded, so the first one's write must find the row moved on
// and run fn again on the second's settings. Both changes land, for the
// server's first settings (no row yet) and for later ones. Without the
// compare-and-swap the first write would overwrite the second's change (or
// fail on the row that appeared).
func testGuildSettingsTwoStores(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := db.Open(t, newClock()), db.Open(t, newClock())
	for _, round := range []struct {
		name  string
		rows  int
		theme string
	}{{"first settings of the server", 7, "dark"}, {"settings already stored", 9, "colorblind"}} {
		t.Run(round.name, func(t *testing.T) {
			var seen []string
			got := mustUpdateSettings(t, one, "guild-1", alice.ID, func(g *sessions.GuildSettings) error {
				seen = append(seen, showValue(g.Theme))
				if len(seen) == 1 {
					mustUpdateSettings(t, two, "guild-1", bob.ID, func(g *sessions.GuildSettings) error {
						g.Theme = ptr(round.theme)
						return nil
					})
				}
				g.Rows = ptr(round.rows)
				return nil
			})
			if len(seen) != 2 || seen[1] != round.theme {
				t.Errorf("fn saw themes %v, want two calls, the second on the other store's %q", seen, round.theme)
			}
			for _, st := range []sessions.Store{one, two} {
				g := mustSettings(t, st, "guild-1")
				if showValue(g.Rows) != fmt.Sprint(round.rows) || showValue(g.Theme) != round.theme || g.UpdatedBy != alice.ID {
					t.Errorf("settings after both writes = %s, want rows %d (the first admin's) and theme %q (the second's), by alice",
						showSettings(g), round.rows, round.theme)
				}
			}
			if showValue(got.Theme) != round.theme {
				t.Errorf("UpdateGuildSettings() returned theme %s, want %q", showValue(got.Theme), round.theme)
			}
		})
	}
}

// showValue returns what p points to as text, or "nil".
func showValue[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// testGuildSettingsConcurrent has eight admins change eight different
// settings of one server at the same moment, half through each of two
// Stores on one database: every change lands.
func testGuildSettingsConcurrent(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.Store{db.Open(t, newClock()), db.Open(t, newClock())}
	changes := []func(*sessions.GuildSettings){
		func(g *sessions.GuildSettings) { g.Rows = ptr(7) },
		func(g *sessions.GuildSettings) { g.Columns = ptr(8) },
		func(g *sessions.GuildSettings) { g.Connect = ptr(5) },
		func(g *sessions.GuildSettings) { g.Wins = ptr(3) },
		func(g *sessions.GuildSettings) { g.Theme = ptr("colorblind") },
		func(g *sessions.GuildSettings) { g.AILevel = ptr("perfect") },
		func(g *sessions.GuildSettings) { g.Locale = ptr("de") },
		func(g *sessions.GuildSettings) { g.Threads = ptr(true) },
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, len(changes))
	for i, change := range changes {
		st := stores[i%2]
		wg.Go(func() {
			<-start
			_, err := st.UpdateGuildSettings(t.Context(), "guild-1", fmt.Sprint(i), func(g *sessions.GuildSettings) error {
				change(g)
				return nil
			})
			if err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("UpdateGuildSettings() error = %v", err)
	}
	want := sessions.GuildSettings{GuildID: "guild-1"}
	for _, change := range changes {
		change(&want)
	}
	got := mustSettings(t, stores[0], "guild-1")
	want.UpdatedAt, want.UpdatedBy = got.UpdatedAt, got.UpdatedBy
	assertSameSettings(t, got, want)
}

// testGuildSettingsConflict has the other process change the settings
// before every write: UpdateGuildSettings gives up with ErrConflict after
// MaxAttempts calls of fn, having written none of them.
func testGuildSettingsConflict(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := db.Open(t, newClock()), db.Open(t, newClock())
	calls := 0
	_, err := one.UpdateGuildSettings(t.Context(), "guild-1", alice.ID, func(g *sessions.GuildSettings) error {
		calls++
		mustUpdateSettings(t, two, "guild-1", bob.ID, func(g *sessions.GuildSettings) error {
			g.Wins = ptr(calls)
			return nil
		})
		g.Theme = ptr("mine")
		return nil
	})
	if !errors.Is(err, sessions.ErrConflict) {
		t.Fatalf("UpdateGuildSettings() losing every race error = %v, want %v", err, sessions.ErrConflict)
	}
	if calls != sessions.MaxAttempts {
		t.Errorf("fn called %d times, want MaxAttempts = %d", calls, sessions.MaxAttempts)
	}
	if g := mustSettings(t, one, "guild-1"); g.Theme != nil || showValue(g.Wins) != fmt.Sprint(calls) || g.UpdatedBy != bob.ID {
		t.Errorf("settings = %s, want only the other store's writes", showSettings(g))
	}
}

// testGuildSettingsStored checks what the row holds: keys of the JSON
// that this program does not know (a newer version's, written beside it)
// survive an update, and settings that cannot be read are reported as
// corrupt, by GuildSettings and by UpdateGuildSettings (whose fn is then
// not called).
func testGuildSettingsStored(t *testing.T, b Backend) {
	db := b.NewDB(t)
	st := db.Open(t, newClock())
	mustUpdateSettings(t, st, "guild-1", alice.ID, func(g *sessions.GuildSettings) error { g.Rows = ptr(7); return nil })
	db.Exec(t, `UPDATE guild_settings SET settings = ?, revision = revision + 1 WHERE guild_id = ?`,
		`{"rows":7,"columns":9,"from_the_future":{"a":1}}`, "guild-1")
	if g := mustSettings(t, st, "guild-1"); showValue(g.Rows) != "7" || showValue(g.Columns) != "9" {
		t.Errorf("settings with an unknown key = %s, want rows 7 and columns 9 read", showSettings(g))
	}
	mustUpdateSettings(t, st, "guild-1", bob.ID, func(g *sessions.GuildSettings) error { g.Rows = nil; return nil })
	var file bytes.Buffer
	if _, err := exportOf(t, st).Export(t.Context(), &file, sessions.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(file.String(), `"from_the_future":{"a":1}`) || strings.Contains(file.String(), `"rows"`) || !strings.Contains(file.String(), `"columns":9`) {
		t.Errorf("stored settings after an update:\n%s\nwant the unknown key kept, rows cleared, columns kept", file.String())
	}

	db.Exec(t, `UPDATE guild_settings SET settings = ?, revision = revision + 1 WHERE guild_id = ?`, `{"rows":`, "guild-1")
	if _, err := st.GuildSettings(t.Context(), "guild-1"); !errors.Is(err, sessions.ErrCorrupt) {
		t.Errorf("GuildSettings() of unreadable settings error = %v, want %v", err, sessions.ErrCorrupt)
	}
	called := false
	if _, err := st.UpdateGuildSettings(t.Context(), "guild-1", bob.ID, func(*sessions.GuildSettings) error { called = true; return nil }); !errors.Is(err, sessions.ErrCorrupt) || called {
		t.Errorf("UpdateGuildSettings() of unreadable settings error = %v, fn called %t, want %v, false", err, called, sessions.ErrCorrupt)
	}
}
