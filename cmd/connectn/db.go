package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/postgres"
	"github.com/connectn/connectn/sessions/sqlite"
)

// dbStore is a session store as cmd uses it: the contract, plus the
// schema versions its Open found and left, export and import, and the
// backend's explanation of its errors.
type dbStore interface {
	sessions.Store
	sessions.PuzzleStore
	SchemaVersions() (from, to int)
	Export(ctx context.Context, w io.Writer, opts sessions.ExportOptions) (sessions.ExportCounts, error)
	Import(ctx context.Context, r io.Reader) (sessions.ExportCounts, error)
	Explain(err error) error
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
// is a postgres:// URL, else the SQLite file), migrating its schema. The
// backends explain their errors (a login refused, a file that is not a
// database, ...).
func openDBStore(ctx context.Context, c config, opts ...sessions.Option) (dbStore, error) {
	if c.pgURL != "" {
		return postgres.Open(ctx, c.pgURL, opts...)
	}
	return sqlite.Open(ctx, c.db, opts...)
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

// exportCmd runs `connectn export`: every match, stat and server's
// settings (or with -guild those of one server) as JSON lines on standard
// output, or in FILE, which must not exist yet and is removed again when
// the export fails.
func exportCmd(ctx context.Context, a *app) (err error) {
	if a.c.pgURL == "" && a.c.db != sqlite.MemoryPath {
		if _, err := os.Stat(a.c.db); err != nil {
			return fmt.Errorf("no database at %s (CONNECTN_DB): %w", a.c.db, unwrapPath(err))
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
			return fmt.Errorf("%w (it must not exist yet)", err)
		}
		w, closeOut = f, f.Close
		defer func() {
			if err != nil {
				_ = os.Remove(f.Name())
			}
		}()
	}
	n, err := st.Export(ctx, w, sessions.ExportOptions{GuildID: a.c.onlyGuild})
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return st.Explain(err)
	}
	from := a.c.dbName()
	if a.c.onlyGuild != "" {
		from = "server " + a.c.onlyGuild + " of " + from
	}
	fmt.Fprintf(a.d.stderr, "exported %s from %s\n", countsText(n), from)
	return nil
}

// discarder is a store that can remove what its Open created
// (sqlite.Store.Discard).
type discarder interface{ Discard() error }

// importCmd runs `connectn import`: the JSON lines of an export, from
// standard input or FILE, into the (empty) database. When the import
// fails, a SQLite file that it created is removed again; a database that
// existed is left as it was.
func importCmd(ctx context.Context, a *app) error {
	r := a.d.stdin
	if a.c.file != "" && a.c.file != "-" {
		f, err := os.Open(a.c.file)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	st, err := openDBStore(ctx, a.c)
	if err != nil {
		return err
	}
	n, err := st.Import(ctx, r)
	if err != nil {
		err = st.Explain(err)
		if d, ok := st.(discarder); ok {
			if derr := d.Discard(); derr != nil {
				return fmt.Errorf("%w; removing the new database: %w", err, derr)
			}
			return err
		}
		_ = st.Close()
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintf(a.d.stdout, "imported %s into %s\n", countsText(n), a.c.dbName())
	return nil
}

// countsText says what an export or import moved, table by table.
func countsText(n sessions.ExportCounts) string {
	text := fmt.Sprintf("%d matches, %d member records, %d pair records, %d member ratings, %d server settings and %d tournaments",
		n.Matches, n.MemberStats, n.PairRecords, n.MemberRatings, n.GuildSettings, n.Tournaments)
	if puzzles := n.FoundPuzzles + n.PuzzleScans + n.PuzzleRatings + n.PuzzlePlayers + n.PuzzleAttempts + n.DailyPuzzles +
		n.PuzzleDays + n.DailyPosts; puzzles > 0 {
		text += fmt.Sprintf(", with the puzzles' %d attempts, %d puzzle records, %d puzzle ratings, %d found puzzles and %d other rows",
			n.PuzzleAttempts, n.PuzzlePlayers, n.PuzzleRatings, n.FoundPuzzles, n.PuzzleScans+n.DailyPuzzles+n.PuzzleDays+n.DailyPosts)
	}
	if n.SharedCards > 0 {
		text += fmt.Sprintf(", and %d shared result cards", n.SharedCards)
	}
	return text
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
