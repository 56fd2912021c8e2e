package ai

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ponsDir is Pascal Pons' test sets, read from the shared folder beside the
// repository (never copied into it).
var ponsDir = filepath.Join("..", "..", "..", "shared", "testdata", "pons")

var ponsSets = []string{"Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3"}

type ponsCase struct {
	line  int
	moves []int
	text  string
	score int
}

// readPons reads up to limit positions (all when limit <= 0) of one set.
// When the set is absent it skips the test, saying so, or fails it under
// CI (the CI environment variable true, as CI services and .ci/run set it),
// so that CI never passes with every set skipped.
func readPons(tb testing.TB, set string, limit int) []ponsCase {
	tb.Helper()
	f, err := os.Open(filepath.Join(ponsDir, set))
	if os.IsNotExist(err) {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			tb.Fatalf("Pons' test set %s is absent (%s) and CI=true: CI must check it; put Pascal Pons' test sets in ../shared/testdata/pons beside the repository", set, ponsDir)
		}
		tb.Skipf("Pons' test sets are absent (%s): skipping; they live in ../shared/testdata/pons beside the repository (under CI=true this fails)", ponsDir)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []ponsCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan() && (limit <= 0 || len(cases) < limit); line++ {
		text, scoreText, ok := strings.Cut(sc.Text(), " ")
		score, err := strconv.Atoi(scoreText)
		if !ok || err != nil {
			tb.Fatalf("%s line %d: %q is not \"moves score\"", set, line, sc.Text())
		}
		c := ponsCase{line: line, text: text, score: score}
		for _, ch := range text {
			c.moves = append(c.moves, int(ch-'1'))
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return cases
}

// TestPons requires the exact score and a playable best column for the
// first ponsLimit(set) positions of every set: 100 in a plain run (10 of
// the slowest set, or CONNECTN_PONS of them: CI sets 16; see
// pons_norace_test.go), fewer under the race detector (see
// pons_race_test.go); CONNECTN_PONS_FULL=1 checks all 6,000.
func TestPons(t *testing.T) {
	t.Parallel() // beside TestSolverAgainstBruteForce (see there)
	full := os.Getenv("CONNECTN_PONS_FULL") == "1"
	workers := ponsWorkers(t)
	solvers := make([]*Solver, workers)
	for w := range solvers {
		s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: 64})
		if err != nil {
			t.Fatal(err)
		}
		solvers[w] = s
	}
	for _, set := range ponsSets {
		t.Run(set, func(t *testing.T) {
			limit := ponsLimit(set)
			if full {
				limit = 0
			} else if limit == 0 {
				t.Skipf("race detector on: %s is too slow under it; the plain run (go test ./game/ai) checks it: the first 100 positions of Test_L1_R2, 10 of Test_L1_R3 (16 in CI)", set)
			} else if raceEnabled {
				t.Logf("race detector on: checking the first %d positions of %s (100 in the plain run)", limit, set)
			} else if limit < 100 {
				t.Logf("checking the first %d positions of %s; CONNECTN_PONS=100 checks 100 (CI checks 16)", limit, set)
			}
			cases := readPons(t, set, limit)
			start := time.Now()
			// The positions are shared out among the workers, each with a
			// solver (and transposition table) of its own; every
			// position's outcome is checked here, in the file's order.
			type result struct {
				got  Result
				err  error
				took time.Duration
			}
			results := make([]result, len(cases))
			next := make(chan int)
			var wg sync.WaitGroup
			for _, s := range solvers {
				wg.Go(func() {
					for k := range next {
						c := cases[k]
						began := time.Now()
						pos, err := s.Play(c.moves)
						if err == nil {
							results[k].got, err = s.Solve(context.Background(), pos, false)
							if err == nil && (results[k].got.Column < 0 || !s.g.canPlay(&pos.p, results[k].got.Column)) {
								err = fmt.Errorf("best column %d is not playable", results[k].got.Column)
							}
						}
						results[k].err, results[k].took = err, time.Since(began)
					}
				})
			}
			for k := range cases {
				next <- k
			}
			close(next)
			wg.Wait()
			var nodes uint64
			var solving time.Duration
			for k, c := range cases {
				r := results[k]
				if r.err != nil {
					t.Fatalf("line %d %s: %v", c.line, c.text, r.err)
				}
				if r.got.Score != c.score {
					t.Errorf("line %d %s: score %d, want %d", c.line, c.text, r.got.Score, c.score)
				}
				nodes += r.got.Nodes
				solving += r.took
			}
			t.Logf("%d positions in %v on %d workers (%v of solving in all), %d nodes (%s)", len(cases),
				time.Since(start).Round(time.Millisecond), workers, solving.Round(time.Millisecond), nodes, runtime.Version())
		})
	}
}

// ponsWorkers is how many positions TestPons solves at once: the
// CONNECTN_PONS_WORKERS environment variable (1 measures one solver alone,
// as the figures in the closing notes were taken), else one per processor.
func ponsWorkers(t *testing.T) int {
	v := os.Getenv("CONNECTN_PONS_WORKERS")
	if v == "" {
		return runtime.GOMAXPROCS(0)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 64 {
		t.Fatalf("CONNECTN_PONS_WORKERS=%q: want a number of workers from 1 to 64", v)
	}
	return n
}

// TestPonsWeak checks the weak solver (win, draw or loss) on the first
// positions of every set.
func TestPonsWeak(t *testing.T) {
	s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range ponsSets {
		n := ponsLimit(set) / 4
		if n == 0 || set == "Test_L1_R3" {
			continue // the slowest set; TestPons covers it
		}
		for _, c := range readPons(t, set, n) {
			pos, err := s.Play(c.moves)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Solve(context.Background(), pos, true)
			if err != nil {
				t.Fatal(err)
			}
			if got.Score != sign(c.score) {
				t.Errorf("%s line %d %s: weak score %d, want %d", set, c.line, c.text, got.Score, sign(c.score))
			}
		}
	}
}

// TestPonsAbsent runs TestPonsWeak again in a folder where Pons' sets are
// absent: it must skip, saying why, and fail under CI=true.
func TestPonsAbsent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	dir := filepath.Join(t.TempDir(), "a", "b", "c") // ponsDir is three folders up, then shared/...
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{ci: "", want: "--- SKIP: TestPonsWeak"},
		{ci: "false", want: "--- SKIP: TestPonsWeak"},
		{ci: "true", wantFail: true, want: "is absent (../../../shared/testdata/pons) and CI=true"},
	}
	for _, tt := range tests {
		t.Run("CI="+tt.ci, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPonsWeak$", "-test.v", "-test.count=1")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "CI="+tt.ci)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tt.wantFail {
				t.Errorf("TestPonsWeak without the sets, CI=%q: failed %t (%v), want %t; output:\n%s", tt.ci, failed, err, tt.wantFail, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("TestPonsWeak without the sets, CI=%q: output lacks %q:\n%s", tt.ci, tt.want, out)
			}
		})
	}
}
