package ai

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// guardCase is a position with its exact score.
type guardCase struct {
	rows, columns, connect int
	moves                  []int
	score                  int
}

// guardCases returns positions with known exact scores: random positions
// of small boards of even and odd rows, scored by the brute-force
// reference (reference_test.go), and the first positions of Pons' end-game
// set on 7x6 (absent sets skip, or fail under CI, as in pons_test.go).
func guardCases(t *testing.T) []guardCase {
	t.Helper()
	var cases []guardCase
	for _, bd := range []struct{ rows, columns, connect, n int }{
		{4, 5, 4, 60}, {4, 4, 3, 60}, {5, 4, 4, 40},
	} {
		ref := newRef(bd.rows, bd.columns, bd.connect)
		memo := map[uint64]int{}
		rng := rand.New(rand.NewPCG(uint64(bd.rows*100+bd.columns), uint64(bd.connect)))
		for i := 0; i < bd.n; i++ {
			var moves []int
			target := rng.IntN(bd.rows * bd.columns / 2)
			for len(moves) < target {
				var open []int
				for c := 0; c < bd.columns; c++ {
					if ref.heights[c] < ref.rows && !ref.wins(c) {
						open = append(open, c)
					}
				}
				if len(open) == 0 {
					break
				}
				c := open[rng.IntN(len(open))]
				ref.play(c)
				moves = append(moves, c)
			}
			if ref.moves < bd.rows*bd.columns {
				cases = append(cases, guardCase{bd.rows, bd.columns, bd.connect, moves, ref.score(memo)})
			}
			for i := len(moves) - 1; i >= 0; i-- {
				ref.undo(moves[i])
			}
		}
	}
	for _, c := range readPons(t, "Test_L3_R1", 40) {
		cases = append(cases, guardCase{6, 7, 4, c.moves, c.score})
	}
	for _, c := range readPons(t, "Test_L2_R1", 10) {
		cases = append(cases, guardCase{6, 7, 4, c.moves, c.score})
	}
	return cases
}

// wrongScores solves every case with a fresh solver per board (one worker,
// the smallest table) and returns how many scores differ from the known
// ones, and the first difference.
func wrongScores(t *testing.T, cases []guardCase) (int, string) {
	t.Helper()
	solvers := map[[3]int]*Solver{}
	wrong, first := 0, ""
	for _, c := range cases {
		k := [3]int{c.rows, c.columns, c.connect}
		s := solvers[k]
		if s == nil {
			var err error
			if s, err = NewSolver(c.rows, c.columns, c.connect, SolverOptions{TableMB: 4, Workers: 1}); err != nil {
				t.Fatal(err)
			}
			solvers[k] = s
		}
		pos, err := s.Play(c.moves)
		if err != nil {
			t.Fatalf("%v: %v", c.moves, err)
		}
		s.Reset()
		got, err := s.Solve(context.Background(), pos, false)
		if err != nil {
			t.Fatalf("%v: %v", c.moves, err)
		}
		if got.Score != c.score {
			if wrong == 0 {
				first = fmt.Sprintf("%dx%d connect %d, moves %v: score %d, want %d", c.rows, c.columns, c.connect, c.moves, got.Score, c.score)
			}
			wrong++
		}
	}
	return wrong, first
}

