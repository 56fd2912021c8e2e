// Package sqlite is the SQLite backend of the session store: one file,
// through modernc.org/sqlite (pure Go, so the binary stays static) and
// database/sql. It is the default, and all a bot on one host needs.
//
// Usage:
//
//	st, err := sqlite.Open(ctx, "data/connectn.db")
//	if err != nil { ... }
//	defer st.Close()
//
// The store meets the sessions.Store contract (see the sessions package
// and the shared suite in sessions/sessionstest). Several processes may
// open the same file: the revision check of Update and the partial unique
// index hold across them, and BusyTimeout bounds how long one waits for
// another's write.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/internal/sqlstore"
)

// MemoryPath is the path that makes Open keep the database in memory, on a
// single connection, for tests and throwaway runs: nothing is written to
// disk and everything is lost on Close.
const MemoryPath = ":memory:"

// BusyTimeout is how long a statement waits for a lock held by another
// process on the same database file before failing with SQLITE_BUSY. Within
// one Store, writes are queued in Go so they do not contend for SQLite's
// write lock.
const BusyTimeout = 5 * time.Second

// MaxOpenConns bounds the connection pool of a file database. WAL lets the
// readers proceed while one connection writes.
const MaxOpenConns = 4

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the schema migrations, in order: version i+1 is
// Migrations()[i].
func Migrations() []sqlstore.Migration {
	list, err := sqlstore.LoadMigrations(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the embedded files are part of the program
	}
	return list
}

var dialect = sqlstore.Dialect{
	Name:              "sqlite",
	IsUniqueViolation: isUniqueViolation,
	SerialWrites:      true,
}

// Store is the SQLite session store. It implements sessions.Store; create
// one with Open and release it with Close.
type Store struct {
	*sqlstore.Store
	path     string
	versions sqlstore.Versions
}

// Open opens (creating it if needed) the SQLite database at path, creating
// the parent folder too if it is missing, and migrates its schema: the
// schema_migrations table records the versions applied, and a database
// from before that table (versions 1 and 2, kept in PRAGMA user_version)
// is adopted at its version and upgraded in place. Each connection gets
// busy_timeout, WAL journaling, synchronous=NORMAL, foreign keys and BEGIN
// IMMEDIATE transactions through the DSN. path is a file system path
// without '?', or MemoryPath. Every error names the path and wraps the
// cause: a folder or file that cannot be created or opened, a file that is
// not a database, a schema written by a newer program.
func Open(ctx context.Context, path string, opts ...sessions.Option) (*Store, error) {
	st, err := open(ctx, path, opts...)
	if err != nil {
		return nil, fmt.Errorf("open session store %q: %w", path, err)
	}
	return st, nil
}

func open(ctx context.Context, path string, opts ...sessions.Option) (*Store, error) {
	db, err := OpenDB(ctx, path)
	if err != nil {
		return nil, err
	}
	v, err := sqlstore.Migrate(ctx, db, dialect, Migrations(), sqlstore.MigrateHooks{
		Legacy: func(ctx context.Context, tx *sql.Tx) (int, error) {
			var v int
			err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
			return v, err
		},
		Applied: func(ctx context.Context, tx *sql.Tx, version int) error {
			// PRAGMA takes no bound parameters; the value is our own number.
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version))
			return err
		},
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	core, err := sqlstore.New(ctx, db, dialect, fmt.Sprintf("%q", path), sessions.ApplyOptions(opts...))
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &Store{Store: core, path: path, versions: v}, nil
}

// OpenDB opens the database at path with the store's connection settings,
// and checks that it answers, without touching its schema. For tests and
// tools; Open is the way to a Store.
func OpenDB(ctx context.Context, path string) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	if strings.ContainsRune(path, '?') {
		return nil, errors.New("path contains '?'")
	}
	memory := path == MemoryPath
	if !memory {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, fmt.Errorf("create folder: %w", err)
		}
	}
	dsn := path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate",
		BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	conns := MaxOpenConns
	if memory {
		// Every connection to ":memory:" is a database of its own.
		conns = 1
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// Path returns the path the store was opened with.
func (s *Store) Path() string { return s.path }

// Export writes every match and stat to w as JSON lines (see
// sessions/internal/sqlstore), from one consistent snapshot.
func (s *Store) Export(ctx context.Context, w io.Writer) (sqlstore.Counts, error) {
	return s.Store.Export(ctx, w, s.versions.To)
}

// SchemaVersions returns the schema version Open found and the one it
// left (equal when nothing was pending).
func (s *Store) SchemaVersions() (from, to int) { return s.versions.From, s.versions.To }

// isUniqueViolation reports whether err is SQLite refusing a row that
// breaks a UNIQUE index; in the matches table the only one is the index
// that allows one active session per channel.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}
