// Package sqlite is the SQLite backend of the session store: one file,
// through modernc.org/sqlite (pure Go, so the binary stays static) and
// database/sql. It is the default, and all a bot on one host needs.
//
// Usage:
//
//	if err := sqlite.CheckPath("data/connectn.db"); err != nil { ... } // optional: says what to fix
//	st, err := sqlite.Open(ctx, "data/connectn.db")
//	if err != nil { ... }
//	defer st.Close()
//
// The store meets the sessions.Store contract (see the sessions package
// and the shared suite in sessions/sessionstest). Several processes may
// open the same file: the revision check of Update and the partial unique
// index hold across them, and BusyTimeout bounds how long one waits for
// another's write.
//
// The errors of SQLite and of the file system are explained for the person
// running the bot, in this package, so that its callers need not know
// SQLite's result codes: CheckPath says what stops a path from holding the
// database before anything is created, Open returns its failures already
// explained, and Store.Explain explains the failures of a store in use.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// migrations returns the schema migrations, in order: version i+1 is
// migrations()[i].
func migrations() []sqlstore.Migration {
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
// one with Open and release it with Close, which keeps the file with
// everything stored (or Discard, which removes what Open created).
type Store struct {
	// Store is the shared engine as the contract alone (the methods of
	// sessions.Store, promoted): an interface, so that none of sqlstore's
	// other exported methods leaks into the backend's.
	sessions.Store
	// TournamentStore is the engine's tournaments, promoted the same way
	// (sessions.TournamentStore).
	sessions.TournamentStore
	// PuzzleStore is the engine as the puzzles' contract alone, promoted
	// the same way.
	sessions.PuzzleStore
	// CardStore is the engine's shared result cards, promoted the same
	// way.
	sessions.CardStore
	core     *sqlstore.Store // the shared engine itself: Export and Import
	path     string
	versions sqlstore.Versions
	// created is what Open created, for Discard: the database file and its
	// companions when the file did not exist, and its missing folders.
	created created
}

// created is what Open created on disk.
type created struct {
	files []string // the database file, -wal, -shm and -journal; nil when the file existed
	dirs  []string // the folders created for it, deepest first
}

// remove removes the files and then the folders, if they are empty, and
// returns the first error of removing a file that was there.
func (c created) remove() error {
	var first error
	for _, f := range c.files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = err
		}
	}
	for _, d := range c.dirs {
		_ = os.Remove(d) // a folder that holds other files stays
	}
	return first
}

var (
	_ sessions.Store           = (*Store)(nil)
	_ sessions.TournamentStore = (*Store)(nil)
	_ sessions.PuzzleStore     = (*Store)(nil)
	_ sessions.CardStore       = (*Store)(nil)
)

// Open opens (creating it if needed) the SQLite database at path, creating
// the parent folder too if it is missing, and migrates its schema: the
// schema_migrations table records the versions applied, and a database
// from before that table (versions 1 and 2, kept in PRAGMA user_version)
// is adopted at its version and upgraded in place. Each connection gets
// busy_timeout, WAL journaling, synchronous=NORMAL, foreign keys and BEGIN
// IMMEDIATE transactions through the DSN. path is a file system path
// without '?', or MemoryPath.
//
// Every error names the path and wraps the cause: a folder or file that
// cannot be created or opened, a file that is not a database, a schema
// written by a newer program. When SQLite's result code says what it means
// (not a database, locked, read-only, full, damaged; see Explain), the
// error says so first and what to do, as "MEANING: ADVICE (open session
// store "PATH": CAUSE)". When Open fails, it removes the file and the
// folders it created, so a failed start leaves nothing behind.
func Open(ctx context.Context, path string, opts ...sessions.Option) (*Store, error) {
	st, err := open(ctx, path, opts...)
	if err != nil {
		return nil, explain(path, fmt.Errorf("open session store %q: %w", path, err))
	}
	return st, nil
}

func open(ctx context.Context, path string, opts ...sessions.Option) (st *Store, err error) {
	if err := checkDSNPath(path); err != nil {
		return nil, err
	}
	var made created
	if path != MemoryPath {
		_, statErr := os.Lstat(path)
		made.dirs, err = mkdirs(filepath.Dir(path))
		if err != nil {
			return nil, fmt.Errorf("create folder: %w", err)
		}
		if errors.Is(statErr, fs.ErrNotExist) {
			made.files = []string{path, path + "-wal", path + "-shm", path + "-journal"}
		}
	}
	defer func() {
		if err != nil {
			_ = made.remove()
		}
	}()
	db, err := OpenDB(ctx, path)
	if err != nil {
		return nil, err
	}
	o := sessions.ApplyOptions(opts...)
	v, err := sqlstore.Migrate(ctx, db, dialect, migrations(), sqlstore.MigrateHooks{
		Clock: o.Clock,
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
	core, err := sqlstore.New(ctx, db, dialect, fmt.Sprintf("%q", path), o)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &Store{Store: core, TournamentStore: core, PuzzleStore: core, CardStore: core, core: core, path: path, versions: v, created: made}, nil
}

// checkDSNPath refuses what cannot be a path in the DSN.
func checkDSNPath(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	if strings.ContainsRune(path, '?') {
		return errors.New("path contains '?'")
	}
	return nil
}

// mkdirs creates dir and its missing parents, as os.MkdirAll does, and
// returns the folders it created, deepest first. When it fails it removes
// them again.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		_ = created{dirs: missing}.remove()
		return nil, err
	}
	return missing, nil
}

// OpenDB opens the database at path with the store's connection settings
// (those Open gives, see there), creating the file if it does not exist but
// not its folder, and checks that it answers, without touching its schema.
// For tests and tools that need SQL on the store's file (an integrity
// check, a lock held as another process would); Open is the way to a
// Store. Its errors are the driver's, unexplained: path empty or holding
// '?', or the database not answering.
func OpenDB(ctx context.Context, path string) (*sql.DB, error) {
	if err := checkDSNPath(path); err != nil {
		return nil, err
	}
	memory := path == MemoryPath
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

// Discard closes the store and removes what Open created: the database
// file (with its -wal and -shm files) when Open created it, and the
// folders Open created for it, if they are empty. A database that existed
// before Open is closed and kept, whatever it holds. For a command that
// created a database for work that failed (a refused import, say). It
// returns Close's error, or the first error of removing a file.
func (s *Store) Discard() error {
	err := s.core.Close()
	if rerr := s.created.remove(); err == nil {
		err = rerr
	}
	return err
}

// Path returns the path the store was opened with.
func (s *Store) Path() string { return s.path }

// Export writes every match, stat, server's settings and member's rating
// to w as JSON lines, or with opts.GuildID those of one server only (its
// sessions, member records, pair records, settings and ratings), from one
// consistent snapshot: a header (format version, schema version, backend,
// the server when one), one line per stored row, and a trailer with the
// counts, which it returns. An export of one server imports like a whole
// one. An error of the database names the store; one of w is w's.
func (s *Store) Export(ctx context.Context, w io.Writer, opts sessions.ExportOptions) (sessions.ExportCounts, error) {
	return s.core.Export(ctx, w, s.versions.To, opts)
}

// Import reads what Export wrote (by either backend) from r into the
// store, which must hold no match, member record, pair record, member
// rating or server settings yet, in one transaction: every row, keeping
// its session ID, or none. It returns the counts imported. An error about
// the input names its line ("line 3: ..."); a file cut short, a match
// whose moves do not replay or a store that is not empty is refused and
// nothing is imported.
func (s *Store) Import(ctx context.Context, r io.Reader) (sessions.ExportCounts, error) {
	return s.core.Import(ctx, r)
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
