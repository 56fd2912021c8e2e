package ai

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
)

// BenchmarkSolvePons solves the first 20 positions of each Pons set from an
// empty table each time (his protocol) and reports nodes and time per
// position. "connectn solve" gives the same figures on whole sets.
func BenchmarkSolvePons(b *testing.B) {
	for _, set := range ponsSets[:5] {
		b.Run(set, func(b *testing.B) {
			cases := readPons(b, set, 20)
			s, err := NewSolver(6, 7, 4, SolverOptions{Workers: 1})
			if err != nil {
				b.Fatal(err)
			}
			var nodes uint64
			var spent time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, c := range cases {
					pos, _ := s.Play(c.moves)
					s.Reset()
					start := time.Now()
					r, err := s.Solve(context.Background(), pos, false)
					spent += time.Since(start)
					if err != nil || r.Score != c.score {
						b.Fatalf("line %d: %v %v", c.line, r, err)
					}
					nodes += r.Nodes
				}
			}
			n := float64(b.N * len(cases))
			b.ReportMetric(float64(nodes)/n, "nodes/position")
			b.ReportMetric(float64(spent.Microseconds())/n, "µs/position")
		})
	}
}

// BenchmarkMove times one move of each level on several boards.
func BenchmarkMove(b *testing.B) {
	e := NewEngine(Options{})
	for _, cfg := range []game.Config{
		{Rows: 6, Columns: 7, Connect: 4, Wins: 1},
		{Rows: 12, Columns: 12, Connect: 5, Wins: 1},
	} {
		m, _ := game.NewMatch(cfg)
		for _, c := range []int{3, 3, 2, 4} {
			m.Play(m.ToMove(), c)
		}
		for _, level := range Levels() {
			b.Run(fmt.Sprintf("%dx%d/%s", cfg.Rows, cfg.Columns, level), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ctx, cancel := context.WithTimeout(context.Background(), time.Second)
					if _, err := e.Move(ctx, m, level); err != nil {
						b.Fatal(err)
					}
					cancel()
				}
			})
		}
	}
}

