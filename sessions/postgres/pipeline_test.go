package postgres_test

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"

	"github.com/connectn/connectn/sessions/internal/sqlstore"
	"github.com/connectn/connectn/sessions/postgres"
	"github.com/connectn/connectn/sessions/sessionstest"
)

// TestPipeline checks the group commit's contract with PostgreSQL: a
// batch's statements report the rows each changed (a compare-and-swap that
// found its row changed reports 0) and the row each returned, and a batch
// in which one statement fails leaves nothing written, the statements
// before it included (one implicit transaction).
func TestPipeline(t *testing.T) {
	db, err := postgres.OpenDB(t.Context(), sessionstest.PostgresSchema(t, serverURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT NOT NULL)`,
		`INSERT INTO t (id, v) VALUES (1, 0), (2, 0)`,
	} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	const cas, insert = `UPDATE t SET v = $1 WHERE id = $2 AND v = $3`, `INSERT INTO t (id, v) VALUES ($1, 0) RETURNING id`
	var three int64
	batch := []sqlstore.Piped{
		{Query: cas, Args: []any{1, 1, 0}},
		{Query: cas, Args: []any{1, 2, 7}}, // row 2 is not at 7
		{Query: insert, Args: []any{3}, Scan: []any{&three}},
	}
	if err := postgres.Pipeline(t.Context(), db, batch); err != nil {
		t.Fatalf("Pipeline() error = %v", err)
	}
	if batch[0].Affected != 1 || batch[1].Affected != 0 || three != 3 {
		t.Errorf("rows changed %d and %d, row returned %d; want 1, 0 (a lost compare-and-swap) and 3", batch[0].Affected, batch[1].Affected, three)
	}
	var dup int64
	err = postgres.Pipeline(t.Context(), db, []sqlstore.Piped{
		{Query: cas, Args: []any{5, 2, 0}},
		{Query: insert, Args: []any{1}, Scan: []any{&dup}}, // row 1 exists
	})
	if err == nil {
		t.Fatal("Pipeline() with an insert of a row that exists: error = nil, want the unique violation")
	}
	var v int64
	if err := db.QueryRowContext(t.Context(), `SELECT v FROM t WHERE id = 2`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != 0 {
		t.Errorf("row 2 = %d after a failed batch, want 0: the update before the failure rolled back with it", v)
	}
}

// TestPipedTx checks the piped transaction of a match's result
// (sqlstore.Dialect.PipedTx): what fn queued is committed with the
// commit, a query in the middle sees the statements queued before it and
// reports their rows changed, and when a statement or fn fails nothing is
// committed, the statements sent before the failure included, and the
// connection goes back to the pool out of the transaction.
func TestPipedTx(t *testing.T) {
	db, err := postgres.OpenDB(t.Context(), sessionstest.PostgresSchema(t, serverURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the connection of each transaction is the next one's
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const insert, bump = `INSERT INTO t (id, v) VALUES ($1, 0)`, `UPDATE t SET v = v + 1 WHERE id = $1`
	count := func() (n int64) {
		t.Helper()
		if err := db.QueryRowContext(t.Context(), `SELECT count(*) + coalesce(sum(v), 0) FROM t`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Committed: two rows, one bumped.
	var bumped, missed int64 = -1, -1
	err = postgres.PipedTx(t.Context(), db, func(p sqlstore.Pipe) error {
		p.Exec(insert, []any{1}, nil)
		p.Exec(bump, []any{1}, &bumped)
		p.Exec(bump, []any{9}, &missed)
		rows, err := p.Query(t.Context(), `SELECT v FROM t WHERE id = $1`, 1)
		if err != nil {
			return err
		}
		defer rows.Close()
		var v int64
		for rows.Next() {
			if err := rows.Scan(&v); err != nil {
				return err
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if v != 1 || bumped != 1 || missed != 0 {
			t.Errorf("in the transaction: v = %d, rows changed %d and %d; want 1, 1 and 0", v, bumped, missed)
		}
		p.Exec(insert, []any{2}, nil)
		return nil
	})
	if err != nil {
		t.Fatalf("PipedTx() error = %v", err)
	}
	if got := count(); got != 3 {
		t.Fatalf("after a committed transaction: %d, want 3 (two rows, one bumped)", got)
	}
	for _, tc := range []struct {
		name string
		fn   func(p sqlstore.Pipe) error
	}{
		{"a statement fails at the commit", func(p sqlstore.Pipe) error {
			p.Exec(bump, []any{2}, nil)
			p.Exec(insert, []any{1}, nil) // row 1 exists
			return nil
		}},
		{"a statement fails in a query's round trip", func(p sqlstore.Pipe) error {
			p.Exec(bump, []any{2}, nil)
			p.Exec(insert, []any{2}, nil) // row 2 exists
			_, err := p.Query(t.Context(), `SELECT v FROM t`)
			return err
		}},
		{"fn fails after a round trip", func(p sqlstore.Pipe) error {
			p.Exec(insert, []any{3}, nil)
			if err := p.Send(t.Context()); err != nil {
				return err
			}
			return errors.New("lost the race")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := backend(t, db)
			if err := postgres.PipedTx(t.Context(), db, tc.fn); err == nil {
				t.Fatal("PipedTx() error = nil, want the failure")
			}
			if got := count(); got != 3 {
				t.Errorf("after a failed transaction: %d, want 3 (nothing of it written)", got)
			}
			// Rolled back, the connection stays in the pool (one left
			// in a transaction would be dropped and another opened).
			if after := backend(t, db); after != before {
				t.Errorf("the pool's connection is backend %d after a failed transaction, was %d: want it kept", after, before)
			}
		})
	}
}

// backend returns the process ID of the PostgreSQL backend of db's next
// connection.
func backend(t *testing.T, db *sql.DB) (pid int64) {
	t.Helper()
	if err := db.QueryRowContext(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestReadsTogether checks the reads that the store gathers into one
// statement (many channels' newest sessions at once): each caller gets its
// own channel's session, a channel without one ErrNotFound, whatever else
// was read with it.
func TestReadsTogether(t *testing.T) {
	st, err := postgres.Open(t.Context(), sessionstest.PostgresSchema(t, serverURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const channels = 8
	ids := map[string]int64{}
	for c := range channels {
		ch := fmt.Sprintf("chan-%d", c)
		sess, err := st.Create(t.Context(), &sessions.Session{ChannelID: ch, GuildID: "guild-1", Config: game.DefaultConfig(),
			Players: [2]sessions.Member{{ID: "100000000000000001", Name: "A"}, {ID: fmt.Sprintf("20000000000000000%d", c), Name: "B"}}})
		if err != nil {
			t.Fatal(err)
		}
		ids[ch] = sess.ID
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16*20)
	for g := range 16 {
		wg.Go(func() {
			for i := range 20 {
				ch := fmt.Sprintf("chan-%d", (g+i)%(channels+2)) // chan-8 and chan-9 have none
				got, err := st.Get(t.Context(), ch)
				switch want, ok := ids[ch]; {
				case !ok && !errors.Is(err, sessions.ErrNotFound):
					errs <- fmt.Errorf("Get(%s) = %v, %v, want ErrNotFound", ch, got, err)
				case ok && (err != nil || got.ID != want || got.ChannelID != ch):
					errs <- fmt.Errorf("Get(%s) = %+v, %v, want session %d", ch, got, err, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestUpdateMany checks the statement that writes many sessions back at
// once: each row with its compare-and-swap (a row at another revision, or
// no longer its channel's newest, is left as it is), the ids of the rows
// changed returned.
func TestUpdateMany(t *testing.T) {
	u := sessionstest.PostgresSchema(t, serverURL(t))
	st, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ids []int64
	for c := range 3 {
		sess, err := st.Create(t.Context(), &sessions.Session{ChannelID: fmt.Sprintf("chan-%d", c), GuildID: "guild-1", Config: game.DefaultConfig(),
			Players: [2]sessions.Member{{ID: "100000000000000001", Name: "A"}, {ID: "100000000000000002", Name: "B"}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID)
	}
	// chan-2's session is no longer its channel's newest.
	if _, err := st.Abandon(t.Context(), "chan-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(t.Context(), &sessions.Session{ChannelID: "chan-2", GuildID: "guild-1", Config: game.DefaultConfig(),
		Players: [2]sessions.Member{{ID: "100000000000000001", Name: "A"}, {ID: "100000000000000002", Name: "B"}}}); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.OpenDB(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	set := sqlstore.MoveColumns()
	var args []any
	var arrays []string
	for _, c := range set {
		switch c {
		case "post_seq", "rated", "rated_capped":
			args, arrays = append(args, []int64{0, 0, 0}), append(arrays, "bigint[]")
		case "actions":
			args, arrays = append(args, []string{`[{"kind":"drop","player":1,"column":3}]`, "[]", "[]"}), append(arrays, "text[]")
		case "webhook":
			args, arrays = append(args, []string{"{}", "{}", "{}"}), append(arrays, "text[]")
		case "updated_at":
			t := "2026-11-26T15:00:00.000000000Z"
			args, arrays = append(args, []string{t, t, t}), append(arrays, "text[]")
		case "player1_name", "player2_name":
			args, arrays = append(args, []string{"A", "A", "A"}), append(arrays, "text[]")
		default:
			args, arrays = append(args, []string{"", "", ""}), append(arrays, "text[]")
		}
	}
	// Session 1 at its revision (0), session 2 at one it is not at (5),
	// session 3 at its revision but abandoned (1) and not the newest.
	args = append(args, ids, []int64{0, 5, 1}, []string{"chan-0", "chan-1", "chan-2"})
	arrays = append(arrays, "bigint[]", "bigint[]", "text[]")
	changed := []int64{}
	if err := postgres.Pipeline(t.Context(), db, []sqlstore.Piped{{Query: postgres.UpdateManySQL(set, arrays), Args: args, IDs: &changed}}); err != nil {
		t.Fatalf("Pipeline(UpdateMany) error = %v", err)
	}
	if fmt.Sprint(changed) != fmt.Sprint(ids[:1]) {
		t.Errorf("rows changed %v, want only session %d's", changed, ids[0])
	}
	for i, want := range []int64{1, 0, 1} {
		var rev int64
		if err := db.QueryRowContext(t.Context(), `SELECT revision FROM matches WHERE id = $1`, ids[i]).Scan(&rev); err != nil {
			t.Fatal(err)
		}
		if rev != want {
			t.Errorf("session %d at revision %d, want %d", ids[i], rev, want)
		}
	}
	if got, err := st.Get(t.Context(), "chan-0"); err != nil || got.Match.Plies() != 1 {
		t.Errorf("chan-0 after the write: %v, %v, want its session with the move written", got, err)
	}
}

// TestScansQueuedTogether checks QueuePuzzleScan when its inserts go in
// the moves' pipeline, several at once: each match is queued once (one
// call reports it queued, the others that it was queued before), however
// many calls for it share a pipeline.
func TestScansQueuedTogether(t *testing.T) {
	st, err := postgres.Open(t.Context(), sessionstest.PostgresSchema(t, serverURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const matches, callers = 8, 16
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		queued = map[int64]int{}
		errs   []error
	)
	for g := range callers {
		wg.Go(func() {
			for i := range matches {
				m := int64((g+i)%matches + 1)
				ok, err := st.QueuePuzzleScan(t.Context(), sessions.PuzzleScan{Match: m, GuildID: "guild-1", ChannelID: fmt.Sprintf("chan-%d", m)})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else if ok {
					queued[m]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Errorf("QueuePuzzleScan() error = %v", err)
	}
	for m := int64(1); m <= matches; m++ {
		if queued[m] != 1 {
			t.Errorf("match %d reported queued by %d calls of %d, want 1", m, queued[m], callers)
		}
	}
}
