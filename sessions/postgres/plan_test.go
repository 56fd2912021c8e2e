package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/connectn/connectn/sessions/internal/sqlstore"
	"github.com/connectn/connectn/sessions/postgres"
	"github.com/connectn/connectn/sessions/sessionstest"
)

// TestQueryPlans asks PostgreSQL for the plan of the engine's statements
// that must not read a whole table (EXPLAIN, with sequential scans priced
// out as the planner does for a large table, since the test's tables are
// empty): each reads through its indexes (LastChallenge: one seek in
// matches_by_challenger, read in its order), and none scans its table.
// Each is planned twice: for its arguments written in, and prepared, as
// the store's connections plan it (once, for any arguments: genericPlans).
func TestQueryPlans(t *testing.T) {
	u := sessionstest.PostgresSchema(t, serverURL(t))
	st, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := postgres.OpenDB(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range postgres.PlannedQueries() {
		for _, generic := range []bool{false, true} {
			name := q.Name
			if generic {
				name += ", prepared"
			}
			t.Run(name, func(t *testing.T) { checkPlan(t, db, q, generic) })
		}
	}
}

// prepared numbers the statements checkPlan prepares.
var prepared int

// checkPlan checks the plan of q (see TestQueryPlans): with generic, the
// plan PostgreSQL makes for q prepared, for any arguments.
func checkPlan(t *testing.T, db *sql.DB, q sqlstore.PlannedQuery, generic bool) {
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	explain := "EXPLAIN " + q.Literal()
	if generic {
		if _, err := tx.ExecContext(t.Context(), "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
			t.Fatal(err)
		}
		// A prepared statement outlives the transaction, on its
		// connection: each gets a name of its own.
		prepared++
		stmt := fmt.Sprintf("planned_%d", prepared)
		if _, err := tx.ExecContext(t.Context(), "PREPARE "+stmt+" AS "+sqlstore.Dialect{Numbered: true}.Rebind(q.SQL)); err != nil {
			t.Fatalf("PREPARE %s: %v", q.SQL, err)
		}
		lits := make([]string, len(q.Args))
		for i, a := range q.Args {
			lits[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		}
		explain = "EXPLAIN EXECUTE " + stmt + "(" + strings.Join(lits, ", ") + ")"
	}
	text := explainText(t, tx, explain)
	t.Logf("%s:\n%s", q.Name, text)
	if strings.Contains(text, "Seq Scan on "+q.Table+" ") || strings.HasSuffix(text, "Seq Scan on "+q.Table) {
		t.Errorf("the plan of %s reads the whole table %s:\n%s", q.Name, q.Table, text)
	}
	if q.Ordered && (strings.Contains(text, "Sort") || !strings.HasPrefix(text, "Limit")) {
		t.Errorf("the plan of %s sorts, want the rows read in the index's order:\n%s", q.Name, text)
	}
	for _, index := range q.Indexes {
		if !strings.Contains(text, " on "+index+" ") && !strings.Contains(text, " using "+index+" ") {
			t.Errorf("the plan of %s does not use %s:\n%s", q.Name, index, text)
		}
	}
	for _, a := range q.Args {
		if generic && strings.Contains(text, "'"+a+"'") {
			t.Errorf("the plan of %s prepared holds its argument %s, want a plan for any arguments:\n%s", q.Name, a, text)
		}
	}
}

// explainText returns the plan EXPLAIN prints for query in tx, a line a
// row.
func explainText(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string) string {
	t.Helper()
	rows, err := q.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// TestNewestManyPlan checks the plan of the read of many channels' newest
// sessions at once, the batched form of every click's read: a seek in
// matches_by_channel per channel, read in the index's order, no sort and
// no sequential scan.
func TestNewestManyPlan(t *testing.T) {
	u := sessionstest.PostgresSchema(t, serverURL(t))
	st, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := postgres.OpenDB(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	text := explainText(t, tx, "EXPLAIN "+strings.ReplaceAll(postgres.NewestManySQL, "$1", "'{chan-1,chan-2}'"))
	t.Logf("plan:\n%s", text)
	if strings.Contains(text, "Seq Scan on matches") || strings.Contains(text, "Sort") || !strings.Contains(text, "matches_by_channel") {
		t.Errorf("the plan reads matches otherwise than by a seek in matches_by_channel per channel:\n%s", text)
	}
}

// TestConnectionSettings checks the settings the store's connections
// make by default, and that a URL that sets one keeps its own:
// plan_cache_mode plans a prepared statement once for any arguments
// (genericPlans), random_page_cost prices a page read out of order at 1.1
// (cheapRandomReads).
func TestConnectionSettings(t *testing.T) {
	u := sessionstest.PostgresSchema(t, serverURL(t))
	for _, tt := range []struct {
		setting, byDefault, byURL string
	}{
		{"plan_cache_mode", "force_generic_plan", "force_custom_plan"},
		{"random_page_cost", "1.1", "2"},
	} {
		for _, c := range []struct{ name, url, want string }{
			{"default", u, tt.byDefault},
			{"set by the URL", u + "&" + tt.setting + "=" + tt.byURL, tt.byURL},
		} {
			t.Run(tt.setting+"/"+c.name, func(t *testing.T) {
				db, err := postgres.OpenDB(t.Context(), c.url)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var got string
				if err := db.QueryRowContext(t.Context(), "SHOW "+tt.setting).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != c.want {
					t.Errorf("%s = %q, want %q", tt.setting, got, c.want)
				}
			})
		}
	}
}

// TestNewTablePlans checks the plan that the store's connections make,
// once for any arguments, of the batched UPDATE of moves while matches is
// new and never analyzed (as in a new database's first minute, before
// autovacuum analyzes it): it looks up each row in matches_pkey and
// scans no table, without sequential scans priced out (cheapRandomReads).
// With PostgreSQL's default random_page_cost it hashed a sequential scan
// of matches, a plan then kept until the table was analyzed.
func TestNewTablePlans(t *testing.T) {
	u := sessionstest.PostgresSchema(t, serverURL(t))
	st, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := postgres.OpenDB(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	set := sqlstore.MoveColumns()
	var arrays, lits []string
	for _, c := range set {
		switch c {
		case "post_seq":
			arrays = append(arrays, "bigint[]")
		default:
			arrays = append(arrays, "text[]")
		}
	}
	arrays = append(arrays, "bigint[]", "bigint[]", "text[]") // ids, revisions, channels
	for range arrays {
		lits = append(lits, "'{}'")
	}
	if _, err := conn.ExecContext(t.Context(), "PREPARE moves AS "+postgres.UpdateManySQL(set, arrays)); err != nil {
		t.Fatal(err)
	}
	text := explainText(t, conn, "EXPLAIN EXECUTE moves("+strings.Join(lits, ", ")+")")
	t.Logf("plan:\n%s", text)
	if strings.Contains(text, "Seq Scan") || !strings.Contains(text, "using matches_pkey on matches m") {
		t.Errorf("the batched UPDATE of moves on a new table reads matches otherwise than by a lookup in matches_pkey per move:\n%s", text)
	}
}
