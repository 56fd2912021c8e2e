package puzzle

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

// testEngine is the engine of the tests that play puzzles.
var testEngine = ai.NewEngine(ai.Options{TableMB: 16})

// starterWhere returns the starter puzzle with the most discs that pred
// accepts (late positions settle fastest), failing the test when none does.
func starterWhere(t *testing.T, pred func(Puzzle) bool) Puzzle {
	t.Helper()
	var best Puzzle
	found := false
	for _, p := range Starter() {
		if pred(p) && (!found || len(p.Moves) > len(best.Moves)) {
			best, found = p, true
		}
	}
	if !found {
		t.Fatal("no starter puzzle fits the test")
	}
	return best
}

// position returns p's moves followed by more.
func position(t *testing.T, p Puzzle, more ...int) []int {
	t.Helper()
	moves, err := p.MoveList()
	if err != nil {
		t.Fatal(err)
	}
	return append(moves, more...)
}

// evaluate values the columns of a position with the test engine, failing
// the test when one is not settled.
func evaluate(t *testing.T, cfg game.Config, moves []int) []ai.ColumnValue {
	t.Helper()
	vals, err := testEngine.Evaluate(context.Background(), cfg, moves)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vals {
		if v.Legal && !v.Settled {
			t.Fatalf("position %s: column %d not settled", game.MovesCode(moves), v.Column+1)
		}
	}
	return vals
}

// assertBest fails unless column c is the best move in the position moves
// reach: the highest score, and the most central of the columns that have
// it (the left one between two).
func assertBest(t *testing.T, cfg game.Config, moves []int, c int, what string) {
	t.Helper()
	vals := evaluate(t, cfg, moves)
	if c < 0 || c >= len(vals) || !vals[c].Legal {
		t.Fatalf("%s: column %d is not legal", what, c+1)
	}
	for _, v := range vals {
		if !v.Legal {
			continue
		}
		if v.Score > vals[c].Score {
			t.Fatalf("%s: column %d scores %d, column %d more (%d)", what, c+1, vals[c].Score, v.Column+1, v.Score)
		}
		if v.Score == vals[c].Score {
			dv, dc := abs(2*v.Column-(cfg.Columns-1)), abs(2*c-(cfg.Columns-1))
			if dv < dc || (dv == dc && v.Column < c) {
				t.Fatalf("%s: column %d ties column %d, which is more central (or left)", what, c+1, v.Column+1)
			}
		}
	}
}

// makesLine reports whether the last of moves completes a line.
func makesLine(t *testing.T, cfg game.Config, moves []int) bool {
	t.Helper()
	b, _, err := replay(cfg, moves[:len(moves)-1])
	if err != nil {
		t.Fatal(err)
	}
	player := game.Player1
	if len(moves)%2 == 0 {
		player = game.Player2
	}
	return wins(b, moves[len(moves)-1], player, cfg.Connect)
}

// TestJudgeWrongFirstMove holds that a first move other than the solution
// ends the attempt, with the opponent's best line against it and the
// solution's line to the win.
func TestJudgeWrongFirstMove(t *testing.T) {
	p := starterWhere(t, func(p Puzzle) bool { return p.Kind == WinIn && p.N == 3 && p.Config == std })
	start := position(t, p)
	b, _, _ := replay(p.Config, start)
	wrong := -1
	for _, c := range centreOrder(p.Config.Columns) {
		if c != p.Solution && b.CanDrop(c) {
			wrong = c
			break
		}
	}
	st, err := Judge(context.Background(), testEngine, p, nil, wrong)
	if err != nil {
		t.Fatal(err)
	}
	if st.Verdict != Wrong || st.Reply != -1 {
		t.Fatalf("verdict %v, reply %d; want wrong, -1", st.Verdict, st.Reply)
	}
	if !(st.Value.Score <= 0 || st.Value.In > p.N) {
		t.Errorf("the wrong move's value %+v keeps a win in %d", st.Value, p.N)
	}
	// The refutation: the opponent's best moves, then the member's, ...
	ref := st.Refutation
	if len(ref.Moves) == 0 || !ref.Complete {
		t.Fatalf("refutation %+v", ref)
	}
	line := append(start, wrong)
	for i, c := range ref.Moves {
		assertBest(t, p.Config, line, c, fmt.Sprintf("refutation move %d", i+1))
		line = append(line, c)
	}
	if st.Value.Score != 0 && len(ref.Moves) < MaxLine && !makesLine(t, p.Config, line) {
		t.Errorf("refutation %v ends before a line is made", ref.Moves)
	}
	// The solution: the puzzle's, to the win in N.
	sol := st.Solution
	if len(sol.Moves) != 2*p.N-1 || sol.Moves[0] != p.Solution || !sol.Complete {
		t.Fatalf("solution %+v, want %d moves from column %d", sol, 2*p.N-1, p.Solution+1)
	}
	if !makesLine(t, p.Config, append(start, sol.Moves...)) {
		t.Errorf("solution %v does not end with the member's line", sol.Moves)
	}
}

