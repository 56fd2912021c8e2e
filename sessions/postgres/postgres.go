// Package postgres is the PostgreSQL backend of the session store, for
// bots that outgrow one process: several `connectn serve` replicas behind a
// load balancer, or gateway shards, sharing one database. It speaks to
// PostgreSQL through github.com/jackc/pgx/v5 and its database/sql driver,
// which keeps one code path with the SQLite backend (sessions/internal/
// sqlstore).
//
// Usage:
//
//	st, err := postgres.Open(ctx, "postgres://connectn:secret@db:5432/connectn")
//	if err != nil { ... }
//	defer st.Close()
//
// The store meets the sessions.Store contract (see the sessions package
// and the shared suite in sessions/sessionstest). Across processes, Update
// writes with a compare-and-swap on the row's revision, under PostgreSQL's
// row locks, and calls its function again on the fresh state when another
// process won; Create relies on a partial unique index; the stats of a
// result are written in the transaction that finishes the match; the
// schema is migrated at Open under an advisory lock, so replicas that
// start together migrate once.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the schema migrations, in order: version i+1 is
// Migrations()[i]. They mirror the SQLite backend's, version for version.
func Migrations() []sqlstore.Migration {
	list, err := sqlstore.LoadMigrations(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the embedded files are part of the program
	}
	return list
}

// migrationLock is the key of the advisory lock held while migrating:
// "connectn" in ASCII.
const migrationLock = 0x636f6e6e6563746e

// MaxOpenConns bounds the connection pool of one process.
const MaxOpenConns = 16

var dialect = sqlstore.Dialect{
	Name:              "postgres",
	Numbered:          true,
	IsUniqueViolation: isUniqueViolation,
	SnapshotTx:        &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true},
	AfterImport: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('matches', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM matches`)
		return err
	},
}

// Store is the PostgreSQL session store. It implements sessions.Store;
// create one with Open and release it with Close.
type Store struct {
	*sqlstore.Store
	versions sqlstore.Versions
}

// IsURL reports whether s names a PostgreSQL database: a postgres:// or
// postgresql:// URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// CheckURL returns what is wrong with the database URL s, or nil: it must
// be a postgres:// or postgresql:// URL with a host, that pgx can parse
// (its query may set sslmode, search_path and the other libpq
// parameters). The error never holds the password.
func CheckURL(s string) error {
	if !IsURL(s) {
		return errors.New("want a postgres:// or postgresql:// URL")
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a valid URL: want postgres://USER:PASSWORD@HOST:5432/DATABASE")
	}
	if u.Host == "" {
		return errors.New("has no host: want postgres://USER:PASSWORD@HOST:5432/DATABASE")
	}
	if _, err := pgx.ParseConfig(s); err != nil {
		msg := err.Error()
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
		return fmt.Errorf("cannot be read: %s", msg)
	}
	return nil
}

// Redact returns the URL s with its password (in the user part or in a
// password= parameter) replaced by xxxxx, for logs and `connectn config`.
// A string that is not a URL comes back as "(unreadable URL)".
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unreadable URL)"
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// Open connects to the PostgreSQL database at dsn (a postgres:// URL, see
// CheckURL), checks that it answers, and migrates its schema: the
// schema_migrations table (in the current schema, which the URL's
// search_path parameter may set) records the versions applied, and
// pending ones are applied in one transaction under an advisory lock.
// Every error names the database by its redacted URL and wraps the cause:
// a malformed URL, a server that does not answer or refuses the login, a
// schema written by a newer program.
func Open(ctx context.Context, dsn string, opts ...sessions.Option) (*Store, error) {
	st, err := open(ctx, dsn, opts...)
	if err != nil {
		return nil, fmt.Errorf("open session store %s: %w", Redact(dsn), err)
	}
	return st, nil
}

func open(ctx context.Context, dsn string, opts ...sessions.Option) (*Store, error) {
	db, err := OpenDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	v, err := sqlstore.Migrate(ctx, db, dialect, Migrations(), sqlstore.MigrateHooks{
		Lock: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock))
			return err
		},
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	core, err := sqlstore.New(ctx, db, dialect, Redact(dsn), sessions.ApplyOptions(opts...))
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &Store{Store: core, versions: v}, nil
}

// OpenDB connects to the database at dsn with the store's pool settings
// and checks that it answers, without touching its schema. For tests and
// tools; Open is the way to a Store.
func OpenDB(ctx context.Context, dsn string) (*sql.DB, error) {
	if err := CheckURL(dsn); err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err // CheckURL parsed it already
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(MaxOpenConns)
	db.SetMaxIdleConns(MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// Export writes every match and stat to w as JSON lines (see
// sessions/internal/sqlstore), from one consistent snapshot.
func (s *Store) Export(ctx context.Context, w io.Writer) (sqlstore.Counts, error) {
	return s.Store.Export(ctx, w, s.versions.To)
}

// SchemaVersions returns the schema version Open found and the one it
// left (equal when nothing was pending).
func (s *Store) SchemaVersions() (from, to int) { return s.versions.From, s.versions.To }

// isUniqueViolation reports whether err is PostgreSQL's unique_violation
// (SQLSTATE 23505); in the matches table the only unique index besides the
// primary key is the one that allows one active session per channel.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