// BenchmarkProbeOrder solves the first 20 positions of Pons' sets (10 of
// Begin-Hard, the slowest) strongly
// with one worker, an empty 64 MiB table each, with each sequence of null
// windows (probes.med; probeBy): the default, Pons' bisection throughout,
// and c4's (0 first, then next to the bound). It reports interior nodes
// (c4's count) and probes per position; the counts do not depend on the
// machine. docs/ai.md, "The strong solve's probes", has the figures:
//
//	go test -run '^$' -bench ProbeOrder -benchtime 1x ./game/ai
func BenchmarkProbeOrder(b *testing.B) {
	for _, set := range ponsSets {
		n := 20
		if set == "Test_L1_R3" {
			n = 10
		}
		cases := readPons(b, set, n)
		for _, order := range []struct {
			name string
			by   int
		}{{"default", 0}, {"pons", 1}, {"c4", 2}} {
			b.Run(set+"/"+order.name, func(b *testing.B) {
				s, err := NewSolver(6, 7, 4, SolverOptions{Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				probeBy = order.by
				probes := 0
				probeTrace = func(int, int, uint64, bool) { probes++ }
				defer func() { probeBy, probeTrace = 0, nil }()
				var interior uint64
				for i := 0; i < b.N; i++ {
					for _, c := range cases {
						pos, _ := s.Play(c.moves)
						s.Reset()
						r, err := s.Solve(context.Background(), pos, false)
						if err != nil || r.Score != c.score {
							b.Fatalf("line %d: %v %v", c.line, r, err)
						}
						interior += r.Interior
					}
				}
				n := float64(b.N * len(cases))
				b.ReportMetric(float64(interior)/n, "interior/position")
				b.ReportMetric(float64(probes)/n, "probes/position")
			})
		}
	}
}

// BenchmarkProbes solves strongly, with one worker (CONNECTN_PROBES_WORKERS
// for more) and an empty table of CONNECTN_PROBES_MB MiB (64 by default),
// the 7x6 positions listed in CONNECTN_PROBES (comma-separated, columns
// from 1, "-" for the empty board), and logs each null-window probe: its
// window (med, med+1), its result, the main worker's interior nodes in it,
// the time since the solve began when it ended and, with helpers, "by a
// helper" when a helper settled it first. Without CONNECTN_PROBES it solves
// 4444 (about 30 million interior nodes: seconds); CONNECTN_PROBES_WEAK=1
// solves weakly instead; CONNECTN_PROBES_ROOTS=1 also logs when each worker
// begins and ends each root move (rootTrace) and takes each probe, and
// CONNECTN_PROBES_DELAY=seq:ms holds the helpers back ms milliseconds at
// the start of probe seq (helperHook). The empty board, as docs/ai.md
// gives it:
//
//	CONNECTN_PROBES=- CONNECTN_PROBES_MB=1024 go test -run '^$' -bench 'Probes$' -benchtime 1x -v ./game/ai
func BenchmarkProbes(b *testing.B) {
	list, mb, weak := "4444", 64, os.Getenv("CONNECTN_PROBES_WEAK") == "1"
	if e := os.Getenv("CONNECTN_PROBES"); e != "" {
		list = e
	}
	if e := os.Getenv("CONNECTN_PROBES_MB"); e != "" {
		if _, err := fmt.Sscan(e, &mb); err != nil {
			b.Fatalf("CONNECTN_PROBES_MB=%q: %v", e, err)
		}
	}
	workers := 1
	if e := os.Getenv("CONNECTN_PROBES_WORKERS"); e != "" {
		if _, err := fmt.Sscan(e, &workers); err != nil || workers < 1 {
			b.Fatalf("CONNECTN_PROBES_WORKERS=%q: want a number of workers from 1", e)
		}
	}
	s, err := NewSolver(6, 7, 4, SolverOptions{Workers: workers, TableMB: mb})
	if err != nil {
		b.Fatal(err)
	}
	s.Clear() // the table's memory mapped before any clock starts
	defer func() { probeTrace = nil }()
	for i := 0; i < b.N; i++ {
		for _, text := range strings.Split(list, ",") {
			var moves []int
			for _, ch := range strings.TrimPrefix(text, "-") {
				moves = append(moves, int(ch-'1'))
			}
			pos, err := s.Play(moves)
			if err != nil {
				b.Fatalf("%q: %v", text, err)
			}
			var (
				trace []string
				start time.Time
			)
			probeTrace = func(med, r int, n uint64, byHelper bool) {
				by := ""
				if byHelper {
					by = " by a helper"
				}
				trace = append(trace, fmt.Sprintf("(%d,%d) -> %d: %d at %v%s", med, med+1, r, n,
					time.Since(start).Round(time.Millisecond), by))
			}
			var (
				mu    sync.Mutex
				roots []string
			)
			if os.Getenv("CONNECTN_PROBES_ROOTS") == "1" {
				rootTrace = func(variant, column int, done bool, score int, nodes uint64) {
					mu.Lock()
					defer mu.Unlock()
					ev := "begins"
					if done {
						ev = fmt.Sprintf("done %d", score)
					}
					roots = append(roots, fmt.Sprintf("%v w%d col %d %s (%d nodes)", time.Since(start).Round(time.Millisecond), variant, column+1, ev, nodes))
				}
				helperHook = func(variant, seq int) {
					mu.Lock()
					defer mu.Unlock()
					roots = append(roots, fmt.Sprintf("%v w%d takes probe %d", time.Since(start).Round(time.Millisecond), variant, seq))
				}
				defer func() { rootTrace, helperHook = nil, nil }()
			}
			if e := os.Getenv("CONNECTN_PROBES_DELAY"); e != "" {
				// seq:ms — helpers begin probe seq ms late.
				var seq, ms int
				if _, err := fmt.Sscanf(e, "%d:%d", &seq, &ms); err != nil {
					b.Fatalf("CONNECTN_PROBES_DELAY=%q: want seq:ms", e)
				}
				log := helperHook
				helperHook = func(variant, sq int) {
					if sq == seq {
						time.Sleep(time.Duration(ms) * time.Millisecond)
					}
					if log != nil {
						log(variant, sq)
					}
				}
				defer func() { helperHook = nil }()
			}
			s.Reset()
			start = time.Now()
			r, err := s.Solve(context.Background(), pos, weak)
			if err != nil {
				b.Fatalf("%q: %v", text, err)
			}
			b.Logf("%q: score %d, %d interior nodes (%d calls), %v; probes %s", text, r.Score, r.Interior, r.Nodes, time.Since(start).Round(time.Millisecond), strings.Join(trace, ", "))
			if len(roots) > 0 {
				b.Logf("root moves:\n%s", strings.Join(roots, "\n"))
			}
		}
	}
}

// ideaSwitches are the switches of tuning.go that BenchmarkIdea weighs, by
// name: each turns one idea off when true (mulhash: the table's slot by a
// product's top bits, turned off by Pons' modulo).
var ideaSwitches = map[string]*bool{
	"claimeven":  &noClaimeven,
	"wintwo":     &noWinTwo,
	"forced":     &noForced,
	"oddthreats": &noOddThreats,
	"mulhash":    &tableModulo,
	"winnow":     &noWinNow,
	"childce":    &noChildClaimeven,
	"winthree":   &noWinThree,
	"etcforced":  &noETCForced,
}

// BenchmarkIdea weighs one idea of the solver (CONNECTN_IDEA, a name of
// ideaSwitches, or several comma-separated together; claimeven by default):
// it solves the first CONNECTN_IDEA_N positions (20 by default) of each of
// Pons' sets in CONNECTN_IDEA_SETS (comma-separated; Test_L1_R2 by default)
// strongly, one worker, an empty 64 MiB table each, with the idea and
// without it, alternating position by position so that the machine's load
// weighs on both alike. It reports the interior nodes of each per position
// and the processor time without the idea over the time with it (above 1:
// the idea pays). docs/ai.md, "What each idea pays":
//
//	CONNECTN_IDEA=claimeven go test -run '^$' -bench Idea -benchtime 1x ./game/ai
func BenchmarkIdea(b *testing.B) {
	name, sets, n := "claimeven", "Test_L1_R2", 20
	if e := os.Getenv("CONNECTN_IDEA"); e != "" {
		name = e
	}
	if e := os.Getenv("CONNECTN_IDEA_SETS"); e != "" {
		sets = e
	}
	if e := os.Getenv("CONNECTN_IDEA_N"); e != "" {
		if _, err := fmt.Sscan(e, &n); err != nil {
			b.Fatalf("CONNECTN_IDEA_N=%q: %v", e, err)
		}
	}
	// Several names, comma-separated, weigh those ideas together.
	var offs []*bool
	for _, n := range strings.Split(name, ",") {
		p := ideaSwitches[n]
		if p == nil {
			b.Fatalf("CONNECTN_IDEA=%q: %q is not a switch", name, n)
		}
		offs = append(offs, p)
	}
	setOff := func(v bool) {
		for _, p := range offs {
			*p = v
		}
	}
	for _, set := range strings.Split(sets, ",") {
		cases := readPons(b, set, n)
		b.Run(set+"/"+name, func(b *testing.B) {
			// A solver for each, made with the switch as it searches (the
			// table's hash is chosen when it is made).
			var solvers [2]*Solver
			defer setOff(false)
			for k := range solvers {
				setOff(k == 1)
				s, err := NewSolver(6, 7, 4, SolverOptions{Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				solvers[k] = s
			}
			var interior [2]uint64
			var spent [2]time.Duration
			for i := 0; i < b.N; i++ {
				for _, c := range cases {
					for k, without := range []bool{false, true} {
						setOff(without)
						s := solvers[k]
						pos, _ := s.Play(c.moves)
						s.Reset()
						start := cpuTime()
						r, err := s.Solve(context.Background(), pos, false)
						spent[k] += cpuTime() - start
						if err != nil || r.Score != c.score {
							b.Fatalf("line %d, without %s %v: %v %v", c.line, name, without, r, err)
						}
						interior[k] += r.Interior
					}
				}
			}
			per := float64(b.N * len(cases))
			b.ReportMetric(float64(interior[0])/per, "interior/position")
			b.ReportMetric(float64(interior[1])/per, "interior-without/position")
			b.ReportMetric(float64(spent[0].Microseconds())/per, "µs/position")
			b.ReportMetric(float64(spent[1])/float64(spent[0]), "time-without/time")
		})
	}
}

// cpuTime returns the processor time the process has used (user and
// system): with one worker, the search's own, whatever else the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