// TestPruningGuards checks that the exactness tests can see every pruning
// rule of the solver go wrong: each fault knob removes one rule's guard
// (solver.go), and the positions of guardCases must then get a wrong score;
// with no fault, none.
func TestPruningGuards(t *testing.T) {
	if raceEnabled {
		t.Skip("race detector on: the plain run checks the guards")
	}
	// The small boards' searches are over before a worker would begin
	// looking children up (etcAfter): look them up from the first node,
	// so that the cutoff's guard is tested.
	defer func(n uint64) { etcAfter = n }(etcAfter)
	etcAfter = 0
	start := time.Now()
	cases := guardCases(t)
	t.Logf("cases in %v", time.Since(start))
	if wrong, first := wrongScores(t, cases); wrong != 0 {
		t.Fatalf("no fault: %d of %d scores wrong, first %s", wrong, len(cases), first)
	}
	for _, f := range []struct {
		name  string
		fault uint32
	}{
		{"lower bound", faultLower},
		{"upper bound", faultUpper},
		{"draw bound", faultDraw},
		{"claimeven line check", faultClaimeven},
		{"claimeven parity", faultParity},
		{"table bounds", faultTable},
		{"enhanced transposition cutoff", faultETC},
		{"forced block", faultBlock},
		{"win in two discs", faultWinTwo},
		{"win with the next disc but one", faultWinNow},
		{"claimeven on children, parity", faultChildParity},
		{"win with the third disc", faultWinThree},
		{"enhanced transposition cutoff through a forced reply", faultETCForced},
	} {
		t.Run(f.name, func(t *testing.T) {
			faults = f.fault
			defer func() { faults = 0 }()
			wrong, first := wrongScores(t, cases)
			if wrong == 0 {
				t.Errorf("with the guard of the %s removed, all %d scores are still right: the tests cannot see this rule go wrong", f.name, len(cases))
			}
			t.Logf("%d of %d scores wrong, first %s", wrong, len(cases), first)
		})
	}
}

// TestManyWorkers solves positions with four workers that all join at
// once: the helpers share the table and must not change a score, and a
// helper's result may end only the probe it belongs to (probeBoard.post's
// check of the probe's number: without it, scores go wrong here).
func TestManyWorkers(t *testing.T) {
	s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: 16, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if s.workers != 4 {
		t.Fatalf("workers %d, want 4", s.workers)
	}
	s.helperAfter = 1
	n := 10
	if raceEnabled {
		n = 3
	}
	for _, c := range readPons(t, "Test_L2_R2", n) {
		pos, err := s.Play(c.moves)
		if err != nil {
			t.Fatal(err)
		}
		s.Reset()
		got, err := s.Solve(context.Background(), pos, false)
		if err != nil {
			t.Fatal(err)
		}
		if got.Score != c.score {
			t.Errorf("line %d %s: score %d with 4 workers, want %d", c.line, c.text, got.Score, c.score)
		}
		if got.Interior == 0 || got.Nodes < got.Interior {
			t.Errorf("line %d: %d nodes, %d interior: want 0 < interior <= nodes", c.line, got.Nodes, got.Interior)
		}
	}
}

// TestHelperLeavesNoHint: a helper that puts another move first near the
// root (here the replies to the root's move 3, in a null window far below
// their score, where every move cuts) keeps in the table, as the position's
// best move, the one the main worker would (the common order's first), so
// that the order of the next probe does not depend on which worker stored
// the entry last (docs/ai.md, "Workers"); with helperHints it keeps its own.
func TestHelperLeavesNoHint(t *testing.T) {
	defer func() { helperHints = false }()
	s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.g.replay([]int{2})
	if err != nil {
		t.Fatal(err)
	}
	hint := func(variant int, hints bool) int {
		helperHints = hints
		s.Reset()
		w := &searcher{g: s.g, t: s.t, near: s.near, nearMost: nearReach(s.t), stop: new(atomic.Bool), variant: variant, allParity: 1}
		if r := w.negamax(p, -11, -10, s.g.winning(p.cur^p.mask, p.mask)); r < -10 {
			t.Fatalf("variant %d: %d in the window (-11,-10): want a cut", variant, r)
		}
		_, _, c, ok := s.t.get(p.canonicalKey(), s.g.salt)
		if !ok {
			t.Fatalf("variant %d: no entry", variant)
		}
		if p.mcur+p.mmask < p.cur+p.mask && c >= 0 {
			c = s.g.columns - 1 - c
		}
		return c
	}
	main := hint(0, false)
	if main < 0 {
		t.Fatal("the main worker kept no best move")
	}
	if got := hint(1, false); got != main {
		t.Errorf("a helper kept column %d as the best move; the main worker keeps %d", got+1, main+1)
	}
	if got := hint(1, true); got == main {
		t.Errorf("with helperHints, a helper kept column %d, the main worker's: the test does not see the helper's order", got+1)
	}
}
