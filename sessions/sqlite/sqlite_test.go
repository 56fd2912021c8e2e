package sqlite_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sessionstest"
	"github.com/connectn/connectn/sessions/sqlite"
)

// testDB is a database file in a test's temporary folder.
type testDB struct{ path string }

func newTestDB(tb testing.TB) sessionstest.DB {
	return &testDB{path: filepath.Join(tb.TempDir(), "data", "connectn.db")}
}

func (d *testDB) Open(tb testing.TB, c clock.Clock, opts ...sessions.Option) sessions.Store {
	tb.Helper()
	st, err := sqlite.Open(tb.Context(), d.path, append([]sessions.Option{sessions.WithClock(c)}, opts...)...)
	if err != nil {
		tb.Fatalf("Open(%q) error = %v", d.path, err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

func (d *testDB) Exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if _, err := rawDB(tb, d.path).ExecContext(tb.Context(), query, args...); err != nil {
		tb.Fatalf("Exec(%s) error = %v", query, err)
	}
}

func (d *testDB) LockWaiters(st sessions.Store, channelID string) int {
	return sqlite.LockWaiters(st.(*sqlite.Store), channelID)
}

func (d *testDB) RowReads(st sessions.Store) int64 {
	return sqlite.RowReads(st.(*sqlite.Store))
}

func (d *testDB) RefusePairRecords(tb testing.TB) {
	d.Exec(tb, `CREATE TRIGGER no_pairs BEFORE INSERT ON pair_records
		BEGIN SELECT RAISE(ABORT, 'pair records refused'); END`)
}

func (d *testDB) RefuseRatings(tb testing.TB) {
	d.Exec(tb, `CREATE TRIGGER no_new_ratings BEFORE INSERT ON member_ratings
		BEGIN SELECT RAISE(ABORT, 'ratings refused'); END`)
	d.Exec(tb, `CREATE TRIGGER no_changed_ratings BEFORE UPDATE ON member_ratings
		BEGIN SELECT RAISE(ABORT, 'ratings refused'); END`)
}

func (d *testDB) Dump(tb testing.TB) map[string][][]string {
	tb.Helper()
	return sessionstest.DumpTables(tb, rawDB(tb, d.path), `SELECT name FROM sqlite_master WHERE type = 'table'`)
}

// rawDB opens the database file directly, as another process would.
func rawDB(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		tb.Fatalf("sql.Open() error = %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

func TestContract(t *testing.T) {
	sessionstest.Run(t, sessionstest.Backend{NewDB: newTestDB})
}

func BenchmarkStore(b *testing.B) {
	sessionstest.Bench(b, sessionstest.Backend{NewDB: newTestDB})
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("this is not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		wantErr bool
	}{
		{name: "missing parent folders are created", path: filepath.Join(dir, "a", "b", "c", "connectn.db")},
		{name: "in memory", path: sqlite.MemoryPath},
		{name: "parent is a file", path: filepath.Join(file, "connectn.db"), wantErr: true},
		{name: "path is a folder", path: dir, wantErr: true},
		{name: "not a database", path: garbage, wantErr: true},
		{name: "question mark", path: filepath.Join(dir, "what?.db"), wantErr: true},
		{name: "empty path", path: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := sqlite.Open(t.Context(), tt.path)
			if tt.wantErr {
				if err == nil {
					_ = st.Close()
					t.Fatalf("Open(%q) error = nil, want an error", tt.path)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.path)) {
					t.Errorf("Open(%q) error = %q, want it to name the path", tt.path, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q) error = %v", tt.path, err)
			}
			defer st.Close()
			if err := st.Ping(t.Context()); err != nil {
				t.Errorf("Ping() error = %v", err)
			}
			created, err := st.Create(t.Context(), &sessions.Session{ChannelID: "chan-1", Players: [2]sessions.Member{{ID: "1"}, {ID: "2"}}, Config: game.DefaultConfig()})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := st.Get(t.Context(), "chan-1"); err != nil || got.ID != created.ID {
				t.Errorf("Get() = %v, %v, want session %d", got, err, created.ID)
			}
		})
	}
}

func TestOpenNewerSchema(t *testing.T) {
	tests := []struct {
		name  string
		setup string
	}{
		{"schema_migrations ahead", "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, '099_future.sql', '')"},
		{"user_version ahead, no schema_migrations", "DROP TABLE schema_migrations; PRAGMA user_version = 99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "connectn.db")
			st, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			if _, err := rawDB(t, path).ExecContext(t.Context(), tt.setup); err != nil {
				t.Fatal(err)
			}
			st, err = sqlite.Open(t.Context(), path)
			if err == nil {
				_ = st.Close()
				t.Fatal("Open() of a newer schema error = nil, want an error")
			}
			if !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), path) {
				t.Errorf("Open() of a newer schema error = %q, want it to say newer and name the path", err)
			}
		})
	}
}

