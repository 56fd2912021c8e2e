package ai

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
)

// TestEvaluate values each column of positions whose values are known,
// and checks that the best column's value is the position's own.
func TestEvaluate(t *testing.T) {
	e := NewEngine(Options{TableMB: 4, Workers: 1})
	t.Run("6x7", func(t *testing.T) {
		if raceEnabled {
			// Eight full solves of 6x7 positions take seconds, and minutes
			// under the race detector; go test without -race runs them.
			t.Skip("-race: the 6x7 solves run without the race detector")
		}
		std := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
		// x in columns 1, 2, 3 (from 0: 0, 1, 2) with o on top of them: x to
		// move wins at once in column 4 (from 0: 3); every other move lets o
		// block, and x still wins later or not: only column 4 is "win in 1".
		moves := []int{0, 0, 1, 1, 2, 2}
		vals, err := e.Evaluate(t.Context(), std, moves)
		if err != nil {
			t.Fatal(err)
		}
		if v := vals[3]; !v.Settled || v.Score <= 0 || v.In != 1 {
			t.Errorf("column 4 = %+v, want a win in 1", v)
		}
		// o's turn after x plays elsewhere: o must block in column 4; a move
		// that does not loses at x's next disc.
		vals, err = e.Evaluate(t.Context(), std, append(moves, 6))
		if err != nil {
			t.Fatal(err)
		}
		for c, v := range vals {
			if !v.Settled {
				t.Fatalf("column %d unsettled on a position this simple", c+1)
			}
			if c != 3 && (v.Score >= 0 || v.In != 1) {
				t.Errorf("column %d = %+v, want a loss in 1 (x wins at their next disc)", c+1, v)
			}
		}
	})

	// On a small board every column settles; the best equals the solver's
	// value of the position.
	t.Run("4x5", func(t *testing.T) {
		small := game.Config{Rows: 4, Columns: 5, Connect: 3, Wins: 1}
		vals, err := e.Evaluate(t.Context(), small, []int{2})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := NewSolver(4, 5, 3, SolverOptions{})
		pos, _ := s.Play([]int{2})
		want, _ := s.Solve(t.Context(), pos, false)
		best := -1 << 30
		for _, v := range vals {
			if !v.Settled || !v.Legal {
				t.Fatalf("%+v: every column of a 4x5 board settles", v)
			}
			best = max(best, v.Score)
		}
		if best != want.Score {
			t.Errorf("best column scores %d, the solver values the position %d", best, want.Score)
		}
	})
}

// TestEvaluateRefuses names the first move that cannot be played, and
// leaves a board too large for the solver unsettled.
func TestEvaluateRefuses(t *testing.T) {
	e := NewEngine(Options{TableMB: 4, Workers: 1})
	std := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	for _, tt := range []struct {
		name  string
		moves []int
		want  string
	}{
		{"off the board", []int{3, 7}, "move 2, column 8"},
		{"a full column", []int{0, 0, 0, 0, 0, 0, 0}, "move 7, column 1"},
		{"after a line", []int{0, 1, 0, 1, 0, 1, 0, 2}, "move 8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Evaluate(t.Context(), std, tt.moves)
			if !errors.Is(err, ErrInvalidMoves) || !contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrInvalidMoves naming %q", err, tt.want)
			}
		})
	}
	big := game.Config{Rows: 12, Columns: 12, Connect: 4, Wins: 1}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	vals, err := e.Evaluate(ctx, big, []int{5, 6})
	if !errors.Is(err, ErrBoardTooLarge) || len(vals) != 12 {
		t.Fatalf("12x12: %v, %d values", err, len(vals))
	}
	for _, v := range vals {
		if !v.Legal || v.Settled {
			t.Errorf("12x12 column %d = %+v, want legal and unsettled", v.Column+1, v)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestSolveReporting: a long search reports its window, nodes and time
// about every second; the report's window always holds the score found.
func TestSolveReporting(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a solve of several seconds")
	}
	s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := s.Play([]int{3, 3, 3, 3, 2, 4}) // a position that takes seconds without a book
	var reports []Progress
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
	defer cancel()
	res, err := s.SolveReporting(ctx, pos, false, func(p Progress) { reports = append(reports, p) })
	if len(reports) == 0 {
		t.Fatalf("no report in a search of 4 seconds (%v, %v)", res, err)
	}
	for k, p := range reports {
		if p.Lo > p.Hi || p.Nodes == 0 || p.Elapsed < time.Second {
			t.Errorf("report %d = %+v", k, p)
		}
		if k > 0 && (p.Elapsed < reports[k-1].Elapsed || p.Nodes < reports[k-1].Nodes) {
			t.Errorf("report %d went back: %+v after %+v", k, p, reports[k-1])
		}
		if err == nil && (res.Score < p.Lo || res.Score > p.Hi) {
			t.Errorf("report %d window [%d, %d] misses the score %d", k, p.Lo, p.Hi, res.Score)
		}
	}
}
