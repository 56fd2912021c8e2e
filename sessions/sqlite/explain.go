package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/connectn/connectn/sessions/internal/sqlstore"
)

// Explain returns err explained for the person running the bot when it is
// one of SQLite's errors about the database file (a full disk, a read-only
// file, a lock held by another program, failing writes, not a database, a
// damaged file, a file that cannot be opened) or the database not
// answering in time; any other err, and nil, is returned as is. The
// explanation reads "MEANING: ADVICE (ERR)", names the store's file, and
// unwraps to err, so errors.Is and errors.As still see the cause. Open's
// errors come explained already; Explain is for the errors of a store in
// use (Create, Update, Abandon, Import, ...).
func (s *Store) Explain(err error) error { return explain(s.path, err) }

// explain is Explain for the database file path.
func explain(path string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return sqlstore.Explained(fmt.Sprintf("the database %s did not answer in time: another program may hold a lock on it "+
			"(another connectn on the same file, a backup tool), or its disk is slow", path), err)
	}
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	var msg string
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		msg = fmt.Sprintf("the database %s is locked by another program (another connectn on the same file, or a tool holding a write lock): "+
			"stop it, or give each bot a file of its own", path)
	case sqlite3.SQLITE_IOERR:
		msg = fmt.Sprintf("the database %s cannot be written (disk I/O error): its file or volume may have become read-only "+
			"(mount options, chattr +i) or its disk may be failing", path)
	case sqlite3.SQLITE_FULL:
		msg = fmt.Sprintf("disk full: the database %s cannot grow: free some space on its volume", path)
	case sqlite3.SQLITE_READONLY:
		msg = fmt.Sprintf("the database %s is read-only for uid %d%s: make the file and its folder writable for that user", path, os.Geteuid(), ownerNote(path))
	case sqlite3.SQLITE_NOTADB:
		msg = fmt.Sprintf("%s is not a SQLite database: set CONNECTN_DB to the bot's database file, or to a new path to start afresh", path)
	case sqlite3.SQLITE_CORRUPT:
		msg = fmt.Sprintf("the database %s is damaged: stop the bot and restore it from a backup (docs/self-hosting.md, Backups)", path)
	case sqlite3.SQLITE_CANTOPEN:
		msg = fmt.Sprintf("cannot open the database %s: check that its folder exists and is writable by uid %d", path, os.Geteuid())
	default:
		return err
	}
	return sqlstore.Explained(msg, err)
}
