package sqlstore

import (
	"context"
	"database/sql"
)

// Pipe is a transaction of Dialect.PipedTx: its statements are queued and
// sent together, in one round trip, when a result is needed (Query,
// Send) or at the commit.
type Pipe interface {
	// Exec queues query (numbered placeholders) with args; once it has
	// been sent, affected, when not nil, holds the rows it changed.
	Exec(query string, args []any, affected *int64)
	// Query sends the statements queued and query, and returns query's
	// rows, or the first error of them all (a statement that failed
	// fails the transaction). The rows must be closed before the Pipe is
	// used again.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	// Send sends the statements queued and returns the first error.
	Send(ctx context.Context) error
}

// Rows are the rows of Pipe.Query, read as those of *sql.Rows.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

var _ Rows = (*sql.Rows)(nil)

// txn is the transaction the writes of a match's result run in (the
// prepared statements of Store.st): a *sql.Tx, a statement at a time
// (sqlTxn), or a Pipe of Dialect.PipedTx (pipeTxn), whose exec only queues
// its statement: its error is then returned by a later query or by the
// commit.
type txn interface {
	exec(ctx context.Context, stmt *sql.Stmt, args ...any) error
	query(ctx context.Context, stmt *sql.Stmt, args ...any) (Rows, error)
}

// sqlTxn runs each statement in tx at once.
type sqlTxn struct{ tx *sql.Tx }

func (t sqlTxn) exec(ctx context.Context, stmt *sql.Stmt, args ...any) error {
	_, err := t.tx.StmtContext(ctx, stmt).ExecContext(ctx, args...)
	return err
}

func (t sqlTxn) query(ctx context.Context, stmt *sql.Stmt, args ...any) (Rows, error) {
	return t.tx.StmtContext(ctx, stmt).QueryContext(ctx, args...)
}

// pipeTxn queues each statement in p, as the SQL text the Store prepared
// it from; once a query has sent them, check (the swap's
// compare-and-swap) decides whether the transaction goes on.
type pipeTxn struct {
	p     Pipe
	texts map[*sql.Stmt]string
	check func() error
}

func (t *pipeTxn) exec(_ context.Context, stmt *sql.Stmt, args ...any) error {
	t.p.Exec(t.texts[stmt], args, nil)
	return nil
}

func (t *pipeTxn) query(ctx context.Context, stmt *sql.Stmt, args ...any) (Rows, error) {
	rows, err := t.p.Query(ctx, t.texts[stmt], args...)
	if err != nil {
		return nil, err
	}
	if err := t.check(); err != nil {
		_ = rows.Close()
		return nil, err
	}
	return rows, nil
}

// writePiped writes the swap w, an Update's compare-and-swap and its
// piped writes (a match's result), in one Dialect.PipedTx: the
// compare-and-swap is sent with the begin and the first query of the
// result's (the players' ratings, locked), the rest with the commit, two
// round trips instead of one per statement; a result without a query
// (unrated) sends the compare-and-swap and its writes, then the commit.
// When the compare-and-swap changed no row it returns errLost and
// nothing is written, the result's statements sent with it rolled back.
func (s *Store) writePiped(ctx context.Context, w *swap) error {
	return s.d.PipedTx(ctx, s.db, func(p Pipe) error {
		n := int64(-1) // not sent yet
		p.Exec(w.query, w.args, &n)
		lost := func() error {
			if n != 1 {
				return errLost
			}
			return nil
		}
		if err := w.piped(ctx, &pipeTxn{p: p, texts: s.texts, check: lost}); err != nil {
			return err
		}
		if n < 0 {
			if err := p.Send(ctx); err != nil {
				return err
			}
		}
		return lost()
	})
}
