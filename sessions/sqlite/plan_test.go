package sqlite_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/sessions/sqlite"
)

// TestQueryPlans asks SQLite for the plan of the engine's statements that
// must not read a whole table (EXPLAIN QUERY PLAN): each searches through
// its indexes (LastChallenge: one seek in matches_by_challenger, read in
// its order), and none scans its table.
func TestQueryPlans(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "connectn.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, q := range sqlite.PlannedQueries() {
		t.Run(q.Name, func(t *testing.T) {
			rows, err := sqlite.DB(st).QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q.Literal())
			if err != nil {
				t.Fatalf("EXPLAIN QUERY PLAN %s: %v", q.SQL, err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			text := strings.Join(plan, "\n")
			t.Logf("%s:\n%s", q.Name, text)
			for _, line := range plan {
				if line == "SCAN "+q.Table || strings.HasPrefix(line, "SCAN "+q.Table+" ") {
					t.Errorf("the plan of %s reads the whole table %s:\n%s", q.Name, q.Table, text)
				}
			}
			if q.Ordered && strings.Contains(text, "TEMP B-TREE") {
				t.Errorf("the plan of %s sorts, want the rows read in the index's order:\n%s", q.Name, text)
			}
			for _, index := range q.Indexes {
				if !strings.Contains(text, "INDEX "+index+" ") {
					t.Errorf("the plan of %s does not use %s:\n%s", q.Name, index, text)
				}
			}
		})
	}
}
