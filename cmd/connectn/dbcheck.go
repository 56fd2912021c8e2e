package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	sqlitestore "github.com/connectn/connectn/sessions/sqlite"
)

// probeBytes is how much checkDBFile writes to the database's folder to
// find out whether the file system has room: a few SQLite pages.
const probeBytes = 64 << 10

// checkDBFile checks, before SQLite opens it, that path can hold the
// database: it is a regular file or does not exist yet, its folder exists
// (it is created if missing) and is writable by this process (SQLite keeps
// its -wal and -shm files beside the database), the file is writable, and
// the file system has room. It returns what is wrong and what to do, or ""
// when all is well. sqlitestore.MemoryPath is always fine.
func checkDBFile(path string) string {
	if path == sqlitestore.MemoryPath {
		return ""
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Sprintf("%s is a directory: set CONNECTN_DB to a file inside it, such as %s", path, filepath.Join(path, "connectn.db"))
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Sprintf("%s is %s, not a database file: set CONNECTN_DB to a file path, such as data/connectn.db", path, fileKind(fi.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return describeFSError(path, "cannot reach", err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		// Name the part of the path that stops it: a file where a folder
		// should be, or the last folder that exists.
		at, afi := existingAncestor(dir)
		if afi != nil && !afi.IsDir() {
			return fmt.Sprintf("%s is a file, not a folder, so %s cannot be created: set CONNECTN_DB to a path in a folder", at, path)
		}
		return describeFSError(at, "cannot create the database folder in", err)
	}
	if p := probeFolder(dir); p != "" {
		return p
	}
	if fi != nil { // the database exists: it must be writable
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return describeFSError(path, "cannot open the database", err)
		}
		f.Close()
	}
	return ""
}

// existingAncestor returns the longest prefix of path that exists, and its
// FileInfo (nil when not even the root can be read).
func existingAncestor(path string) (string, fs.FileInfo) {
	for {
		fi, err := os.Stat(path)
		if err == nil {
			return path, fi
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path, nil
		}
		path = parent
	}
}

// probeFolder creates, fills with probeBytes and removes a file in dir, and
// returns what stopped it, or "".
func probeFolder(dir string) string {
	f, err := os.CreateTemp(dir, ".connectn-write-check-*")
	if err != nil {
		return describeFSError(dir, "cannot create files in the database folder", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, probeBytes))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return describeFSError(dir, "cannot write to the database folder", err)
	}
	return ""
}

// describeFSError says what a file system error on path means to someone
// running the bot, and what to do about it.
func describeFSError(path, doing string, err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Sprintf("disk full: the file system holding %s has no space left: free some space, or set CONNECTN_DB to a volume with room", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s is not writable by uid %d%s: make it writable for that user (in a container: chown -R %d the folder mounted at /data), or set CONNECTN_DB to a path it can write",
			path, os.Geteuid(), ownerNote(path), os.Geteuid())
	case errors.Is(err, syscall.EROFS):
		return fmt.Sprintf("%s is on a read-only file system: set CONNECTN_DB to a path on a writable volume", path)
	}
	return fmt.Sprintf("%s %s: %v", doing, path, unwrapPath(err))
}

// unwrapPath drops the *fs.PathError wrapper, whose path the caller
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileKind names a non-regular file mode: "a device", "a named pipe", ...
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// dbError is a database failure explained for the person running the bot.
type dbError struct {
	msg string
	err error
}

func (e *dbError) Error() string { return e.msg + " (" + e.err.Error() + ")" }
func (e *dbError) Unwrap() error { return e.err }

// explainDBError returns err wrapped with what it means and what to do when
// it is one of SQLite's errors about the database file (full disk,
// read-only, locked, failing writes, not a database, damaged, cannot open)
// or the database not answering in time; any other err is returned as is.
// path is the database file.
func explainDBError(path string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &dbError{err: err, msg: fmt.Sprintf("the database %s did not answer in time: another program may hold a lock on it "+
			"(another connectn on the same file, a backup tool), or its disk is slow", path)}
	}
	var se *msqlite.Error
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
		msg = fmt.Sprintf("the database %s is damaged: stop the bot and restore it from a backup (README: Backups)", path)
	case sqlite3.SQLITE_CANTOPEN:
		msg = fmt.Sprintf("cannot open the database %s: check that its folder exists and is writable by uid %d", path, os.Geteuid())
	default:
		return err
	}
	return &dbError{msg: msg, err: err}
}
