package sqlite_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/sessions/sqlite"
)

// TestCheckPath checks what CheckPath says of paths that cannot hold the
// database, in the words `connectn` prints.
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
