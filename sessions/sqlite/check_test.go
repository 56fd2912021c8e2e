package sqlite_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// TestCheckPath checks what CheckPath says of paths that cannot hold the
// database, in the words `connectn` prints, and that it creates nothing.
func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "existing.db")
	if err := os.WriteFile(existing, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want string // "" for no error
	}{
		{name: "new file in an existing folder", path: filepath.Join(dir, "connectn.db")},
		{name: "existing file", path: existing},
		{name: "missing folders", path: filepath.Join(dir, "data", "more", "connectn.db")},
		{name: "in memory", path: sqlite.MemoryPath},
		{name: "a directory", path: dir, want: dir + " is a directory: set CONNECTN_DB to a file inside it, such as " + filepath.Join(dir, "connectn.db")},
		{name: "a device", path: os.DevNull, want: os.DevNull + " is a device, not a database file: set CONNECTN_DB to a file path, such as data/connectn.db"},
		{name: "under a file", path: filepath.Join(file, "x", "connectn.db"), want: file + " is a file, not a folder, so " + filepath.Join(file, "x", "connectn.db") + " cannot be created: set CONNECTN_DB to a path in a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sqlite.CheckPath(tt.path)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckPath(%q) error = %v, want nil", tt.path, err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("CheckPath(%q) error = %v, want %q", tt.path, err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after CheckPath of a path in missing folders, the folder data: %v, want it not created", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("CheckPath left files behind in %s: %v", dir, entries)
	}
}

// TestCheckPathNotWritable checks the message for a folder this user
// cannot write. Root writes everywhere: the test then skips (the binary
// test in cmd/connectn runs the program as another user instead).
func TestCheckPathNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may write any folder")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "connectn.db"), filepath.Join(dir, "data", "connectn.db")} {
		err := sqlite.CheckPath(path)
		if err == nil || !strings.HasPrefix(err.Error(), dir+" is not writable by uid ") || !errors.Is(err, fs.ErrPermission) {
			t.Errorf("CheckPath(%q) error = %v, want %s named not writable, wrapping fs.ErrPermission", path, err, dir)
		}
	}
}

// TestOpenFailureLeavesNothing checks that an Open that fails removes the
// folders and the file it created, and never a database that was there.
func TestOpenFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	path := filepath.Join(dir, "data", "more", "connectn.db")
	if st, err := sqlite.Open(cancelled, path); err == nil {
		st.Close()
		t.Fatal("Open() with a cancelled context succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed Open left %v in %s, want nothing", entries, dir)
	}

	// A database that exists, of a newer schema: refused, and kept.
	kept := filepath.Join(dir, "kept", "connectn.db")
	st, err := sqlite.Open(t.Context(), kept)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := rawDB(t, kept).ExecContext(t.Context(), "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, '099_future.sql', '')"); err != nil {
		t.Fatal(err)
	}
	if st, err := sqlite.Open(t.Context(), kept); err == nil {
		st.Close()
		t.Fatal("Open() of a newer schema succeeded")
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the existing database after a failed Open: %v, want it kept", err)
	}
}

// TestDiscard checks that Discard removes a database Open created, with
// the folders created for it, and keeps one that existed.
func TestDiscard(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "connectn.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Discard(); err != nil {
		t.Fatalf("Discard() error = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after Discard of a new database, %s holds %v, want nothing", dir, entries)
	}

	st, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	mustCreateSession(t, st)
	st.Close()
	st, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Discard(); err != nil {
		t.Fatalf("Discard() error = %v", err)
	}
	st, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("the database that existed before its Discard: %v", err)
	}
	defer st.Close()
	if _, err := st.Get(t.Context(), "chan-1"); err != nil {
		t.Errorf("the database that existed before its Discard: Get() error = %v, want its session kept", err)
	}
}

func mustCreateSession(t *testing.T, st sessions.Store) {
	t.Helper()
	if _, err := st.Create(t.Context(), &sessions.Session{ChannelID: "chan-1", Players: [2]sessions.Member{{ID: "1"}, {ID: "2"}}, Config: game.DefaultConfig()}); err != nil {
		t.Fatal(err)
	}
}
