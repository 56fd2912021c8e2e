package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/postgres"
	"github.com/connectn/connectn/sessions/sqlite"
)

// dbStore is a session store as cmd uses it: the contract, plus the
// schema versions its Open found and left, export and import.
type dbStore interface {
	sessions.Store
	SchemaVersions() (from, to int)
	Export(ctx context.Context, w io.Writer) (sessions.ExportCounts, error)
	Import(ctx context.Context, r io.Reader) (sessions.ExportCounts, error)
}

// dbName names the configured database for people and logs: the SQLite
// file's path, or the PostgreSQL URL without its password.
func (c config) dbName() string {
	if c.pgURL != "" {
		return postgres.Redact(c.pgURL)
	}
	return c.db
}

// openDBStore opens the configured database (PostgreSQL when CONNECTN_DB
// is a postgres:// URL, else the SQLite file), migrating its schema, with
// its errors explained.
func openDBStore(ctx context.Context, c config, opts ...sessions.Option) (dbStore, error) {
	if c.pgURL != "" {
		st, err := postgres.Open(ctx, c.pgURL, opts...)
		if err != nil {
			return nil, explainPGError(c.dbName(), err)
		}
		return st, nil
	}
	st, err := sqlite.Open(ctx, c.db, opts...)
	if err != nil {
		return nil, explainDBError(c.db, err)
	}
	return st, nil
}

// explainPGError returns err wrapped with what it means and what to do when
// it is one of PostgreSQL's usual refusals at connection time (a server
// that does not answer, a login refused, a database that does not exist);
// any other err is returned as is. name is the redacted URL.
func explainPGError(name string, err error) error {
	var (
		pe  *pgconn.PgError
		msg string
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		msg = fmt.Sprintf("PostgreSQL at %s refused the login: check the user and password in CONNECTN_DB", name)
	case errors.As(err, &pe) && pe.Code == "3D000":
		msg = fmt.Sprintf("PostgreSQL at %s has no such database: create it (createdb), or fix the database name in CONNECTN_DB", name)
	case errors.As(err, &pe) && pe.Code == "42501":
		msg = fmt.Sprintf("PostgreSQL at %s refused a change to the schema: the user in CONNECTN_DB needs the right to create tables in its schema", name)
	case pgconn.SafeToRetry(err) || isConnectError(err):
		msg = fmt.Sprintf("cannot reach PostgreSQL at %s: check that the server runs and that the host and port in CONNECTN_DB are right", name)
	default:
		return err
	}
	return &dbError{msg: msg, err: err}
}

// isConnectError reports whether err is pgconn failing to connect.
func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}

// migrateCmd runs `connectn migrate`: it opens the database, which applies
// any pending migration, and says which version it found and left.
func migrateCmd(ctx context.Context, a *app) error {
	st, err := openDBStore(ctx, a.c)
	if err != nil {
		return err
	}
	defer st.Close()
	from, to := st.SchemaVersions()
	if from == to {
		fmt.Fprintf(a.d.stdout, "%s: schema version %d, up to date\n", a.c.dbName(), to)
		return nil
	}
	fmt.Fprintf(a.d.stdout, "%s: schema version %d, migrated to %d (%d migrations applied)\n", a.c.dbName(), from, to, to-from)
	return nil
}

// exportCmd runs `connectn export`: every match and stat as JSON lines on
// standard output, or in the file -o names.
func exportCmd(ctx context.Context, a *app) error {
	if a.c.pgURL == "" && a.c.db != sqlite.MemoryPath {
		if _, err := os.Stat(a.c.db); err != nil {
			return fmt.Errorf("export: no database at %s (CONNECTN_DB): %w", a.c.db, unwrapPath(err))
		}
	}
	st, err := openDBStore(ctx, a.c)
	if err != nil {
		return err
	}
	defer st.Close()
	w, closeOut := a.d.stdout, func() error { return nil }
	if a.c.file != "" && a.c.file != "-" {
		f, err := os.OpenFile(a.c.file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("export: %w (it must not exist yet)", err)
		}
		w, closeOut = f, f.Close
	}
	n, err := st.Export(ctx, w)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.d.stderr, "exported %d matches, %d member records and %d pair records from %s\n",
		n.Matches, n.MemberStats, n.PairRecords, a.c.dbName())
	return nil
}

// importCmd runs `connectn import`: the JSON lines of an export, from
// standard input or the file -i names, into the (empty) database.
func importCmd(ctx context.Context, a *app) error {
	st, err := openDBStore(ctx, a.c)
	if err != nil {
		return err
	}
	defer st.Close()
	r := a.d.stdin
	if a.c.file != "" && a.c.file != "-" {
		f, err := os.Open(a.c.file)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
	}
	n, err := st.Import(ctx, r)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.d.stdout, "imported %d matches, %d member records and %d pair records into %s\n",
		n.Matches, n.MemberStats, n.PairRecords, a.c.dbName())
	return nil
}