// TestJudgeSolvesAWin plays a win in 3 through: each of the member's moves
// the solver's, each reply the longest defence, the last move Solved.
func TestJudgeSolvesAWin(t *testing.T) {
	p := starterWhere(t, func(p Puzzle) bool { return p.Kind == WinIn && p.N == 3 && p.Config == std })
	var attempt []int
	for k := 0; k < p.N; k++ {
		move := p.Solution
		if k > 0 {
			best, err := bestMove(context.Background(), testEngine, p.Config, position(t, p, attempt...))
			if err != nil {
				t.Fatal(err)
			}
			move = best.Column
		}
		st, err := Judge(context.Background(), testEngine, p, attempt, move)
		if err != nil {
			t.Fatal(err)
		}
		if k == p.N-1 {
			if st.Verdict != Solved {
				t.Fatalf("move %d: %v, want solved", k+1, st.Verdict)
			}
			if !makesLine(t, p.Config, position(t, p, append(attempt, move)...)) {
				t.Errorf("solved without a line")
			}
			break
		}
		if st.Verdict != Correct {
			t.Fatalf("move %d: %v, want correct", k+1, st.Verdict)
		}
		after := append(append([]int(nil), attempt...), move)
		assertBest(t, p.Config, position(t, p, after...), st.Reply, "reply")
		attempt = append(after, st.Reply)
	}
	// The attempt is over: a move more is refused.
	if _, err := Judge(context.Background(), testEngine, p, append(attempt, p.Solution, 0), 0); !errors.Is(err, ErrAttemptOver) {
		t.Errorf("a move after the task: %v, want ErrAttemptOver", err)
	}
}

// TestJudgeAcceptsAnotherWin finds a point of a win where two moves keep
// the win within the moves left, and holds that both are correct, as
// lichess accepts another mate; a winning move that needs more moves than
// are left is wrong.
func TestJudgeAcceptsAnotherWin(t *testing.T) {
	ctx := context.Background()
	var tried int
	for _, p := range Starter() {
		if p.Kind != WinIn || p.N < 3 || p.Config != std || len(p.Moves) < 22 {
			continue
		}
		tried++
		st, err := Judge(ctx, testEngine, p, nil, p.Solution)
		if err != nil {
			t.Fatal(err)
		}
		attempt := []int{p.Solution, st.Reply}
		vals := evaluate(t, p.Config, position(t, p, attempt...))
		var keep, slow []int
		for _, v := range vals {
			switch {
			case !v.Legal || v.Score <= 0:
			case v.In <= p.N-1:
				keep = append(keep, v.Column)
			default:
				slow = append(slow, v.Column)
			}
		}
		if len(keep) < 2 || len(slow) == 0 {
			continue
		}
		for _, c := range keep {
			st, err := Judge(ctx, testEngine, p, attempt, c)
			if err != nil {
				t.Fatal(err)
			}
			if st.Verdict != Correct && st.Verdict != Solved {
				t.Errorf("puzzle %s: column %d wins in time, judged %v", p.ID, c+1, st.Verdict)
			}
		}
		st, err = Judge(ctx, testEngine, p, attempt, slow[0])
		if err != nil {
			t.Fatal(err)
		}
		if st.Verdict != Wrong || st.Value.Score <= 0 {
			t.Errorf("puzzle %s: column %d wins too late, judged %v (value %+v)", p.ID, slow[0]+1, st.Verdict, st.Value)
		}
		return
	}
	t.Fatalf("no starter puzzle of %d tried has two wins in time and a slow one at the second move", tried)
}

