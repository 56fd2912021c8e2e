package ai

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
)

// randomPositions returns n positions of cfg (moves from the empty board)
// where the game is not over, at random depths.
func randomPositions(cfg game.Config, n int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, uint64(cfg.Rows*cfg.Columns)))
	var out [][]int
	for len(out) < n {
		m, _ := game.NewMatch(cfg)
		stop := rng.IntN(cfg.Rows * cfg.Columns)
		for m.Plies() < stop && !m.Over() {
			var open []int
			for c := 0; c < cfg.Columns; c++ {
				if m.Round().CanDrop(c) {
					open = append(open, c)
				}
			}
			m.Play(m.ToMove(), open[rng.IntN(len(open))])
		}
		if !m.Over() {
			out = append(out, m.Round().Moves())
		}
	}
	return out
}

// TestColumnVerdictsAsEvaluate: given all the time it needs, ColumnVerdicts
// settles every column exactly, as Evaluate does, and PositionVerdict
// gives the best of them, as the brute-force reference scores the
// position.
func TestColumnVerdictsAsEvaluate(t *testing.T) {
	e := NewEngine(Options{TableMB: 4})
	for _, cfg := range []game.Config{
		{Rows: 4, Columns: 5, Connect: 3, Wins: 1},
		{Rows: 5, Columns: 4, Connect: 4, Wins: 1},
	} {
		memo := map[uint64]int{}
		for _, moves := range randomPositions(cfg, 40, 7) {
			vals, err := e.Evaluate(context.Background(), cfg, moves)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.ColumnVerdicts(context.Background(), cfg, moves)
			if err != nil {
				t.Fatal(err)
			}
			for c, v := range vals {
				want := Verdict{Column: c, Legal: v.Legal}
				if v.Legal {
					want.Outcome, want.In, want.Exact = outcomeOf(v.Score), v.In, true
				}
				g := got[c]
				g.Instant = false
				if g != want {
					t.Errorf("%dx%d %v column %d: got %+v, want %+v", cfg.Rows, cfg.Columns, moves, c+1, got[c], want)
				}
			}
			ref := newRef(cfg.Rows, cfg.Columns, cfg.Connect)
			for _, c := range moves {
				ref.play(c)
			}
			score := ref.score(memo)
			pv, err := e.PositionVerdict(context.Background(), cfg, moves)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := newGeometry(cfg.Rows, cfg.Columns, cfg.Connect)
			want := Verdict{Column: -1, Legal: true, Outcome: outcomeOf(score), In: g.discsTo(len(moves), score), Exact: true}
			pv.Instant = false
			if pv != want {
				t.Errorf("%dx%d %v position: got %+v, want %+v (score %d)", cfg.Rows, cfg.Columns, moves, pv, want, score)
			}
		}
	}
}

// endedContext returns a context that has already ended.
func endedContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestVerdictsDoNotWaitForTheSolver: what is known at once is answered
// with a context that has already ended and with every worker of the
// engine busy, so nothing is searched: the table of weak results and the
// book answer every column of /connectn help's example 4453, and a
// column that wins at once is the position's verdict though the others
// are not settled (the replay step after 121213).
func TestVerdictsDoNotWaitForTheSolver(t *testing.T) {
	e := NewEngine(Options{TableMB: 4, Workers: 1})
	e.pool <- struct{}{} // the only worker is busy
	defer func() { <-e.pool }()
	std := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	for _, ctx := range []context.Context{endedContext(), context.Background()} {
		// With the pool full a live context would wait for a worker: bound it.
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		vals, err := e.ColumnVerdicts(ctx, std, digits("4453"))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if v.Outcome == Unknown || !v.Instant {
				t.Errorf("4453 column %d: %+v, want an outcome known at once", v.Column+1, v)
			}
		}
	}
	v, err := e.PositionVerdict(endedContext(), std, digits("121213"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Verdict{Column: -1, Legal: true, Outcome: Win, In: 1, Exact: true, Instant: true}); v != want {
		t.Errorf("121213: %+v, want %+v", v, want)
	}
	// The first discs of a match: every position of up to 3 discs.
	g, _ := newGeometry(6, 7, 4)
	for _, layer := range weakLayers(g, 3) {
		for _, n := range layer {
			v, err := e.PositionVerdict(endedContext(), std, n.moves)
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome == Unknown || !v.Instant {
				t.Errorf("%s: %+v, want an outcome known at once", movesString(n.moves), v)
			}
		}
	}
}

