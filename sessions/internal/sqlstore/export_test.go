package sqlstore

import (
	"context"
	"database/sql"
)

// TestSwap is a swap for tests of the batcher: Stmt must change one row,
// or with Scan return one; Then, when set, runs after it in the same
// transaction. Query is Stmt's SQL and Key the row's ID, for a
// Dialect.Pipeline.
type TestSwap struct {
	Ctx   context.Context
	Stmt  *sql.Stmt
	Query string
	Key   int64
	Set   []string // the columns of an Update, for Dialect.UpdateMany
	Args  []any
	Scan  []any
	Then  func(ctx context.Context, tx *sql.Tx) error
}

// WriteBatch writes swaps as one batch, as the leader of a group commit
// does, and returns each swap's error.
func (s *Store) WriteBatch(swaps []TestSwap) []error {
	batch := make([]*swap, len(swaps))
	for i, t := range swaps {
		batch[i] = &swap{ctx: t.Ctx, stmt: t.Stmt, query: t.Query, key: t.Key, set: t.Set, args: t.Args, scan: t.Scan, then: t.Then}
	}
	s.writeBatch(batch)
	errs := make([]error, len(batch))
	for i, w := range batch {
		errs[i] = w.err
	}
	return errs
}

// ErrLost is errLost, for tests.
var ErrLost = errLost
