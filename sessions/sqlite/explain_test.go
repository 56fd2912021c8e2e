package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sqliteBusy returns a real SQLITE_BUSY error: a write while another
// connection holds the write lock, with no busy timeout.
func sqliteBusy(t *testing.T) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "busy.db")
	holder, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	holder.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "CREATE TABLE t (n INTEGER)", "BEGIN IMMEDIATE"} {
		if _, err := holder.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer holder.Exec("ROLLBACK")
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err = other.Exec("INSERT INTO t VALUES (1)"); err == nil {
		t.Fatal("a write went through another connection's write lock")
	}
	return err
}

// sqliteFull returns a real SQLITE_FULL error: a database whose page count
// is capped runs out of room as a full disk does.
func sqliteFull(t *testing.T) error {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "small.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"PRAGMA max_page_count = 4", "CREATE TABLE t (b BLOB)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 100; i++ {
		if _, err = db.Exec("INSERT INTO t VALUES (zeroblob(4096))"); err != nil {
			return err
		}
	}
	t.Fatal("the capped database never filled up")
	return nil
}

// TestExplain checks the explanations of real SQLite errors, and that
// other errors pass unchanged. The words are what `connectn` prints.
func TestExplain(t *testing.T) {
	full := explain("/data/connectn.db", sqliteFull(t))
	if want := "disk full: the database /data/connectn.db cannot grow: free some space on its volume"; !strings.HasPrefix(full.Error(), want) {
		t.Errorf("got %q, want it to start with %q", full, want)
	}

	notDB := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("not a database\n"), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), notDB)
	if err == nil {
		t.Fatal("a text file opened as a database")
	}
	// Open explains its own errors.
	if got, want := err.Error(), notDB+" is not a SQLite database: set CONNECTN_DB to the bot's database file"; !strings.HasPrefix(got, want) {
		t.Errorf("Open() error = %q, want it to start with %q", got, want)
	}
	if got, want := err.Error(), fmt.Sprintf("(open session store %q: ", notDB); !strings.Contains(got, want) {
		t.Errorf("Open() error = %q, want it to hold the cause %q...", got, want)
	}
	if _, err := os.Stat(notDB); err != nil {
		t.Errorf("the file that is not a database: %v, want it kept", err)
	}

	locked := explain("x.db", sqliteBusy(t))
	if want := "the database x.db is locked by another program"; !strings.HasPrefix(locked.Error(), want) {
		t.Errorf("got %q, want it to start with %q", locked, want)
	}
	late := explain("x.db", fmt.Errorf("update session 1: %w", context.DeadlineExceeded))
	if want := "the database x.db did not answer in time: another program may hold a lock"; !strings.HasPrefix(late.Error(), want) || !errors.Is(late, context.DeadlineExceeded) {
		t.Errorf("got %q, want it to start with %q and wrap the deadline", late, want)
	}

	other := errors.New("database is locked")
	if got := explain("x.db", other); got != other {
		t.Errorf("an error that is not about the file: got %v, want it unchanged", got)
	}
	if got := explain("x.db", nil); got != nil {
		t.Errorf("explain(nil) = %v, want nil", got)
	}
	st := &Store{path: "/srv/bot.db"}
	if got, want := st.Explain(sqliteFull(t)).Error(), "disk full: the database /srv/bot.db cannot grow"; !strings.HasPrefix(got, want) {
		t.Errorf("Store.Explain() = %q, want it to start with %q (the store's path)", got, want)
	}
}
