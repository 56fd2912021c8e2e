//go:build linux

package ai

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/connectn/connectn/game"
)

// TestForgetTablesGivesMemoryBack: the pages of a table that searches
// filled are resident; after ForgetTables they are not (the process's
// resident memory, /proc/self/smaps, of the mapping holding the table).
func TestForgetTablesGivesMemoryBack(t *testing.T) {
	e := NewEngine(Options{TableMB: 64, Workers: 1}).WithTableMB(4)
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	if _, err := e.Evaluate(context.Background(), cfg, []int{3, 2, 3, 4, 4, 2, 1, 5, 5, 1, 0, 6}); err != nil {
		t.Fatal(err)
	}
	clear(e.table.slots[:len(e.table.slots)-1]) // every page touched, as a long search does
	e.table.slots[len(e.table.slots)-1] = 1
	before := residentKB(t, uintptr(unsafe.Pointer(&e.table.slots[0])))
	e.ForgetTables()
	after := residentKB(t, uintptr(unsafe.Pointer(&e.table.slots[0])))
	// The kernel may merge the table's mapping with another table's of an
	// earlier test: what counts is what ForgetTables gave back.
	if before-after < 3*1024 {
		t.Errorf("the table's mapping: %d KiB resident after a search, %d KiB after ForgetTables; want 3072 KiB or more given back", before, after)
	}
}

// residentKB returns the resident memory of the mapping holding addr, in
// KiB, from /proc/self/smaps.
func residentKB(t *testing.T, addr uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if in && strings.HasPrefix(line, "Rss:") {
			if _, err := fmt.Sscanf(line, "Rss: %d kB", &kb); err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatalf("no mapping of %#x in /proc/self/smaps", addr)
	return 0
}

// TestClearMapsTheTable: a new Solver's table is mapped but not touched;
// Clear writes it all (so that a benchmark's clock does not time the first
// touch of its pages, as c4's and Pons' drivers empty theirs before theirs)
// and leaves it empty: a solve after it takes the nodes of a new Solver's.
func TestClearMapsTheTable(t *testing.T) {
	s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: 16, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	addr := uintptr(unsafe.Pointer(&s.t.slots[0]))
	if kb := residentKB(t, addr); kb >= 16*1024 {
		t.Skipf("a new table's mapping is already resident (%d KiB): merged with an earlier test's", kb)
	}
	// The first position of Pons' Middle-Easy set (Test_L2_R1: score 4).
	var moves []int
	for _, c := range "5554224333234511764415115" {
		moves = append(moves, int(c-'1'))
	}
	pos, err := s.Play(moves)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := s.Solve(context.Background(), pos, false)
	if err != nil {
		t.Fatal(err)
	}
	s.Clear()
	// The kernel may merge the table's mapping with another table's of an
	// earlier test: what counts is that all 16 MiB are resident.
	if kb := residentKB(t, addr); kb < 16*1024 {
		t.Errorf("the table's mapping after Clear: %d KiB resident; want all 16384 KiB", kb)
	}
	again, err := s.Solve(context.Background(), pos, false)
	if err != nil {
		t.Fatal(err)
	}
	if again != fresh {
		t.Errorf("after Clear: %+v; a new Solver gave %+v", again, fresh)
	}
}
