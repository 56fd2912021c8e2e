package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/connectn/connectn/internal/clock"
)

// Migration is one versioned schema change: an embedded SQL file named
// NNN_what.sql, whose statements are separated by lines that end with ';'.
type Migration struct {
	Version int
	Name    string // the file name
	SQL     string
}

var migrationName = regexp.MustCompile(`^([0-9]+)_[a-z0-9_]+\.sql$`)

// LoadMigrations reads the *.sql files of dir in fsys, numbered 1, 2, ...
// without gaps. It returns an error for a misnamed file, a gap or a
// duplicate (a programming error caught by every test that opens a
// store).
func LoadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var list []Migration
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %q: want NNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		list = append(list, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Version < list[j].Version })
	for i, m := range list {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: want version %d", m.Name, i+1)
		}
	}
	return list, nil
}

// Statements splits a migration into its statements: the text up to each
// line that ends with ';', with "--" comment lines left out.
func (m Migration) Statements() []string {
	var (
		out []string
		cur strings.Builder
	)
	for _, line := range strings.Split(m.SQL, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") || trimmed == "" {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// MigrateHooks are a backend's steps around the migration transaction.
type MigrateHooks struct {
	// Lock, when set, runs first in the transaction and holds other
	// processes off until it ends (PostgreSQL: an advisory lock). SQLite
	// needs none: its transaction is BEGIN IMMEDIATE.
	Lock func(ctx context.Context, tx *sql.Tx) error
	// Legacy, when set, returns the schema version of a database written
	// before schema_migrations existed (SQLite: PRAGMA user_version), for
	// a database without that table; those versions are recorded as
	// applied.
	Legacy func(ctx context.Context, tx *sql.Tx) (int, error)
	// Clock is when the migrations are recorded as applied; nil is the
	// system clock.
	Clock clock.Clock
	// Applied, when set, runs after the migrations with the version
	// reached (SQLite: sets PRAGMA user_version, so an older program
	// refuses the database rather than misread it).
	Applied func(ctx context.Context, tx *sql.Tx, version int) error
}

// Versions are a database's schema version before and after Migrate.
type Versions struct {
	From, To int
}

// Migrate brings the schema of db up to the last of list, in one
// transaction: it creates the schema_migrations table (version, name,
// applied_at) if missing, adopts a legacy version (hooks.Legacy), applies
// every migration above the recorded version in order and records each.
// It refuses a database whose version is newer than list, written by a
// newer program. On error nothing is changed.
func Migrate(ctx context.Context, db *sql.DB, d Dialect, list []Migration, hooks MigrateHooks) (v Versions, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return v, fmt.Errorf("begin migration: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if hooks.Lock != nil {
		if err := hooks.Lock(ctx, tx); err != nil {
			return v, fmt.Errorf("lock for migration: %w", err)
		}
	}
	var exists int
	if err := tx.QueryRowContext(ctx, d.Rebind(tableExistsSQL(d)), "schema_migrations").Scan(&exists); err != nil {
		return v, fmt.Errorf("look for schema_migrations: %w", err)
	}
	now := clock.OrReal(hooks.Clock).Now().UTC().Format(TimeFormat)
	if exists == 0 {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL)`); err != nil {
			return v, fmt.Errorf("create schema_migrations: %w", err)
		}
		if hooks.Legacy != nil {
			legacy, err := hooks.Legacy(ctx, tx)
			if err != nil {
				return v, fmt.Errorf("read the legacy schema version: %w", err)
			}
			if legacy > len(list) {
				return v, fmt.Errorf("schema version %d is newer than this program's %d", legacy, len(list))
			}
			for _, m := range list[:legacy] {
				if _, err := tx.ExecContext(ctx, d.Rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
					m.Version, m.Name+" (adopted from PRAGMA user_version)", now); err != nil {
					return v, fmt.Errorf("record legacy version %d: %w", m.Version, err)
				}
			}
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v.From); err != nil {
		return v, fmt.Errorf("read schema version: %w", err)
	}
	if v.From > len(list) {
		return v, fmt.Errorf("schema version %d is newer than this program's %d", v.From, len(list))
	}
	for _, m := range list[v.From:] {
		for _, stmt := range m.Statements() {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return v, fmt.Errorf("migrate schema to version %d (%s): %w", m.Version, m.Name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, d.Rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			m.Version, m.Name, now); err != nil {
			return v, fmt.Errorf("record schema version %d: %w", m.Version, err)
		}
	}
	v.To = len(list)
	if hooks.Applied != nil {
		if err := hooks.Applied(ctx, tx, v.To); err != nil {
			return v, err
		}
	}
	if err := tx.Commit(); err != nil {
		return v, fmt.Errorf("commit migration: %w", err)
	}
	return v, nil
}

// tableExistsSQL counts the tables named ? in the database (SQLite) or in
// the current schema (PostgreSQL).
func tableExistsSQL(d Dialect) string {
	if d.Numbered {
		return `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?`
	}
	return `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
}
