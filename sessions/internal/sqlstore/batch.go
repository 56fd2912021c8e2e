package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"runtime"
	"slices"
	"sync"
)

// A swap is one write of Update or Create: Update's compare-and-swap,
// whose stmt must change exactly one row (else nothing was written and the
// result is errLost), or, with scan, Create's insert, whose stmt returns
// one row scanned into scan. then, when set, writes more in the same
// transaction (the stats of a finished match). query is stmt's SQL, for
// Dialect.Pipeline, and key the session ID it writes (0 for an insert),
// the order of a pipelined batch.
type swap struct {
	ctx   context.Context
	stmt  *sql.Stmt
	query string
	key   int64
	args  []any
	set   []string // with Dialect.UpdateMany: Update's columns (colSet.names)
	scan  []any
	then  func(ctx context.Context, tx *sql.Tx) error
	// piped, when set, writes what then writes, in a txn: writeAlone
	// then writes the swap through Dialect.PipedTx when the dialect has
	// it (writePiped).
	piped func(ctx context.Context, t txn) error

	err  error
	done chan bool // receives true: lead the next batch; false: err is set
}

// apply runs w's statement as stmt (w.stmt itself, or w.stmt within a
// transaction).
func (w *swap) apply(ctx context.Context, stmt *sql.Stmt) error {
	if w.scan != nil {
		return stmt.QueryRowContext(ctx, w.args...).Scan(w.scan...)
	}
	return swapped(stmt.ExecContext(ctx, w.args...))
}

// batcher gathers the swaps of a process whose writes queue in Go
// (Dialect.SerialWrites) into group commits: while one batch is being
// written, the swaps that arrive wait, and the next leader writes them all
// in one transaction. SQLite's cost of a transaction (taking and dropping
// the write lock, appending the commit to the log) is then paid once per
// batch instead of once per move; under load, writes arrive many at a
// time (a move holds the write lock while the scheduler runs other
// requests), so batches are large exactly when that matters. A swap alone
// is written as before, in a transaction of its own. The leader is a
// caller, not a goroutine of the store: the first swap to arrive when no
// batch is being written leads; on finishing, it hands the lead to the
// first swap that arrived meanwhile.
//
// Group commit is an old idea of database logging (for example
// PostgreSQL's commit_delay, MySQL's binlog group commit).
//
// PostgreSQL (Dialect.Pipeline) batches too, for another reason: there a
// move's write is a round trip, and each round trip costs the server and
// the database more CPU than the statement itself (network system calls
// on both sides, a transaction and a WAL flush per statement in the
// database). A batch is sent as one pipeline, in one implicit transaction,
// so that a round trip and a commit carry several moves (the figures
// are in docs/load.md, "PostgreSQL's cost"). Only
// the writes that are one statement go in a pipeline: a swap with then
// (a match's end, with its stats and ratings) is written on its own, in
// parallel with the batches, as it was before batching.
type batcher struct{ gatherer[*swap] }

// gatherer is the leader and followers that batcher and reader share:
// while one batch is under way, the operations that arrive wait in
// pending, and the first of them leads the next batch, which holds them
// all. T is the operation; its turn channel receives true (lead the next
// batch) or false (the batch that held it is done).
type gatherer[T interface {
	comparable
	turn() chan bool
}] struct {
	mu      sync.Mutex
	pending []T
	leading bool
}

