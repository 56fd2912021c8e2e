package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
// played) and the server's settings into the SQLite file path.
func seedStore(t *testing.T, path string) {
	t.Helper()
	seedGuild(t, path, guildID, "c")
}

// seedGuild writes two sessions of server guild (one finished with
// stats, one being played), in the channels prefix+"1" and prefix+"2",
// and the server's settings into the SQLite file path.
func seedGuild(t *testing.T, path, guild, prefix string) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	players := [2]sessions.Member{{ID: aliceID, Name: "Alice"}, {ID: bobID, Name: "Bob"}}
	if _, err := st.Create(t.Context(), &sessions.Session{ChannelID: prefix + "1", GuildID: guild, Players: players, Config: cfg, Phase: sessions.PhasePlaying}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(t.Context(), prefix+"1", func(s *sessions.Session) error {
		for _, c := range []int{0, 1, 0, 1, 0, 1, 0} {
			if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(t.Context(), &sessions.Session{ChannelID: prefix + "2", GuildID: guild, Players: players, Config: cfg, Phase: sessions.PhasePlaying}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateGuildSettings(t.Context(), guild, aliceID, func(g *sessions.GuildSettings) error {
		rows := 7
		g.Rows = &rows
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestExportOneGuild exports one server of a database that holds two, as
// an owner would with -guild: the file holds that server's matches,
// records and settings and nothing of the other (whose ID is in
// DISCORD_GUILD_ID in the environment and in .env, which -guild does not
// read), and imports into an empty database. Without -guild, whatever
// DISCORD_GUILD_ID says, export writes both servers. A -guild that is not
// a server ID is refused, and import has no -guild.
func TestExportOneGuild(t *testing.T) {
	const otherGuild = "1200000000000000002"
	dir := t.TempDir()
	src := filepath.Join(dir, "two.db")
	seedGuild(t, src, guildID, "a")
	seedGuild(t, src, otherGuild, "b")
	vars := map[string]string{"DISCORD_GUILD_ID": otherGuild}
	dotenv := func() (map[string]string, error) { return map[string]string{"DISCORD_GUILD_ID": otherGuild}, nil }

	one := runWith(t, context.Background(), []string{"export", "-db", src, "-guild", guildID}, vars, deps{dotenv: dotenv})
	if want := "exported 2 matches, 2 member records, 2 pair records, 0 member ratings, 1 server settings and 0 tournaments from server " + guildID + " of " + src + "\n"; one.code != 0 || one.stderr != want {
		t.Fatalf("export -guild: exit %d, stderr %q; want 0 and %q", one.code, one.stderr, want)
	}
	if strings.Contains(one.stdout, otherGuild) || strings.Contains(one.stdout, `"b1"`) || strings.Contains(one.stdout, `"b2"`) {
		t.Errorf("the export of server %s holds rows of server %s:\n%s", guildID, otherGuild, one.stdout)
	}
	lines := strings.Split(strings.TrimSpace(one.stdout), "\n")
	for _, l := range lines[1 : len(lines)-1] {
		var row map[string]map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("export line %s: %v", l, err)
		}
		for kind, cols := range row {
			if cols["guild_id"] != guildID {
				t.Errorf("a %s line of another server: %s", kind, l)
			}
		}
	}

	dst := filepath.Join(dir, "one.db")
	if r := runWith(t, context.Background(), []string{"import", "-db", dst}, nil, deps{stdin: strings.NewReader(one.stdout)}); r.code != 0 ||
		r.stdout != "imported 2 matches, 2 member records, 2 pair records, 0 member ratings, 1 server settings and 0 tournaments into "+dst+"\n" {
		t.Fatalf("import of one server: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	st, err := sqlite.Open(t.Context(), dst)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Get(t.Context(), "a1"); err != nil {
		t.Errorf("the copy of server %s: Get(a1) error = %v", guildID, err)
	}
	if _, err := st.Get(t.Context(), "b1"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("the copy of server %s: Get(b1) of the other server error = %v, want %v", guildID, err, sessions.ErrNotFound)
	}
	if g, err := st.GuildSettings(t.Context(), guildID); err != nil || g.Rows == nil || *g.Rows != 7 {
		t.Errorf("the copy's settings of %s = %+v, %v, want rows 7", guildID, g, err)
	}

	all := runWith(t, context.Background(), []string{"export", "-db", src}, vars, deps{dotenv: dotenv})
	if all.code != 0 || !strings.HasPrefix(all.stderr, "exported 4 matches, 4 member records, 4 pair records, 0 member ratings, 2 server settings and 0 tournaments from "+src) {
		t.Errorf("export without -guild, DISCORD_GUILD_ID set: exit %d, stderr %q; want both servers", all.code, all.stderr)
	}

	for _, bad := range []string{"", "my-server"} {
		r := runWith(t, context.Background(), []string{"export", "-db", src, "-guild", bad}, nil, deps{})
		if r.code != 2 || !strings.Contains(r.stderr, fmt.Sprintf("-guild %q is not a server ID", bad)) || r.stdout != "" {
			t.Errorf("export -guild %q: exit %d, stderr %q; want 2 and the flag refused", bad, r.code, r.stderr)
		}
	}
	if r := runWith(t, context.Background(), []string{"import", "-db", filepath.Join(dir, "x.db"), "-guild", guildID}, nil, deps{}); r.code != 2 {
		t.Errorf("import -guild: exit %d, stderr %q; want 2, no such flag", r.code, r.stderr)
	}
	help := runWith(t, context.Background(), []string{"export", "-h"}, nil, deps{})
	if !strings.Contains(help.stdout, "\n  -guild ID  (this flag only: not DISCORD_GUILD_ID") {
		t.Errorf("export -h does not describe -guild:\n%s", help.stdout)
	}
}

// TestMigrateExportImport drives connectn migrate, export and import as an
// owner would, from a SQLite file to another SQLite file and, when
// CONNECTN_TEST_POSTGRES is set, to PostgreSQL.
func TestMigrateExportImport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "old.db")
	if r := runWith(t, context.Background(), []string{"migrate", "-db", src}, nil, deps{}); r.code != 0 ||
		r.stdout != src+": schema version 0, migrated to 10 (10 migrations applied)\n" {
		t.Fatalf("migrate of a new file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runWith(t, context.Background(), []string{"migrate", "-db", src}, nil, deps{}); r.code != 0 || r.stdout != src+": schema version 10, up to date\n" {
		t.Fatalf("migrate again: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	seedStore(t, src)

	exported := runWith(t, context.Background(), []string{"export", "-db", src}, nil, deps{})
	if exported.code != 0 || !strings.Contains(exported.stderr, "exported 2 matches, 2 member records, 2 pair records, 0 member ratings, 1 server settings and 0 tournaments from "+src+"\n") {
		t.Fatalf("export: exit %d, stderr %q", exported.code, exported.stderr)
	}
	lines := strings.Split(strings.TrimSpace(exported.stdout), "\n")
	var header map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &header); err != nil || header["connectn_export"] != 6.0 || header["schema"] != 10.0 {
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
			if r.code != 0 || !strings.Contains(r.stdout, "imported 2 matches, 2 member records, 2 pair records, 0 member ratings, 1 server settings and 0 tournaments") {
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

// TestImportFailure checks what a failed import says (once "import", not
// "import: import:") and leaves: a SQLite file it created, and the folder
// created for it, are removed; a database that existed is kept as it was;
// an input file that cannot be read creates no database at all.
func TestImportFailure(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new", "connectn.db")
	r := runWith(t, context.Background(), []string{"import", "-db", fresh}, nil, deps{stdin: strings.NewReader("hello\n")})
	if want := "connectn import: line 1: not a ConnectN export: the first line must be its header, as connectn export writes it\n"; r.code != 1 || r.stderr != want {
		t.Errorf("import of what is not an export: exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after a failed import into a new database, its folder: %v, want it removed", err)
	}

	missing := filepath.Join(dir, "missing.jsonl")
	r = runWith(t, context.Background(), []string{"import", "-db", fresh, missing}, nil, deps{})
	if want := "connectn import: open " + missing + ": no such file or directory\n"; r.code != 1 || r.stderr != want {
		t.Errorf("import of a missing file: exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an import of a missing file left %v, want nothing", entries)
	}

	existing := filepath.Join(dir, "old.db")
	seedStore(t, existing)
	r = runWith(t, context.Background(), []string{"import", "-db", existing}, nil, deps{stdin: strings.NewReader("hello\n")})
	if r.code != 1 || strings.Contains(r.stderr, "import: import:") {
		t.Errorf("import into an existing database: exit %d, stderr %q; want 1, import named once", r.code, r.stderr)
	}
	st, err := sqlite.Open(t.Context(), existing)
	if err != nil {
		t.Fatalf("the existing database after a failed import: %v", err)
	}
	defer st.Close()
	if _, err := st.Get(t.Context(), "c1"); err != nil {
		t.Errorf("the existing database after a failed import: Get() error = %v, want its sessions kept", err)
	}
}

// TestFailedStartLeavesNoFolder checks that a start refused for its
// settings creates no database folder (CheckPath creates nothing).
func TestFailedStartLeavesNoFolder(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	r := runWith(t, context.Background(), []string{"run", "-db", filepath.Join(data, "connectn.db")}, nil, deps{})
	if r.code != 2 || !strings.Contains(r.stderr, "DISCORD_TOKEN is not set") {
		t.Fatalf("run without a token: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after a refused start, the database folder: %v, want it not created", err)
	}
}
