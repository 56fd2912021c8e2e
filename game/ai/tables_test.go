package ai

import (
	"context"
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