// join adds op and returns once a batch that held it has been through
// run, led by this caller or by another.
func (g *gatherer[T]) join(op T, run func(batch []T)) {
	g.mu.Lock()
	g.pending = append(g.pending, op)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead && !<-op.turn() {
		return
	}
	// Let the requests that are running now reach the queue before the
	// batch closes: one yield, no waiting (alone, the leader runs on at
	// once). Without it batches of writes under load averaged about 2
	// swaps; with it about 6 (connectn-loadgen, 50 matches).
	runtime.Gosched()
	g.mu.Lock()
	batch := g.pending
	g.pending = nil
	g.mu.Unlock()

	run(batch)

	g.mu.Lock()
	if len(g.pending) > 0 {
		g.pending[0].turn() <- true // the next leader
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, o := range batch {
		if o != op {
			o.turn() <- false
		}
	}
}

// turn implements gatherer's constraint.
func (w *swap) turn() chan bool { return w.done }

// writeSwap writes w: alone when the dialect lets writers meet in the
// database, else through the batcher. It returns errLost when the swap
// found the row changed, and the database's error otherwise; a swap whose
// ctx ends before its turn is not written and returns ctx's error. Once a
// swap has joined a batch it is never abandoned: the call returns when the
// batch is written, so that a write is never applied without its caller
// knowing.
func (s *Store) writeSwap(w *swap) error {
	if !s.d.SerialWrites && (s.d.Pipeline == nil || w.then != nil) {
		return s.writeAlone(w)
	}
	w.done = make(chan bool, 1)
	s.batch.join(w, s.writeBatch)
	return w.err
}

// writeBatch writes batch under the process's write lock and sets each
// swap's err. Many swaps share one transaction; if any fails other than by
// losing its compare-and-swap, or the commit fails, the transaction is
// rolled back and every swap written alone, so that each swap's outcome is
// its own, as if there were no batch.
func (s *Store) writeBatch(batch []*swap) {
	done := s.lockWrites()
	defer done()
	if len(batch) == 1 {
		batch[0].err = s.writeAlone(batch[0])
		return
	}
	// The batch's statements run under a context no single caller can
	// cancel: cancelling one statement of a transaction would roll back
	// the others' writes with it.
	ctx := context.WithoutCancel(batch[0].ctx)
	if s.d.Pipeline != nil {
		s.pipeBatch(ctx, batch)
		return
	}
	if s.tryBatch(ctx, batch) {
		return
	}
	for _, w := range batch {
		w.err = s.writeAlone(w)
	}
}

// tryBatch writes batch in one transaction and reports whether it
// committed. A swap whose context has ended is left out (err set to the
// context's error).
func (s *Store) tryBatch(ctx context.Context, batch []*swap) bool {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false
	}
	for _, w := range batch {
		if w.err = w.ctx.Err(); w.err != nil {
			continue
		}
		w.err = w.apply(ctx, tx.StmtContext(ctx, w.stmt))
		if w.err == errLost {
			continue // nothing written
		}
		if w.err == nil && w.then != nil {
			w.err = w.then(ctx, tx)
		}
		if w.err != nil {
			_ = tx.Rollback()
			return false
		}
	}
	if err := tx.Commit(); err != nil {
		return false
	}
	return true
}

// pipeBatch writes batch, swaps that are one statement each (no then),
// through Dialect.Pipeline in one round trip and one transaction, in the
// order of the rows they write, and sets each swap's err; a swap whose
// context has ended is left out. The order is that of the session IDs, so
// that two processes' batches lock the rows they share in the same order
// and do not wait for each other in a cycle (a deadlock, which PostgreSQL
// breaks only after deadlock_timeout, a second). A multi-row UPDATE
// (Dialect.UpdateMany) locks its rows in the order its plan joins them, in
// practice a nested loop over the sorted arrays; and two replicas' batches
// share a row only when two clicks of one match are in flight at once. A
// deadlock, should one happen, fails the pipeline. When the pipeline fails
// (a unique index refused an insert, say), nothing of it was written and
// every swap is written alone, so that each swap's outcome is its own, as
// if there were no batch.
func (s *Store) pipeBatch(ctx context.Context, batch []*swap) {
	live := make([]*swap, 0, len(batch))
	for _, w := range batch {
		switch w.err = w.ctx.Err(); {
		case w.err != nil:
		case w.then != nil || w.query == "":
			w.err = s.writeAlone(w) // not one statement
		default:
			live = append(live, w)
		}
	}
	if len(live) <= 1 {
		for _, w := range live {
			w.err = s.writeAlone(w)
		}
		return
	}
	slices.SortStableFunc(live, func(a, b *swap) int { return cmp.Compare(a.key, b.key) })
	piped, of := s.pipedOf(live)
	if err := s.d.Pipeline(ctx, s.db, piped); err != nil {
		for _, w := range live {
			w.err = s.writeAlone(w)
		}
		return
	}
	for i, group := range of {
		p := &piped[i]
		if p.IDs == nil {
			if group[0].scan == nil && p.Affected != 1 {
				group[0].err = errLost
			}
			continue
		}
		changed := make(map[int64]bool, len(*p.IDs))
		for _, id := range *p.IDs {
			changed[id] = true
		}
		for _, w := range group {
			if !changed[w.key] {
				w.err = errLost
			}
		}
	}
}

