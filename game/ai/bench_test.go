package ai

import (
	"context"
	"fmt"
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
