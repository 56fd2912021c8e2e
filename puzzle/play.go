package puzzle

import (
	"context"
	"fmt"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

// Verdict is the judgement of one move of an attempt.
type Verdict uint8

// The verdicts.
const (
	// Correct: the move keeps the task; the opponent answers (Step.Reply)
	// and the member moves again.
	Correct Verdict = iota + 1
	// Solved: the move completes the task; the attempt ends, won.
	Solved
	// Wrong: the move does not keep the task; the attempt ends, failed
	// (Step.Refutation and Step.Solution say why).
	Wrong
)

var verdictNames = [...]string{Correct: "correct", Solved: "solved", Wrong: "wrong"}

// String returns "correct", "solved" or "wrong".
func (v Verdict) String() string {
	return enumName(verdictNames[:], v, "Verdict")
}

// MaxLine is the most plies of a refutation line (Step.Refutation).
const MaxLine = 24

// Line is a sequence of moves with best play, from a position of an
// attempt.
type Line struct {
	// Moves are zero-based columns, the first by the player to move in the
	// position the line starts from, then alternately.
	Moves []int
	// Complete is false when the solver did not settle a position of the
	// line before the context ended: Moves are those settled.
	Complete bool
}

// Step is the outcome of one move of an attempt.
type Step struct {
	Verdict Verdict
	// Reply is the opponent's answer to a Correct move (a zero-based
	// column), -1 otherwise: the solver's best defence, the move that
	// delays the loss longest, the most central (the left one between
	// two) among equals.
	Reply int
	// Value is the member's move's value from the member's side, with In
	// its discs to the win or the loss (see ai.ColumnValue); set for a
	// Wrong move (a slower win, a draw or a loss), and for the moves the
	// solver valued (every move but the first of a puzzle).
	Value ai.ColumnValue
	// Refutation, after a Wrong move, is the opponent's best line from the
	// position the move left, starting with the opponent's reply: to the
	// end of the game, for MaxLine plies at most; one ply when the wrong
	// move left a draw (the reply that holds it).
	Refutation Line
	// Solution, after a Wrong move, is the best line from the position
	// before it: for the first move the puzzle's Solution; for a win the
	// line to it (the member's fastest win against the longest defence),
	// one move otherwise.
	Solution Line
}

// Judge judges the member's move (a zero-based column) in an attempt at p,
// after the moves of the attempt so far (zero-based columns: the member's
// moves and the opponent's replies, alternately, from p's position). The
// first move is Correct (or Solved, for a task of one move) only when it is
// p.Solution; a later move of a win is Correct when it keeps the win within
// the member's moves that remain (as lichess accepts another mate), and
// Solved when it completes the line. After a Correct move Step.Reply is
// the best defence; after a Wrong one, Step.Refutation and Step.Solution
// say why. Judge does not check that the attempt's earlier moves were
// correct, only that they can be played: that is the caller's record.
//
// It uses e's exact solver (every move but a first one) until ctx ends:
// when the solver cannot settle what the verdict or the reply needs, it
// returns an error wrapping ai.ErrNotSettled; lines it cannot finish come
// back with Complete false. It returns an error wrapping ErrInvalidPuzzle
// for an invalid p, ErrIllegalMove for a move off the board or in a full
// column (in the attempt or the move), and ErrAttemptOver when the attempt
// has ended (its moves already hold the member's last move, or a line) or
// it is not the member's turn (an odd number of moves).
func Judge(ctx context.Context, e Evaluator, p Puzzle, attempt []int, move int) (Step, error) {
	if err := p.Validate(); err != nil {
		return Step{}, err
	}
	start, _ := p.MoveList()
	if len(attempt)%2 == 1 {
		return Step{}, fmt.Errorf("attempt of %d moves: the opponent is to move: %w", len(attempt), ErrAttemptOver)
	}
	k := len(attempt) / 2 // the member's moves so far
	if k >= p.Length() {
		return Step{}, fmt.Errorf("attempt of %d moves: the task has %d: %w", k, p.Length(), ErrAttemptOver)
	}
	moves := append(append(make([]int, 0, len(start)+len(attempt)+1), start...), attempt...)
	b, over, err := replay(p.Config, moves)
	if err != nil {
		return Step{}, fmt.Errorf("attempt: %v: %w", err, ErrIllegalMove)
	}
	if over {
		return Step{}, fmt.Errorf("attempt: the game is over: %w", ErrAttemptOver)
	}
	if !b.CanDrop(move) {
		return Step{}, fmt.Errorf("column %d cannot be played: %w", move+1, ErrIllegalMove)
	}
	st := Step{Reply: -1}
	cfg := p.Config
	if k == 0 {
		if move == p.Solution {
			if p.Kind != WinIn {
				st.Verdict = Solved
				return st, nil
			}
			st.Verdict = Correct
		} else {
			st.Verdict = Wrong
		}
	}
	if st.Verdict != Correct {
		vals, err := e.Evaluate(ctx, cfg, moves)
		if err != nil {
			return Step{}, err
		}
		v := vals[move]
		if !v.Settled {
			return Step{}, notSettled(ctx, cfg, moves)
		}
		st.Value = v
		switch {
		case st.Verdict == Wrong:
		case v.Score > 0 && v.In <= p.N-k && v.In == 1:
			st.Verdict = Solved
			return st, nil
		case v.Score > 0 && v.In <= p.N-k:
			st.Verdict = Correct
		default:
			st.Verdict = Wrong
		}
	}
	after := append(moves, move)
	if st.Verdict == Correct {
		reply, err := bestMove(ctx, e, cfg, after)
		if err != nil {
			return Step{}, err
		}
		st.Reply = reply.Column
		return st, nil
	}
	st.Refutation = bestLine(ctx, e, cfg, after, MaxLine)
	plies := 1
	if p.Kind == WinIn {
		plies = 2*(p.N-k) - 1
	}
	st.Solution = bestLine(ctx, e, cfg, moves, plies)
	return st, nil
}

// bestMove returns the best move of the player to move in the position
// moves reach, with its value: the highest score (the fastest win, a draw,
// or the longest defence), the most central among equals (centreOrder). It
// returns an error wrapping ai.ErrNotSettled when a move is not settled.
func bestMove(ctx context.Context, e Evaluator, cfg game.Config, moves []int) (ai.ColumnValue, error) {
	vals, err := e.Evaluate(ctx, cfg, moves)
	if err != nil {
		return ai.ColumnValue{}, err
	}
	best := ai.ColumnValue{Column: -1}
	for _, c := range centreOrder(cfg.Columns) {
		v := vals[c]
		if !v.Legal {
			continue
		}
		if !v.Settled {
			return ai.ColumnValue{}, notSettled(ctx, cfg, moves)
		}
		if best.Column < 0 || v.Score > best.Score {
			best = v
		}
	}
	if best.Column < 0 {
		return best, fmt.Errorf("position %q: no move left: %w", game.MovesCode(moves), ErrAttemptOver)
	}
	return best, nil
}

// bestLine returns the line of best moves (bestMove) from the position
// moves reach, for plies plies at most: it ends with a move that completes
// a line, fills the board or keeps a draw (a drawn line has no end worth
// showing).
func bestLine(ctx context.Context, e Evaluator, cfg game.Config, moves []int, plies int) Line {
	line := Line{Complete: true}
	pos := append([]int(nil), moves...)
	for len(line.Moves) < plies && len(pos) < cfg.Rows*cfg.Columns {
		v, err := bestMove(ctx, e, cfg, pos)
		if err != nil {
			line.Complete = false
			break
		}
		line.Moves = append(line.Moves, v.Column)
		pos = append(pos, v.Column)
		if v.Score == 0 || (v.Score > 0 && v.In == 1) {
			break
		}
	}
	return line
}

// HintAt returns the hint for the member's next move in an attempt at p
// after the moves of the attempt so far (as Judge takes them): for the
// first move p.Hint(), for a later one the area of the solver's best move
// now (the fastest win; the most central among equals). It returns Judge's
// errors for an attempt that has ended or cannot be played, and one
// wrapping ai.ErrNotSettled when the solver does not settle the position
// before ctx ends.
func HintAt(ctx context.Context, e Evaluator, p Puzzle, attempt []int) (Hint, error) {
	if err := p.Validate(); err != nil {
		return Hint{}, err
	}
	if len(attempt)%2 == 1 || len(attempt)/2 >= p.Length() {
		return Hint{}, fmt.Errorf("attempt of %d moves: no move of the member's is due: %w", len(attempt), ErrAttemptOver)
	}
	if len(attempt) == 0 {
		return p.Hint(), nil
	}
	start, _ := p.MoveList()
	moves := append(append(make([]int, 0, len(start)+len(attempt)), start...), attempt...)
	_, over, err := replay(p.Config, moves)
	switch {
	case err != nil:
		return Hint{}, fmt.Errorf("attempt: %v: %w", err, ErrIllegalMove)
	case over:
		return Hint{}, fmt.Errorf("attempt: the game is over: %w", ErrAttemptOver)
	}
	best, err := bestMove(ctx, e, p.Config, moves)
	if err != nil {
		return Hint{}, err
	}
	return HintFor(p.Config.Columns, best.Column), nil
}