// pipedOf returns the statements that write live (in order), and the
// swaps each one writes: a swap's own statement, or with
// Dialect.UpdateMany one statement for all the updates of one kind (the
// same columns set) among them, its arguments given as arrays, a column
// each.
func (s *Store) pipedOf(live []*swap) ([]Piped, [][]*swap) {
	var (
		piped []Piped
		of    [][]*swap
		kinds = map[string]int{} // query -> its index in piped, for UpdateMany
	)
	for _, w := range live {
		if s.d.UpdateMany != nil && w.set != nil {
			if k, ok := kinds[w.query]; ok {
				of[k] = append(of[k], w)
				continue
			}
			kinds[w.query] = len(piped)
		}
		piped = append(piped, Piped{Query: w.query, Args: w.args, Scan: w.scan})
		of = append(of, []*swap{w})
	}
	for k, group := range of {
		if len(group) < 2 {
			continue
		}
		args, arrays, ok := columns(group)
		if !ok {
			continue // written as the first of the group, and the others below
		}
		ids := []int64{}
		piped[k] = Piped{Query: s.d.UpdateMany(group[0].set, arrays), Args: args, IDs: &ids}
	}
	// A group whose arguments could not be made columns: a statement each.
	for k := 0; k < len(of); k++ {
		if group := of[k]; len(group) > 1 && piped[k].IDs == nil {
			for _, w := range group[1:] {
				piped = append(piped, Piped{Query: w.query, Args: w.args})
				of = append(of, []*swap{w})
			}
			of[k] = group[:1]
		}
	}
	return piped, of
}

// columns returns the arguments of group's updates (all of one kind) as
// columns, for UpdateMany: one array per column set, then the ids, the
// revisions and the channels (updateSQL's arguments without its second
// id), and the SQL type of each array; ok is false when an argument is
// neither text nor an integer.
func columns(group []*swap) (_ []any, _ []string, ok bool) {
	n := len(group[0].args) - 1 // the last argument repeats the id
	args := make([]any, n)
	arrays := make([]string, n)
	for c := range n {
		switch group[0].args[c].(type) {
		case int, int64:
			col := make([]int64, len(group))
			for r, w := range group {
				switch v := w.args[c].(type) {
				case int:
					col[r] = int64(v)
				case int64:
					col[r] = v
				default:
					return nil, nil, false
				}
			}
			args[c], arrays[c] = col, "bigint[]"
		default:
			col := make([]string, len(group))
			for r, w := range group {
				if col[r], ok = w.args[c].(string); !ok {
					return nil, nil, false
				}
			}
			args[c], arrays[c] = col, "text[]"
		}
	}
	return args, arrays, true
}

// writeAlone writes w in a transaction of its own (or as one statement
// when nothing follows it). A swap whose context has ended is not
// written. In SQLite (SerialWrites), one that starts runs to its end, as in
// a batch: waits there are bounded by the busy timeout, its outcome is
// known, and no goroutine per statement watches the context. Elsewhere
// (PostgreSQL, over a network) the context still cancels the statement.
func (s *Store) writeAlone(w *swap) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	ctx := w.ctx
	if s.d.SerialWrites {
		ctx = context.WithoutCancel(ctx)
	}
	if w.piped != nil && s.d.PipedTx != nil {
		return s.writePiped(ctx, w)
	}
	if w.then == nil {
		return w.apply(ctx, w.stmt)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := w.apply(ctx, tx.StmtContext(ctx, w.stmt)); err != nil {
			return err // the revision check failed: nothing follows
		}
		return w.then(ctx, tx)
	})
}