// TestConnectionPragmas checks that every pooled connection gets the DSN's
// settings, not just the first one, and that PRAGMA user_version follows
// the schema version (so that an older program refuses a newer file).
func TestConnectionPragmas(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "connectn.db"))
	if err != nil {
		t.Fatalf("Open() error = %v", err)
	}
	defer st.Close()
	if from, to := st.SchemaVersions(); from != 0 || to != len(sqlite.Migrations()) {
		t.Errorf("SchemaVersions() = %d, %d, want 0, %d", from, to, len(sqlite.Migrations()))
	}
	// Hold every connection of the pool at once so each one is checked.
	for i := range sqlite.MaxOpenConns {
		conn, err := sqlite.DB(st).Conn(t.Context())
		if err != nil {
			t.Fatalf("Conn() error = %v", err)
		}
		defer conn.Close()
		tests := []struct {
			pragma string
			want   string
		}{
			{pragma: "journal_mode", want: "wal"},
			{pragma: "busy_timeout", want: "5000"},
			{pragma: "foreign_keys", want: "1"},
			{pragma: "synchronous", want: "1"}, // NORMAL
			{pragma: "user_version", want: fmt.Sprint(len(sqlite.Migrations()))},
		}
		for _, tt := range tests {
			var got string
			if err := conn.QueryRowContext(t.Context(), "PRAGMA "+tt.pragma).Scan(&got); err != nil {
				t.Fatalf("connection %d: PRAGMA %s error = %v", i, tt.pragma, err)
			}
			if got != tt.want {
				t.Errorf("connection %d: PRAGMA %s = %q, want %q", i, tt.pragma, got, tt.want)
			}
		}
	}
}

// TestMoveWritesOnePage checks what a move costs the database file: a
// move, which changes the match but not its phase, writes one page to the
// write-ahead log (the row's), and the moves that start and end a match,
// which change the phase, also rewrite the page of the partial index of
// active sessions. It fails if the move's statement sets the phase again
// (two pages a move) or never does (the index would keep a finished match
// active: the next challenge in the channel is refused).
func TestMoveWritesOnePage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "connectn.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Other matches around it, so that the row, the table and the index
	// are not all on one page.
	for i := range 100 {
		s := &sessions.Session{ChannelID: fmt.Sprintf("other-%03d", i), Players: [2]sessions.Member{{ID: "1"}, {ID: "2"}}, Config: game.DefaultConfig()}
		if _, err := st.Create(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	s := &sessions.Session{ChannelID: "chan-1", Players: [2]sessions.Member{{ID: "1"}, {ID: "2"}}, Config: game.DefaultConfig()}
	if _, err := st.Create(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	update := func(fn func(*sessions.Session) error) {
		t.Helper()
		if _, err := st.Update(t.Context(), "chan-1", fn); err != nil {
			t.Fatal(err)
		}
	}
	// frames returns the pages fn's writes appended to the log.
	frames := func(fn func()) int64 {
		t.Helper()
		if _, err := sqlite.DB(st).ExecContext(t.Context(), "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
		fn()
		info, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		const header, frameHeader, page = 32, 24, 4096
		return (info.Size() - header) / (frameHeader + page)
	}
	if got := frames(func() { update(func(s *sessions.Session) error { s.Phase = sessions.PhasePlaying; return nil }) }); got != 2 {
		t.Errorf("accepting the challenge (phase changes) wrote %d pages, want 2 (the row and the index of active sessions)", got)
	}
	moves := []int{3, 3, 2, 4, 2, 4, 1, 5}
	got := frames(func() {
		for _, c := range moves {
			update(func(s *sessions.Session) error { _, err := s.Match.Play(s.Match.ToMove(), c); return err })
		}
	})
	if want := int64(len(moves)); got != want {
		t.Errorf("%d moves wrote %d pages, want %d (one each: the row)", len(moves), got, want)
	}
	if got := frames(func() {
		update(func(s *sessions.Session) error {
			s.Phase = sessions.PhaseFinished
			return s.Match.Forfeit(game.Player1)
		})
	}); got < 2 {
		t.Errorf("finishing the match (phase changes) wrote %d pages, want at least 2 (the row and the index of active sessions)", got)
	}
	if _, err := st.Create(t.Context(), &sessions.Session{ChannelID: "chan-1", Players: [2]sessions.Member{{ID: "1"}, {ID: "2"}}, Config: game.DefaultConfig()}); err != nil {
		t.Errorf("a new challenge after the finished match: %v, want it created", err)
	}
}
