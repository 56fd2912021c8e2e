package ai

import (
	"context"
	"fmt"
	"testing"

	"github.com/connectn/connectn/game"
)

// TestWithTableMB: an engine made by WithTableMB evaluates with a table of
// its own size, leaves the parent's unallocated, and takes its workers from
// the parent's pool.
func TestWithTableMB(t *testing.T) {
	parent := NewEngine(Options{TableMB: 64, Workers: 1})
	small := parent.WithTableMB(4)
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	vals, err := small.Evaluate(context.Background(), cfg, []int{3, 3, 3, 3, 2, 2, 2, 2, 4, 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 7 {
		t.Fatalf("got %d column values, want 7", len(vals))
	}
	if parent.table != nil {
		t.Fatal("the parent's table was allocated by the small engine's search")
	}
	if want := newTable(4).size; small.table == nil || small.table.size != want {
		t.Fatalf("the small engine's table: %d entries, want %d (4 MiB)", tableLen(small.table), want)
	}
	if small.pool != parent.pool {
		t.Fatal("the small engine has a pool of its own: its searches would not count against the parent's workers")
	}
}

func tableLen(t *table) int {
	if t == nil {
		return 0
	}
	return int(t.size)
}

// TestForgetTables: after ForgetTables the exact solver's table holds no
// entry and no solver is kept (their near-end tables go to the collector),
// and the next search finds the same values as the first.
func TestForgetTables(t *testing.T) {
	e := NewEngine(Options{TableMB: 64, Workers: 1}).WithTableMB(4)
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	moves := []int{3, 2, 3, 4, 4, 2, 1, 5, 5, 1, 0, 6}
	first, err := e.Evaluate(context.Background(), cfg, moves)
	if err != nil {
		t.Fatal(err)
	}
	if n := usedSlots(e.table); n == 0 || len(e.solvers) == 0 {
		t.Fatalf("after a search: %d entries in the table, %d solvers; want some of each", n, len(e.solvers))
	}
	e.ForgetTables()
	if n := usedSlots(e.table); n != 0 || len(e.solvers) != 0 {
		t.Fatalf("after ForgetTables: %d entries in the table, %d solvers; want none", n, len(e.solvers))
	}
	again, err := e.Evaluate(context.Background(), cfg, moves)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("after ForgetTables the search found %v, want %v as before", again, first)
	}
}

func usedSlots(t *table) int {
	n := 0
	for _, e := range t.slots {
		if e != 0 {
			n++
		}
	}
	return n
}
