package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// probeBytes is how much CheckPath writes to the database's folder to find
// out whether the file system has room: a few SQLite pages.
const probeBytes = 64 << 10

// CheckPath checks, before Open, that path can hold the database, and
// creates nothing: path must be a regular file or not exist yet; the
// folder that will hold it must exist, or the nearest folder above it
// that exists must be one Open can create it in (a file in the way is
// refused); that folder must take new files and probeBytes of data (the
// file system has room; SQLite keeps its -wal and -shm files beside the
// database); and an existing file must open for writing. MemoryPath is
// always fine.
//
// It returns nil when all is well, else an error that says what is wrong
// and what to do, naming the path and the CONNECTN_DB setting ("PATH is a
// directory: set CONNECTN_DB to a file inside it, such as ...", "disk
// full: ...", "PATH is not writable by uid N (owner uid M, mode ...): ...",
// "PATH is on a read-only file system: ..."), and that wraps the file
// system's error when there is one (errors.Is(err, fs.ErrPermission),
// say).
func CheckPath(path string) error {
	if path == MemoryPath {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return pathErrorf(nil, "%s is a directory: set CONNECTN_DB to a file inside it, such as %s", path, filepath.Join(path, "connectn.db"))
	case err == nil && !fi.Mode().IsRegular():
		return pathErrorf(nil, "%s is %s, not a database file: set CONNECTN_DB to a file path, such as data/connectn.db", path, fileKind(fi.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return describeFSError(path, "cannot reach", err)
	}
	// The folder Open writes in, or the one it creates the missing folders
	// in: the longest part of the folder's path that exists.
	dir := filepath.Dir(path)
	at, afi := existingAncestor(dir)
	switch {
	case afi == nil:
		return pathErrorf(nil, "no folder of %s can be read: set CONNECTN_DB to a path in a folder this user can reach", path)
	case !afi.IsDir():
		return pathErrorf(nil, "%s is a file, not a folder, so %s cannot be created: set CONNECTN_DB to a path in a folder", at, path)
	}
	doing := "cannot create files in the database folder"
	if at != dir {
		doing = "cannot create the database folder in"
	}
	if err := probeFolder(at, doing); err != nil {
		return err
	}
	if fi != nil { // the database exists: it must be writable
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return describeFSError(path, "cannot open the database", err)
		}
		f.Close()
	}
	return nil
}

// pathError is CheckPath's error: a message for people, and the file
// system's error, if any, as its cause.
type pathError struct {
	msg string
	err error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

func pathErrorf(cause error, format string, args ...any) error {
	return &pathError{msg: fmt.Sprintf(format, args...), err: cause}
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

// probeFolder creates, fills with probeBytes and removes a file in dir,
// and returns what stopped it, or nil; doing says what failed when the
// cause has no explanation of its own.
func probeFolder(dir, doing string) error {
	f, err := os.CreateTemp(dir, ".connectn-write-check-*")
	if err != nil {
		return describeFSError(dir, doing, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, probeBytes))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return describeFSError(dir, "cannot write to the database folder", err)
	}
	return nil
}

// describeFSError says what a file system error on path means to someone
// running the bot, and what to do about it.
func describeFSError(path, doing string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return pathErrorf(err, "disk full: the file system holding %s has no space left: free some space, or set CONNECTN_DB to a volume with room", path)
	case errors.Is(err, fs.ErrPermission):
		return pathErrorf(err, "%s is not writable by uid %d%s: make it writable for that user (in a container: chown -R %d the folder mounted at /data), or set CONNECTN_DB to a path it can write",
			path, os.Geteuid(), ownerNote(path), os.Geteuid())
	case errors.Is(err, syscall.EROFS):
		return pathErrorf(err, "%s is on a read-only file system: set CONNECTN_DB to a path on a writable volume", path)
	}
	return pathErrorf(err, "%s %s: %v", doing, path, unwrapPath(err))
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
