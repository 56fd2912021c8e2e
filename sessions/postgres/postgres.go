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
//
// A round trip to PostgreSQL costs the bot and the database more CPU than
// the statements of a move themselves, so the store makes few: the moves
// a process writes together go in one pipeline (one round trip, one
// implicit transaction, those of one kind as one UPDATE), and the reads of
// channels' newest sessions that arrive together are one statement
// (docs/load.md, "PostgreSQL's cost").
//
// PostgreSQL's refusals are explained for the person running the bot in
// this package, so that its callers need not know SQLSTATEs: Open returns
// its failures already explained, and Store.Explain explains the failures
// of a store in use.
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

// migrations returns the schema migrations, in order: version i+1 is
// migrations()[i]. They mirror the SQLite backend's, version for version.
func migrations() []sqlstore.Migration {
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
	Pipeline:          pipeline,
	NewestMany:        newestManySQL,
	UpdateMany:        updateManySQL,
	PipedTx:           pipedTx,
	AfterImport: func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('matches', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM matches`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('tournaments', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM tournaments`)
		if err == nil {
			_, err = tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('puzzle_attempts', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM puzzle_attempts`)
		}
		return err
	},
}

// newestManySQL reads the newest session of each channel of $1, through
// matches_by_channel (channel_id, id), as the newest of one channel is read
// (sqlstore.Dialect.NewestMany).
const newestManySQL = `SELECT ` + sqlstore.SessionColumns + ` FROM unnest($1::text[]) AS wanted(ch)
	CROSS JOIN LATERAL (SELECT * FROM matches WHERE channel_id = wanted.ch ORDER BY id DESC LIMIT 1) newest`

// updateManySQL writes many sessions back at once with the
// compare-and-swap of one (sqlstore.Dialect.UpdateMany): the columns of
// set from arrays, a row each, joined to the rows by id and revision, a
// row changed only while it is its channel's newest.
func updateManySQL(set, arrays []string) string {
	var b strings.Builder
	b.WriteString("UPDATE matches m SET ")
	for i, c := range set {
		fmt.Fprintf(&b, "%s = v.c%d, ", c, i)
	}
	b.WriteString("revision = m.revision + 1\n\tFROM unnest(")
	for i, a := range arrays {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d::%s", i+1, a)
	}
	b.WriteString(") AS v(")
	for i := range set {
		fmt.Fprintf(&b, "c%d, ", i)
	}
	b.WriteString("id, revision, channel_id)\n\tWHERE m.id = v.id AND m.revision = v.revision\n")
	b.WriteString("\tAND NOT EXISTS (SELECT 1 FROM matches newer WHERE newer.channel_id = v.channel_id AND newer.id > v.id)\n\tRETURNING m.id")
	return b.String()
}

// pipeline runs batch through one connection of db as one pgx batch:
// sent in one write, its statements run in one implicit transaction
// (no BEGIN; the Sync at its end commits), their results read in one go.
// It returns the first error; PostgreSQL then rolled back the whole
// batch.
func pipeline(ctx context.Context, db *sql.DB, batch []sqlstore.Piped) error {
	return onPgxConn(ctx, db, "pipeline", func(c *pgx.Conn) error {
		var b pgx.Batch
		for _, p := range batch {
			b.Queue(p.Query, p.Args...)
		}
		br := c.SendBatch(ctx, &b)
		for i := range batch {
			p := &batch[i]
			switch {
			case p.Scan != nil:
				if err := br.QueryRow().Scan(p.Scan...); err != nil {
					_ = br.Close()
					return err
				}
				continue
			case p.IDs != nil:
				rows, _ := br.Query()
				ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil {
					_ = br.Close()
					return err
				}
				*p.IDs = ids
				continue
			}
			tag, err := br.Exec()
			if err != nil {
				_ = br.Close()
				return err
			}
			p.Affected = tag.RowsAffected()
		}
		return br.Close()
	})
}

// pipedTx runs fn in a transaction on one connection of db whose
// statements go as pgx batches (sqlstore.Dialect.PipedTx): the BEGIN is
// queued before fn's first statement, and the COMMIT after its last, so
// that a transaction whose one result is read in the middle is two round
// trips. When fn or a statement fails, it rolls back what was sent (one
// more round trip) and returns the error; a connection that cannot roll
// back is closed, so that the pool drops it.
func pipedTx(ctx context.Context, db *sql.DB, fn func(sqlstore.Pipe) error) error {
	return onPgxConn(ctx, db, "piped transaction", func(c *pgx.Conn) error {
		p := &pipe{conn: c}
		p.Exec("begin", nil, nil)
		err := fn(p)
		if err == nil {
			p.Exec("commit", nil, nil)
			if err = p.Send(ctx); err == nil {
				return nil
			}
		}
		p.close()
		if p.conn.PgConn().TxStatus() != 'I' && !p.conn.IsClosed() {
			if _, rerr := p.conn.Exec(ctx, "rollback"); rerr != nil {
				_ = p.conn.Close(ctx)
			}
		}
		return err
	})
}

// onPgxConn runs fn on the pgx connection under one connection of db's
// pool, held for fn's duration; what names the caller in the error of a
// connection that is not pgx's.
func onPgxConn(ctx context.Context, db *sql.DB, what string, fn func(*pgx.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("%s: connection of type %T, want pgx's", what, dc)
		}
		return fn(c.Conn())
	})
}

// pipe is sqlstore.Pipe on a pgx connection: the statements queued, and
// the batch whose rows Query handed out, until they are closed.
type pipe struct {
	conn     *pgx.Conn
	b        *pgx.Batch
	affected []*int64 // of each statement queued
	open     pgx.BatchResults
	rows     pgx.Rows
}

// Exec implements sqlstore.Pipe.
func (p *pipe) Exec(query string, args []any, affected *int64) {
	p.queue(query, args)
	p.affected = append(p.affected, affected)
}

// queue adds query to the batch to send.
func (p *pipe) queue(query string, args []any) {
	if p.b == nil {
		p.b = new(pgx.Batch)
	}
	p.b.Queue(query, args...)
}

// send closes the rows of the last Query, sends the statements queued,
// reads the outcome of each that Exec queued, and returns the batch, whose
// next result is that of a statement queued after them (Query's).
func (p *pipe) send(ctx context.Context) (pgx.BatchResults, error) {
	_ = p.close()
	br := p.conn.SendBatch(ctx, p.b) // br reads p.b while it is open
	affected := p.affected
	p.b, p.affected = nil, nil
	for _, a := range affected {
		tag, err := br.Exec()
		if err != nil {
			_ = br.Close()
			return nil, err
		}
		if a != nil {
			*a = tag.RowsAffected()
		}
	}
	return br, nil
}

// Send implements sqlstore.Pipe.
func (p *pipe) Send(ctx context.Context) error {
	if len(p.affected) == 0 {
		return nil
	}
	br, err := p.send(ctx)
	if err != nil {
		return err
	}
	return br.Close()
}

// Query implements sqlstore.Pipe.
func (p *pipe) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	p.queue(query, args)
	br, err := p.send(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	p.open, p.rows = br, rows
	return &pipeRows{Rows: rows, p: p}, nil
}

// close closes the rows of the last Query and their batch, if open.
func (p *pipe) close() error {
	if p.open == nil {
		return nil
	}
	p.rows.Close()
	err := p.rows.Err()
	if cerr := p.open.Close(); err == nil {
		err = cerr
	}
	p.open, p.rows = nil, nil
	return err
}

// pipeRows are the rows of a pipe's Query as sqlstore.Rows.
type pipeRows struct {
	pgx.Rows
	p *pipe
}

// Close closes the rows and the batch they came in.
func (r *pipeRows) Close() error { return r.p.close() }

// Store is the PostgreSQL session store. It implements sessions.Store;
// create one with Open and release it with Close.
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
	name     string          // the URL without its password
	versions sqlstore.Versions
}

var (
	_ sessions.Store           = (*Store)(nil)
	_ sessions.TournamentStore = (*Store)(nil)
	_ sessions.PuzzleStore     = (*Store)(nil)
	_ sessions.CardStore       = (*Store)(nil)
)

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
// schema written by a newer program. The usual refusals (see Explain) say
// first what they mean and what to do, as "MEANING: ADVICE (open session
// store URL: CAUSE)".
func Open(ctx context.Context, dsn string, opts ...sessions.Option) (*Store, error) {
	st, err := open(ctx, dsn, opts...)
	if err != nil {
		return nil, explain(Redact(dsn), fmt.Errorf("open session store %s: %w", Redact(dsn), err))
	}
	return st, nil
}

func open(ctx context.Context, dsn string, opts ...sessions.Option) (*Store, error) {
	db, err := OpenDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	o := sessions.ApplyOptions(opts...)
	v, err := sqlstore.Migrate(ctx, db, dialect, migrations(), sqlstore.MigrateHooks{
		Clock: o.Clock,
		Lock: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock))
			return err
		},
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	core, err := sqlstore.New(ctx, db, dialect, Redact(dsn), o)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &Store{Store: core, TournamentStore: core, PuzzleStore: core, CardStore: core, core: core, name: Redact(dsn), versions: v}, nil
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
	var opts []stdlib.OptionOpenDB
	_, generic := cfg.RuntimeParams[planCacheMode]
	_, random := cfg.RuntimeParams[randomPageCost]
	if !generic || !random {
		opts = append(opts, stdlib.OptionAfterConnect(func(ctx context.Context, conn *pgx.Conn) error {
			if !random {
				if err := cheapRandomReads(ctx, conn); err != nil {
					return err
				}
			}
			if !generic {
				return genericPlans(ctx, conn)
			}
			return nil
		}))
	}
	db := stdlib.OpenDB(*cfg, opts...)
	db.SetMaxOpenConns(MaxOpenConns)
	db.SetMaxIdleConns(MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// planCacheMode is PostgreSQL's setting of how prepared statements are
// planned (PostgreSQL 12 and later).
const planCacheMode = "plan_cache_mode"

// randomPageCost is PostgreSQL's setting of the cost of reading a page
// out of order, relative to a page read in order (seq_page_cost, 1).
const randomPageCost = "random_page_cost"

// cheapRandomReads prices a page read out of order at 1.1 times one read
// in order on conn (random_page_cost = 1.1; PostgreSQL's default is 4),
// unless the URL set random_page_cost itself.
//
// PostgreSQL's manual suggests about that value for storage whose random
// reads cost little more than sequential ones (solid-state drives), or a
// database that its cache holds (the store's working set: the rows of the
// matches being played). It matters most while a table is new: the
// planner takes a table never analyzed for ten pages, and with the
// default cost the plan the store's connections make once for any
// arguments (genericPlans) of the batched UPDATE of moves joins the array
// of moves to matches by hashing a sequential scan of it, which is then
// kept until autovacuum analyzes the table, a minute or more later (in a
// run of 8 seconds on a new database, 759 sequential scans of matches);
// at 1.1 it looks up each row in matches_pkey from the start
// (TestNewTablePlans).
func cheapRandomReads(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SET "+randomPageCost+" = 1.1")
	return err
}

// genericPlans makes conn plan each prepared statement once, for any
// arguments (plan_cache_mode = force_generic_plan), unless the URL set
// plan_cache_mode itself; a PostgreSQL without the setting (before 12) is
// left as it is.
//
// By default PostgreSQL plans a prepared statement anew for each execution
// (a custom plan) while it estimates that a plan made for the arguments
// given costs less than one made for any: always, for the statements that
// take arrays (the batched reads of channels' newest sessions and the
// batched UPDATE of moves, whose row counts it reads from the arrays), so
// that every batch of every click was planned again, a tenth of
// PostgreSQL's CPU under load (perf, two replicas at random). Every
// statement of the store finds its rows through an index whatever its
// arguments (TestQueryPlans), which a plan for any arguments keeps;
// TestConnectionSettings checks the setting. A plan made while the table is
// still empty and unanalyzed may scan it whole, as before: PostgreSQL
// plans the statements again once autovacuum has analyzed the table.
func genericPlans(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SET "+planCacheMode+" = force_generic_plan")
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "42704" {
		return nil // undefined_object: a PostgreSQL before 12
	}
	return err
}

// Export writes every match, stat, server's settings and member's rating
// to w as JSON lines, or with opts.GuildID those of one server only (its
// sessions, member records, pair records, settings and ratings), from one
// consistent snapshot (a repeatable-read, read-only transaction): a header
// (format version, schema version, backend, the server when one), one line
// per stored row, and a trailer with the counts, which it returns. An
// export of one server imports like a whole one. An error of the database
// names the store; one of w is w's.
func (s *Store) Export(ctx context.Context, w io.Writer, opts sessions.ExportOptions) (sessions.ExportCounts, error) {
	return s.core.Export(ctx, w, s.versions.To, opts)
}

// Import reads what Export wrote (by either backend) from r into the
// store, which must hold no match, member record, pair record, member
// rating or server settings yet, in one transaction: every row, keeping
// its session ID, or none; new sessions then get IDs after the imported
// ones. It returns the counts imported. An error about the input names its
// line ("line 3: ..."); a file cut short, a match whose moves do not
// replay or a store that is not empty is refused and nothing is imported.
func (s *Store) Import(ctx context.Context, r io.Reader) (sessions.ExportCounts, error) {
	return s.core.Import(ctx, r)
}

// SchemaVersions returns the schema version Open found and the one it
// left (equal when nothing was pending).
func (s *Store) SchemaVersions() (from, to int) { return s.versions.From, s.versions.To }

// Explain returns err explained for the person running the bot when it is
// one of PostgreSQL's usual refusals: a server that cannot be reached, a
// login refused (SQLSTATE 28P01, 28000), a database that does not exist
// (3D000), a change to the schema refused (42501). Any other err, and nil,
// is returned as is. The explanation reads "MEANING: ADVICE (ERR)", names
// the database by its URL without the password, and unwraps to err, so
// errors.Is and errors.As still see the cause. Open's errors come
// explained already; Explain is for the errors of a store in use.
func (s *Store) Explain(err error) error { return explain(s.name, err) }

// explain is Explain for the database named name (a redacted URL).
func explain(name string, err error) error {
	var (
		pe  *pgconn.PgError
		ce  *pgconn.ConnectError
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
	case pgconn.SafeToRetry(err) || errors.As(err, &ce):
		msg = fmt.Sprintf("cannot reach PostgreSQL at %s: check that the server runs and that the host and port in CONNECTN_DB are right", name)
	default:
		return err
	}
	return sqlstore.Explained(msg, err)
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation
// (SQLSTATE 23505); in the matches table the only unique index besides the
// primary key is the one that allows one active session per channel.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
