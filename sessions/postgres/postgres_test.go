package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/postgres"
	"github.com/connectn/connectn/sessions/sessionstest"
)

// serverURL returns CONNECTN_TEST_POSTGRES, or skips the test when it is
// not set.
func serverURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("CONNECTN_TEST_POSTGRES")
	if u == "" {
		tb.Skip("CONNECTN_TEST_POSTGRES is not set: set it to a PostgreSQL URL, such as postgres://postgres@127.0.0.1:5432/test?sslmode=disable, to run the PostgreSQL tests")
	}
	return u
}

// testDB is a schema of its own in the test server, dropped at the end of
// the test.
type testDB struct{ url string }

func newTestDB(tb testing.TB) sessionstest.DB {
	return &testDB{url: sessionstest.PostgresSchema(tb, serverURL(tb))}
}

func (d *testDB) Open(tb testing.TB, c clock.Clock, opts ...sessions.Option) sessions.Store {
	tb.Helper()
	st, err := postgres.Open(tb.Context(), d.url, append([]sessions.Option{sessions.WithClock(c)}, opts...)...)
	if err != nil {
		tb.Fatalf("Open() error = %v", err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

func (d *testDB) Exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	db, err := postgres.OpenDB(tb.Context(), d.url)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	n := 0
	var b strings.Builder
	for _, r := range query { // ? placeholders to $1, $2, ...
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	if _, err := db.ExecContext(tb.Context(), b.String(), args...); err != nil {
		tb.Fatalf("Exec(%s) error = %v", query, err)
	}
}

func (d *testDB) LockWaiters(st sessions.Store, channelID string) int {
	return postgres.LockWaiters(st.(*postgres.Store), channelID)
}

func (d *testDB) RowReads(st sessions.Store) int64 {
	return postgres.RowReads(st.(*postgres.Store))
}

func (d *testDB) RefusePairRecords(tb testing.TB) {
	d.Exec(tb, `CREATE FUNCTION refuse_pairs() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN RAISE EXCEPTION 'pair records refused'; END $$`)
	d.Exec(tb, `CREATE TRIGGER no_pairs BEFORE INSERT ON pair_records FOR EACH ROW EXECUTE FUNCTION refuse_pairs()`)
}

func (d *testDB) RefuseRatings(tb testing.TB) {
	d.Exec(tb, `CREATE FUNCTION refuse_ratings() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN RAISE EXCEPTION 'ratings refused'; END $$`)
	d.Exec(tb, `CREATE TRIGGER no_ratings BEFORE INSERT OR UPDATE ON member_ratings FOR EACH ROW EXECUTE FUNCTION refuse_ratings()`)
}

func (d *testDB) Dump(tb testing.TB) map[string][][]string {
	tb.Helper()
	db, err := postgres.OpenDB(tb.Context(), d.url)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	return sessionstest.DumpTables(tb, db, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
}

// TestServerAnswers fails, rather than skips, when CONNECTN_TEST_POSTGRES
// is set and the server does not answer: CI runs it first.
func TestServerAnswers(t *testing.T) {
	u := serverURL(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	db, err := postgres.OpenDB(ctx, u)
	if err != nil {
		t.Fatalf("the PostgreSQL server at CONNECTN_TEST_POSTGRES=%s does not answer: %v", postgres.Redact(u), err)
	}
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, "SHOW server_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL %s at %s", version, postgres.Redact(u))
}

func TestContract(t *testing.T) {
	sessionstest.Run(t, sessionstest.Backend{NewDB: newTestDB})
}

func BenchmarkStore(b *testing.B) {
	sessionstest.Bench(b, sessionstest.Backend{NewDB: newTestDB})
}

func TestSchemaVersionsAndConcurrentMigrations(t *testing.T) {
	u := sessionstest.PostgresSchema(t, serverURL(t))
	// Replicas starting together: each migrates under the advisory lock,
	// one of them does the work, none fails.
	errs := make(chan error, 4)
	stores := make(chan *postgres.Store, 4)
	for range 4 {
		go func() {
			st, err := postgres.Open(t.Context(), u)
			errs <- err
			stores <- st
		}()
	}
	applied := 0
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("Open() at the same time error = %v", err)
		}
		st := <-stores
		if st == nil {
			continue
		}
		defer st.Close()
		from, to := st.SchemaVersions()
		if to != len(postgres.Migrations()) {
			t.Errorf("SchemaVersions() to = %d, want %d", to, len(postgres.Migrations()))
		}
		if from != to {
			applied++
		}
	}
	if applied != 1 {
		t.Errorf("stores that applied the migrations = %d, want 1", applied)
	}
	db, err := postgres.OpenDB(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, '099_future.sql', '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := postgres.Open(t.Context(), u); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open() of a newer schema error = %v, want it to say newer", err)
	}
}

func TestURLChecksAndRedaction(t *testing.T) {
	tests := []struct {
		url     string
		wantErr bool
		shown   string
	}{
		{url: "postgres://connectn:s3cret@db:5432/connectn?sslmode=disable", shown: "postgres://connectn:xxxxx@db:5432/connectn?sslmode=disable"},
		{url: "postgresql://db/connectn", shown: "postgresql://db/connectn"},
		{url: "postgres://u@db/x?password=s3cret", shown: "postgres://u@db/x?password=xxxxx"},
		{url: "mysql://db/x", wantErr: true},
		{url: "postgres:///nohost", wantErr: true},
		{url: "postgres://u:s3cret@db:notaport/x", wantErr: true},
		{url: "postgres://u:s3cret@db/x?sslmode=sometimes", wantErr: true},
	}
	for _, tt := range tests {
		err := postgres.CheckURL(tt.url)
		if (err != nil) != tt.wantErr {
			t.Errorf("CheckURL(%s) error = %v, want error %t", postgres.Redact(tt.url), err, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("CheckURL() error %q shows the password", err)
		}
		if tt.shown != "" {
			if got := postgres.Redact(tt.url); got != tt.shown {
				t.Errorf("Redact(%q) = %q, want %q", tt.url, got, tt.shown)
			}
		}
	}
}

// TestExplain checks the explanations of PostgreSQL's usual refusals, in
// the words `connectn` prints, and that other errors pass unchanged.
func TestExplain(t *testing.T) {
	const name = "postgres://connectn:xxxxx@db:5432/connectn"
	tests := []struct {
		code string
		want string // "" when the error passes unchanged
	}{
		{"28P01", "PostgreSQL at " + name + " refused the login: check the user and password in CONNECTN_DB"},
		{"28000", "PostgreSQL at " + name + " refused the login: check the user and password in CONNECTN_DB"},
		{"3D000", "PostgreSQL at " + name + " has no such database: create it (createdb), or fix the database name in CONNECTN_DB"},
		{"42501", "PostgreSQL at " + name + " refused a change to the schema: the user in CONNECTN_DB needs the right to create tables in its schema"},
		{"23505", ""},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			cause := fmt.Errorf("open session store %s: %w", name, &pgconn.PgError{Code: tt.code, Message: "refused"})
			got := postgres.Explain(name, cause)
			if tt.want == "" {
				if got != cause {
					t.Errorf("Explain(SQLSTATE %s) = %v, want the error unchanged", tt.code, got)
				}
				return
			}
			if want := tt.want + " (" + cause.Error() + ")"; got.Error() != want {
				t.Errorf("Explain(SQLSTATE %s) = %q, want %q", tt.code, got, want)
			}
			var pe *pgconn.PgError
			if !errors.As(got, &pe) || pe.Code != tt.code {
				t.Errorf("Explain(SQLSTATE %s) does not wrap the *pgconn.PgError", tt.code)
			}
		})
	}
	if got := postgres.Explain(name, nil); got != nil {
		t.Errorf("Explain(nil) = %v, want nil", got)
	}
}

// TestOpenUnreachable checks Open's error when no server answers: it says
// what to check, and never shows the password. It needs no server.
func TestOpenUnreachable(t *testing.T) {
	_, err := postgres.Open(t.Context(), "postgres://connectn:s3cret@127.0.0.1:1/connectn?connect_timeout=5")
	want := "cannot reach PostgreSQL at postgres://connectn:xxxxx@127.0.0.1:1/connectn?connect_timeout=5: check that the server runs"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Open() error = %v, want it to start with %q", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Open() error shows the password: %v", err)
	}
}