// TestJudgeOneMoveTasks holds that an only move or a defence is solved by
// its solution alone, and that another move ends the attempt with the
// opponent's line to their win.
func TestJudgeOneMoveTasks(t *testing.T) {
	for _, kind := range []Kind{OnlyMove, Defence} {
		t.Run(kind.String(), func(t *testing.T) {
			p := starterWhere(t, func(p Puzzle) bool { return p.Kind == kind && p.Config == std })
			st, err := Judge(context.Background(), testEngine, p, nil, p.Solution)
			if err != nil || st.Verdict != Solved {
				t.Fatalf("the solution: %+v, %v; want solved", st, err)
			}
			b, _, _ := replay(p.Config, position(t, p))
			for _, c := range centreOrder(p.Config.Columns) {
				if c == p.Solution || !b.CanDrop(c) {
					continue
				}
				st, err := Judge(context.Background(), testEngine, p, nil, c)
				if err != nil {
					t.Fatal(err)
				}
				if st.Verdict != Wrong || st.Value.Score >= 0 {
					t.Fatalf("column %d: %v with value %+v, want wrong and a loss", c+1, st.Verdict, st.Value)
				}
				line := position(t, p, append([]int{c}, st.Refutation.Moves...)...)
				if len(st.Refutation.Moves) < MaxLine && !makesLine(t, p.Config, line) {
					t.Errorf("column %d: refutation %v does not end with the opponent's line", c+1, st.Refutation.Moves)
				}
				if len(st.Refutation.Moves)%2 == 0 {
					t.Errorf("column %d: refutation %v ends with the member's move", c+1, st.Refutation.Moves)
				}
				if got := st.Solution.Moves; len(got) != 1 || got[0] != p.Solution {
					t.Errorf("column %d: solution %v, want [%d]", c+1, got, p.Solution)
				}
			}
		})
	}
}

func TestJudgeRefuses(t *testing.T) {
	p := starterWhere(t, func(p Puzzle) bool { return p.Kind == WinIn && p.N == 3 && p.Config == std })
	b, _, _ := replay(p.Config, position(t, p))
	full := -1
	for c := 0; c < p.Config.Columns; c++ {
		if !b.CanDrop(c) {
			full = c
		}
	}
	bad := p
	bad.Kind = 9
	tests := []struct {
		name    string
		p       Puzzle
		attempt []int
		move    int
		want    error
	}{
		{name: "off the board", p: p, move: 7, want: ErrIllegalMove},
		{name: "negative column", p: p, move: -1, want: ErrIllegalMove},
		{name: "opponent to move", p: p, attempt: []int{p.Solution}, move: 0, want: ErrAttemptOver},
		{name: "after the last move", p: p, attempt: []int{0, 0, 0, 0, 0, 0}, move: 0, want: ErrAttemptOver},
		{name: "an invalid puzzle", p: bad, move: p.Solution, want: ErrInvalidPuzzle},
	}
	if full >= 0 {
		tests = append(tests, struct {
			name    string
			p       Puzzle
			attempt []int
			move    int
			want    error
		}{name: "a full column", p: p, move: full, want: ErrIllegalMove})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Judge(context.Background(), testEngine, tt.p, tt.attempt, tt.move); !errors.Is(err, tt.want) {
				t.Errorf("Judge = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestHintAt holds that the first hint is the solution's area and a later
// one the area of a move that keeps the win in time.
func TestHintAt(t *testing.T) {
	ctx := context.Background()
	p := starterWhere(t, func(p Puzzle) bool { return p.Kind == WinIn && p.N == 3 && p.Config == std })
	h, err := HintAt(ctx, testEngine, p, nil)
	if err != nil || h != p.Hint() || p.Solution < h.First || p.Solution > h.Last {
		t.Fatalf("first hint %+v, %v; solution in column %d", h, err, p.Solution+1)
	}
	st, err := Judge(ctx, testEngine, p, nil, p.Solution)
	if err != nil {
		t.Fatal(err)
	}
	attempt := []int{p.Solution, st.Reply}
	h, err = HintAt(ctx, testEngine, p, attempt)
	if err != nil {
		t.Fatal(err)
	}
	vals := evaluate(t, p.Config, position(t, p, attempt...))
	inArea := false
	for c := h.First; c <= h.Last; c++ {
		inArea = inArea || (vals[c].Legal && vals[c].Score > 0 && vals[c].In <= p.N-1)
	}
	if !inArea {
		t.Errorf("hint %+v holds no move that wins in %d", h, p.N-1)
	}
	if _, err := HintAt(ctx, testEngine, p, []int{p.Solution}); !errors.Is(err, ErrAttemptOver) {
		t.Errorf("a hint on the opponent's turn: %v, want ErrAttemptOver", err)
	}
}
