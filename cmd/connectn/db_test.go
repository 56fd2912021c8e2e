package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sessionstest"
	"github.com/connectn/connectn/sessions/sqlite"
)

func TestConfigMasksDatabasePassword(t *testing.T) {
	r := runWith(t, context.Background(), []string{"config", "-db", "postgres://connectn:s3cret@db:5432/connectn?sslmode=disable"}, nil, deps{})
	if r.code != 0 {
		t.Fatalf("config exit %d, stderr %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "s3cret") {
		t.Errorf("connectn config shows the database password:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "postgres://connectn:xxxxx@db:5432/connectn?sslmode=disable") {
		t.Errorf("connectn config does not show the URL with its password masked:\n%s", r.stdout)
	}
}

// seedStore writes two sessions (one finished with stats, one being
// played) into the SQLite file path.
func seedStore(t *testing.T, path string) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	players := [2]sessions.Member{{ID: aliceID, Name: "Alice"}, {ID: bobID, Name: "Bob"}}
	if _, err := st.Create(t.Context(), &sessions.Session{ChannelID: "c1", GuildID: guildID, Players: players, Config: cfg, Phase: sessions.PhasePlaying}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(t.Context(), "c1", func(s *sessions.Session) error {
		for _, c := range []int{0, 1, 0, 1, 0, 1, 0} {
			if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(t.Context(), &sessions.Session{ChannelID: "c2", GuildID: guildID, Players: players, Config: cfg, Phase: sessions.PhasePlaying}); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateExportImport drives connectn migrate, export and import as an
// owner would, from a SQLite file to another SQLite file and, when
// CONNECTN_TEST_POSTGRES is set, to PostgreSQL.
func TestMigrateExportImport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "old.db")
	if r := runWith(t, context.Background(), []string{"migrate", "-db", src}, nil, deps{}); r.code != 0 ||
		r.stdout != src+": schema version 0, migrated to 3 (3 migrations applied)\n" {
		t.Fatalf("migrate of a new file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runWith(t, context.Background(), []string{"migrate", "-db", src}, nil, deps{}); r.code != 0 || r.stdout != src+": schema version 3, up to date\n" {
		t.Fatalf("migrate again: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	seedStore(t, src)

	exported := runWith(t, context.Background(), []string{"export", "-db", src}, nil, deps{})
	if exported.code != 0 || !strings.Contains(exported.stderr, "exported 2 matches, 2 member records and 2 pair records") {
		t.Fatalf("export: exit %d, stderr %q", exported.code, exported.stderr)
	}
	lines := strings.Split(strings.TrimSpace(exported.stdout), "\n")
	var header map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &header); err != nil || header["connectn_export"] != 1.0 || header["schema"] != 3.0 {
		t.Errorf("export header = %s, %v", lines[0], err)
	}
	file := filepath.Join(dir, "export.jsonl")
	if r := runWith(t, context.Background(), []string{"export", "-db", src, file}, nil, deps{}); r.code != 0 {
		t.Fatalf("export to a file: exit %d, stderr %q", r.code, r.stderr)
	}
	if b, err := os.ReadFile(file); err != nil || len(b) != len(exported.stdout) {
		t.Errorf("export file holds %d bytes (%v), want the %d of standard output", len(b), err, len(exported.stdout))
	}
	if r := runWith(t, context.Background(), []string{"export", "-db", src, file}, nil, deps{}); r.code != 1 || !strings.Contains(r.stderr, "must not exist") {
		t.Errorf("export over an existing file: exit %d, stderr %q; want it refused", r.code, r.stderr)
	}
	if r := runWith(t, context.Background(), []string{"export", "-db", filepath.Join(dir, "missing.db")}, nil, deps{}); r.code != 1 || !strings.Contains(r.stderr, "no database at") {
		t.Errorf("export of a missing file: exit %d, stderr %q", r.code, r.stderr)
	}

	targets := []struct{ name, db string }{{"sqlite", filepath.Join(dir, "new.db")}}
	if u := os.Getenv("CONNECTN_TEST_POSTGRES"); u != "" {
		targets = append(targets, struct{ name, db string }{"postgres", sessionstest.PostgresSchema(t, u)})
	} else {
		t.Log("CONNECTN_TEST_POSTGRES is not set: the import into PostgreSQL is not tried")
	}
	for _, tt := range targets {
		t.Run(tt.name, func(t *testing.T) {
			r := runWith(t, context.Background(), []string{"import", "-db", tt.db}, nil, deps{stdin: strings.NewReader(exported.stdout)})
			if r.code != 0 || !strings.Contains(r.stdout, "imported 2 matches, 2 member records and 2 pair records") {
				t.Fatalf("import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "s3cret") {
				t.Error("import shows a password")
			}
			again := runWith(t, context.Background(), []string{"import", "-db", tt.db, file}, nil, deps{})
			if again.code != 1 || !strings.Contains(again.stderr, "import into an empty database") {
				t.Errorf("second import: exit %d, stderr %q; want it refused", again.code, again.stderr)
			}
			back := runWith(t, context.Background(), []string{"export", "-db", tt.db}, nil, deps{})
			if back.code != 0 {
				t.Fatalf("export of the copy: exit %d, stderr %q", back.code, back.stderr)
			}
			if got, want := strings.SplitN(back.stdout, "\n", 2)[1], strings.SplitN(exported.stdout, "\n", 2)[1]; got != want {
				t.Errorf("the copy exports as\n%s\nwant (after the header)\n%s", got, want)
			}
		})
	}
}

// TestPostgresUnreachable checks what an owner reads when the PostgreSQL
// server of CONNECTN_DB does not answer: what to check, and never the
// password.
func TestPostgresUnreachable(t *testing.T) {
	r := runWith(t, context.Background(), []string{"migrate", "-db", "postgres://connectn:s3cret@127.0.0.1:1/connectn?connect_timeout=5"}, nil, deps{})
	if r.code != 1 || !strings.Contains(r.stderr, "cannot reach PostgreSQL at postgres://connectn:xxxxx@127.0.0.1:1/connectn") {
		t.Errorf("migrate with no server: exit %d, stderr %q; want 1 and what to check", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "s3cret") {
		t.Errorf("the password was shown: %s", r.stderr)
	}
}
