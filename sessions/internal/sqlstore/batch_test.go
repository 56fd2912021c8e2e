package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
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