// TestWeakTableExact checks the embedded table of weak results: each
// entry agrees with Pascal Pons' exact scores of the positions of his
// beginning sets it holds, with the opening book, with the results of the
// positions one disc deeper it holds (negamax), and, for a sample, with
// the solver.
func TestWeakTableExact(t *testing.T) {
	w := embeddedWeak()
	g := w.g
	if len(w.values) < 750 {
		t.Fatalf("the table holds %d positions", len(w.values))
	}
	checked := 0
	for _, set := range []string{"Test_L1_R1", "Test_L1_R2", "Test_L1_R3"} {
		for _, c := range readPons(t, set, 0) {
			p, err := g.replay(c.moves)
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := w.lookup(&p); ok {
				checked++
				if v != sign(c.score) {
					t.Errorf("%s line %d %s: table %d, Pons' score %d", set, c.line, c.text, v, c.score)
				}
			}
		}
	}
	t.Logf("%d of Pons' positions checked", checked)
	if checked < 150 {
		t.Errorf("only %d of Pons' positions are in the table", checked)
	}
	for key, e := range embeddedBook().entries {
		if v, ok := w.values[key]; ok && int(v) != int(e.score) {
			t.Errorf("position %#x: table %d, book %d", key, v, e.score)
		}
	}
	values := map[uint64]int{}
	for k, v := range w.values {
		values[k] = int(v)
	}
	layers := weakLayers(g, w.plies)
	for _, layer := range layers[:len(layers)-1] {
		for _, n := range layer {
			v, ok := w.lookup(&n.p)
			if !ok {
				continue
			}
			if d, settled := weakNegamax(g, &n.p, values); settled && d != v {
				t.Errorf("%s: table %d, its moves give %d", movesString(n.moves), v, d)
			}
		}
	}
	if testing.Short() {
		return
	}
	// A sample of the deepest entries, solved again: three that the
	// solver settles in 20 seconds each (a cold table, one worker).
	s, _ := NewSolver(6, 7, 4, SolverOptions{Workers: 1})
	deep := layers[len(layers)-1]
	rng := rand.New(rand.NewPCG(1, 2))
	agreed := 0
	for tried := 0; tried < 12 && agreed < 3; {
		n := deep[rng.IntN(len(deep))]
		v, ok := w.lookup(&n.p)
		if !ok {
			continue
		}
		tried++
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r, err := s.Solve(ctx, Position{n.p}, true)
		cancel()
		if err != nil {
			continue
		}
		if r.Score != v {
			t.Errorf("%s: table %d, solver %d", movesString(n.moves), v, r.Score)
		}
		agreed++
	}
	if agreed == 0 {
		t.Error("no deep entry of the table was solved again in time")
	}
}

// TestParseWeakRefuses: a corrupt table is refused, naming the line.
func TestParseWeakRefuses(t *testing.T) {
	for _, text := range []string{"44 2\n", "448 1\n", "1111 1\n4444444 0\n", "44\n"} {
		if _, err := parseWeak(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("%q: error %v", text, err)
		}
	}
}

// TestSolveBoundsHoldTheScore: stopped at any time, SolveBounds returns
// bounds that hold the exact score, and given the time it settles it.
func TestSolveBoundsHoldTheScore(t *testing.T) {
	s, _ := NewSolver(6, 7, 4, SolverOptions{TableMB: 16, Workers: 1})
	for _, c := range readPons(t, "Test_L2_R1", 6) {
		pos, err := s.Play(c.moves)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
			s.Reset()
			ctx, cancel := context.WithTimeout(context.Background(), d)
			b, err := s.SolveBounds(ctx, pos, -21, 21)
			cancel()
			if b.Lo > c.score || b.Hi < c.score || (err == nil && !b.Exact()) {
				t.Errorf("%s after %v: bounds %+v (err %v), score %d", c.text, d, b, err, c.score)
			}
		}
		b, err := s.SolveBounds(context.Background(), pos, -21, 21)
		if err != nil || !b.Exact() || b.Lo != c.score {
			t.Errorf("%s: bounds %+v, err %v, want %d", c.text, b, err, c.score)
		}
		if w := sign(c.score); w != 0 {
			lo, hi := 1, 21
			if w < 0 {
				lo, hi = -21, -1
			}
			if b, err := s.SolveBounds(context.Background(), pos, lo, hi); err != nil || b.Lo != c.score || b.Hi != c.score {
				t.Errorf("%s from its weak result: bounds %+v, err %v, want %d", c.text, b, err, c.score)
			}
		}
	}
}

// TestCombine: the position's verdict from its moves'.
func TestCombine(t *testing.T) {
	win := func(in int, exact bool) Verdict { return Verdict{Legal: true, Outcome: Win, In: in, Exact: exact} }
	loss := func(in int, exact bool) Verdict { return Verdict{Legal: true, Outcome: Loss, In: in, Exact: exact} }
	draw := Verdict{Legal: true, Outcome: Draw, Exact: true}
	unknown := Verdict{Legal: true}
	full := Verdict{}
	for _, tc := range []struct {
		name string
		cols []Verdict
		want Verdict
	}{
		{"a win at once, the rest unknown", []Verdict{unknown, win(1, true), unknown}, Verdict{Outcome: Win, In: 1, Exact: true}},
		{"a win proved, the rest unknown: at most", []Verdict{unknown, win(5, true), unknown}, Verdict{Outcome: Win, In: 5}},
		{"a bound only", []Verdict{win(7, false), loss(2, true)}, Verdict{Outcome: Win, In: 7}},
		{"a win with no distance", []Verdict{win(0, false), unknown}, Verdict{Outcome: Win}},
		{"every move known, the fastest win", []Verdict{win(6, true), win(4, true), draw, full}, Verdict{Outcome: Win, In: 4, Exact: true}},
		{"a draw, the rest lost", []Verdict{loss(3, true), draw, loss(0, false)}, Verdict{Outcome: Draw, Exact: true}},
		{"a draw, one unknown", []Verdict{draw, unknown}, Verdict{}},
		{"every move lost: the slowest", []Verdict{loss(3, true), loss(5, true)}, Verdict{Outcome: Loss, In: 5, Exact: true}},
		{"every move lost, a distance unknown", []Verdict{loss(3, true), loss(0, false)}, Verdict{Outcome: Loss}},
	} {
		got := combine(tc.cols)
		tc.want.Column, tc.want.Legal = -1, true
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
