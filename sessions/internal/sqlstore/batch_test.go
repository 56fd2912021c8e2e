package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/internal/sqlstore"
	"github.com/connectn/connectn/sessions/sqlite"
)

// newSQLiteStore returns an engine on a new SQLite file with the SQLite
// backend's schema, writes queued as that backend queues them: the
// engine's own methods, which the backend does not export, are in reach.
func newSQLiteStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(t.TempDir(), "connectn.db"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := sqlstore.LoadMigrations(os.DirFS(filepath.Join("..", "..", "sqlite")), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	d := sqlstore.Dialect{Name: "sqlite", SerialWrites: true, IsUniqueViolation: func(error) bool { return false }}
	if _, err := sqlstore.Migrate(t.Context(), db, d, list, sqlstore.MigrateHooks{}); err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.New(t.Context(), db, d, "test", sessions.ApplyOptions())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestBatchOutcomesAreEach: a group commit gives every swap the outcome it
// would have had alone. One swap's failure after its compare-and-swap
// succeeded (its stats refused, say) leaves nothing of it in the database
// and costs the others nothing; a lost compare-and-swap and a swap whose
// caller gave up are not written; the rest are.
func TestBatchOutcomesAreEach(t *testing.T) {
	st := newSQLiteStore(t)
	defer st.Close()
	db := st.DB()
	for _, q := range []string{
		`CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`,
		`INSERT INTO t (id, v) VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)`,
	} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	cas, err := db.PrepareContext(t.Context(), `UPDATE t SET v = ? WHERE id = ? AND v = ?`)
	if err != nil {
		t.Fatal(err)
	}
	defer cas.Close()
	insert, err := db.PrepareContext(t.Context(), `INSERT INTO t (id, v) VALUES (?, 0) RETURNING id`)
	if err != nil {
		t.Fatal(err)
	}
	defer insert.Close()
	var dup, six int
	refused := errors.New("stats refused")
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	ctx := t.Context()
	errs := st.WriteBatch([]sqlstore.TestSwap{
		{Ctx: ctx, Stmt: cas, Args: []any{1, 1, 0}},
		{Ctx: ctx, Stmt: cas, Args: []any{1, 2, 7}}, // row 2 is not at 7: lost
		{Ctx: ctx, Stmt: cas, Args: []any{1, 3, 0}, Then: func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO t (id, v) VALUES (99, 1)`); err != nil {
				return err
			}
			return refused
		}},
		{Ctx: ctx, Stmt: cas, Args: []any{1, 4, 0}},
		{Ctx: gone, Stmt: cas, Args: []any{1, 5, 0}},
		{Ctx: ctx, Stmt: insert, Args: []any{1}, Scan: []any{&dup}}, // row 1 exists
	})
	want := []error{nil, sqlstore.ErrLost, refused, nil, context.Canceled, nil}
	for i := range want[:5] {
		if !errors.Is(errs[i], want[i]) || (want[i] == nil && errs[i] != nil) {
			t.Errorf("swap %d: error %v, want %v", i+1, errs[i], want[i])
		}
	}
	if errs[5] == nil || !strings.Contains(errs[5].Error(), "UNIQUE") {
		t.Errorf("insert of an existing row: error %v, want the database's refusal", errs[5])
	}
	// A batch that commits: the swap whose caller gave up is still left
	// out.
	errs = st.WriteBatch([]sqlstore.TestSwap{
		{Ctx: ctx, Stmt: cas, Args: []any{2, 1, 1}},
		{Ctx: gone, Stmt: cas, Args: []any{1, 5, 0}},
		{Ctx: ctx, Stmt: insert, Args: []any{6}, Scan: []any{&six}},
	})
	if errs[0] != nil || !errors.Is(errs[1], context.Canceled) || errs[2] != nil || six != 6 {
		t.Errorf("second batch: errors %v, inserted %d, want nil, %v, nil and row 6", errs, context.Canceled, six)
	}
	rows, err := db.QueryContext(t.Context(), `SELECT id, v FROM t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int]int{}
	for rows.Next() {
		var id, v int
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		got[id] = v
	}
	wantRows := map[int]int{1: 2, 2: 0, 3: 0, 4: 1, 5: 0, 6: 0}
	if len(got) != len(wantRows) {
		t.Errorf("rows %v, want %v (nothing of the refused swap, no row 99)", got, wantRows)
	}
	for id, v := range wantRows {
		if got[id] != v {
			t.Errorf("row %d = %d, want %d; rows %v", id, got[id], v, got)
		}
	}
}

// newPipelineStore returns an engine on a new SQLite file whose dialect
// pipelines batches as PostgreSQL's does, through pipe, and queues no
// writes in Go: the engine's side of a pipelined group commit, without a
// PostgreSQL server.
func newPipelineStore(t *testing.T, pipe func(ctx context.Context, db *sql.DB, batch []sqlstore.Piped) error) *sqlstore.Store {
	t.Helper()
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(t.TempDir(), "connectn.db"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := sqlstore.LoadMigrations(os.DirFS(filepath.Join("..", "..", "sqlite")), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	d := sqlstore.Dialect{Name: "pipelined", Pipeline: pipe, IsUniqueViolation: func(error) bool { return false }}
	if _, err := sqlstore.Migrate(t.Context(), db, d, list, sqlstore.MigrateHooks{}); err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.New(t.Context(), db, d, "test", sessions.ApplyOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// txPipeline runs a batch as Dialect.Pipeline must, in one transaction
// that commits all or nothing, and records the keys (the first argument
// after the value: the row's id) in the order run.
type txPipeline struct {
	calls int
	order [][]any
}

func (p *txPipeline) run(ctx context.Context, db *sql.DB, batch []sqlstore.Piped) error {
	p.calls++
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var ids []any
	for i := range batch {
		b := &batch[i]
		ids = append(ids, b.Args[len(b.Args)-2])
		if b.Scan != nil {
			err = tx.QueryRowContext(ctx, b.Query, b.Args...).Scan(b.Scan...)
		} else {
			var res sql.Result
			if res, err = tx.ExecContext(ctx, b.Query, b.Args...); err == nil {
				b.Affected, err = res.RowsAffected()
			}
		}
		if err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	p.order = append(p.order, ids)
	return tx.Commit()
}

// TestPipelineOutcomesAreEach: a pipelined group commit runs its swaps in
// the order of the rows they write (so that two processes' batches lock
// shared rows in one order, never in a cycle), gives a swap whose
// compare-and-swap changed no row errLost and leaves out one whose caller
// gave up; and when the pipeline fails, nothing of it stays and every swap
// is written alone, each with its own outcome.
func TestPipelineOutcomesAreEach(t *testing.T) {
	var p txPipeline
	st := newPipelineStore(t, p.run)
	db := st.DB()
	for _, q := range []string{
		`CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`,
		`INSERT INTO t (id, v) VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)`,
	} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	const casSQL, insertSQL = `UPDATE t SET v = ? WHERE id = ? AND v = ?`, `INSERT INTO t (id, v) VALUES (?, ?) RETURNING id`
	cas, err := db.PrepareContext(t.Context(), casSQL)
	if err != nil {
		t.Fatal(err)
	}
	defer cas.Close()
	insert, err := db.PrepareContext(t.Context(), insertSQL)
	if err != nil {
		t.Fatal(err)
	}
	defer insert.Close()
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	ctx := t.Context()
	swap := func(c context.Context, id, from int) sqlstore.TestSwap {
		return sqlstore.TestSwap{Ctx: c, Stmt: cas, Query: casSQL, Key: int64(id), Args: []any{1, id, from}}
	}
	errs := st.WriteBatch([]sqlstore.TestSwap{swap(ctx, 4, 0), swap(ctx, 2, 7), swap(gone, 5, 0), swap(ctx, 1, 0)})
	want := []error{nil, sqlstore.ErrLost, context.Canceled, nil}
	for i := range want {
		if !errors.Is(errs[i], want[i]) || (want[i] == nil && errs[i] != nil) {
			t.Errorf("swap %d: error %v, want %v", i+1, errs[i], want[i])
		}
	}
	if p.calls != 1 || fmt.Sprint(p.order) != "[[1 2 4]]" {
		t.Errorf("pipelines run %d, rows in order %v, want 1 pipeline writing rows [1 2 4]: by row, without the swap given up", p.calls, p.order)
	}

	// An insert of a row that exists fails the pipeline: the others are
	// then written alone.
	var dup, six int
	errs = st.WriteBatch([]sqlstore.TestSwap{
		swap(ctx, 3, 0),
		{Ctx: ctx, Stmt: insert, Query: insertSQL, Args: []any{1, 0}, Scan: []any{&dup}},
		{Ctx: ctx, Stmt: insert, Query: insertSQL, Args: []any{6, 0}, Scan: []any{&six}},
		swap(ctx, 2, 7),
	})
	if errs[0] != nil || errs[1] == nil || !strings.Contains(errs[1].Error(), "UNIQUE") || errs[2] != nil || six != 6 || !errors.Is(errs[3], sqlstore.ErrLost) {
		t.Errorf("batch with a refused insert: errors %v, row inserted %d, want nil, the database's refusal, nil and row 6, %v", errs, six, sqlstore.ErrLost)
	}
	got := map[int]int{}
	rows, err := db.QueryContext(t.Context(), `SELECT id, v FROM t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, v int
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		got[id] = v
	}
	if want := map[int]int{1: 1, 2: 0, 3: 1, 4: 1, 5: 0, 6: 0}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

// TestPipelineUpdateMany: with Dialect.UpdateMany, a pipelined batch
// writes its updates of one kind as one statement, their arguments as
// columns, and gives errLost to each update whose row the statement did
// not return as changed; an update of another kind, and an insert, keep
// statements of their own.
func TestPipelineUpdateMany(t *testing.T) {
	var got []sqlstore.Piped
	pipe := func(_ context.Context, _ *sql.DB, batch []sqlstore.Piped) error {
		got = append(got[:0], batch...)
		for i := range batch {
			switch {
			case batch[i].IDs != nil:
				*batch[i].IDs = []int64{3, 9} // row 7's compare-and-swap failed
			case batch[i].Scan != nil:
				*batch[i].Scan[0].(*int) = 11
			default:
				batch[i].Affected = 1
			}
		}
		return nil
	}
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(t.TempDir(), "connectn.db"))
	if err != nil {
		t.Fatal(err)
	}
	d := sqlstore.Dialect{Name: "pipelined", Pipeline: pipe, IsUniqueViolation: func(error) bool { return false },
		UpdateMany: func(set, arrays []string) string { return fmt.Sprintf("MANY %v %v", set, arrays) }}
	list, err := sqlstore.LoadMigrations(os.DirFS(filepath.Join("..", "..", "sqlite")), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlstore.Migrate(t.Context(), db, d, list, sqlstore.MigrateHooks{}); err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.New(t.Context(), db, d, "test", sessions.ApplyOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	update := func(id int64, query string) sqlstore.TestSwap {
		return sqlstore.TestSwap{Ctx: ctx, Query: query, Key: id, Set: []string{"actions", "post_seq"},
			Args: []any{fmt.Sprint("moves of ", id), 2, id, int64(4), "chan", id}}
	}
	var inserted int
	errs := st.WriteBatch([]sqlstore.TestSwap{
		update(9, "U1"), update(3, "U1"), update(5, "U2"), update(7, "U1"),
		{Ctx: ctx, Query: "INSERT", Args: []any{"x"}, Scan: []any{&inserted}},
	})
	want := []error{nil, nil, nil, sqlstore.ErrLost, nil}
	for i := range want {
		if !errors.Is(errs[i], want[i]) || (want[i] == nil && errs[i] != nil) {
			t.Errorf("swap %d: error %v, want %v", i+1, errs[i], want[i])
		}
	}
	var queries []string
	for _, p := range got {
		queries = append(queries, p.Query)
	}
	if want := "[INSERT MANY [actions post_seq] [text[] bigint[] bigint[] bigint[] text[]] U2]"; fmt.Sprint(queries) != want {
		t.Fatalf("statements %v, want %s: the U1 updates as one, in the order of their rows", queries, want)
	}
	if want := "[[moves of 3 moves of 7 moves of 9] [2 2 2] [3 7 9] [4 4 4] [chan chan chan]]"; fmt.Sprint(got[1].Args) != want {
		t.Errorf("arguments of the one statement %v, want the columns %s", got[1].Args, want)
	}
	if inserted != 11 {
		t.Errorf("insert's row %d, want 11", inserted)
	}
}
