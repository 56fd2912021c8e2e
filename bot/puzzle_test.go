package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/sessions"
)

// The puzzles on Discord: /connectn puzzle and its buttons (this file),
// the daily puzzle (puzzle_daily_test.go), the puzzles found in the
// server's matches (puzzle_find_test.go).

// puzzleEngine is the solver of the puzzles' tests, shared: its table
// keeps what one test settled for the next.
var puzzleEngine = ai.NewEngine(ai.Options{TableMB: 16, Workers: 1})

// newPuzzleEnv is newEnv with the puzzles and the solver.
func newPuzzleEnv(t *testing.T, opts ...bot.Option) *env {
	t.Helper()
	c := clocktest.New()
	e := newEnvWith(t, c, slog.New(slog.DiscardHandler), true, append([]bot.Option{bot.WithAI(puzzleEngine)}, opts...)...)
	e.clock = c
	return e
}

// starterWhere returns the first starter puzzle for which f holds.
func starterWhere(t *testing.T, f func(puzzle.Puzzle) bool) puzzle.Puzzle {
	t.Helper()
	for _, p := range puzzle.Starter() {
		if f(p) {
			return p
		}
	}
	t.Fatal("no starter puzzle fits")
	return puzzle.Puzzle{}
}

// discs are the players' discs in the puzzles' theme, the classic one.
var discs = map[game.Player]string{game.Player1: "🔴", game.Player2: "🟡"}

// std is the standard board of the starter set.
var std = game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1, Openers: game.AlwaysFirst, FirstOpener: game.Player1}

// startAt starts u's attempt at p in the store, as /connectn puzzle does
// (day: from that day's daily post).
func (e *env) startAt(u user, p puzzle.Puzzle, day string) *sessions.Attempt {
	e.t.Helper()
	a, err := e.store.StartAttempt(context.Background(), &sessions.Attempt{UserID: u.ID, GuildID: guildID, PuzzleID: p.ID,
		Puzzle: p.Format(), PuzzleRating: p.Rating, Daily: day})
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// attempt reads attempt id back.
func (e *env) attempt(id int64) *sessions.Attempt {
	e.t.Helper()
	a, err := e.store.Attempt(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// canvas returns a private message of u's to click on: the answer to
// their /connectn puzzle (a click's custom_id, not its message, names the
// attempt).
func (e *env) canvas(u user) *discordgo.Message {
	e.t.Helper()
	mustPrivate(e.t, e.send(slash(u, "puzzle")), "")
	return e.lastPrivate()
}

// pz clicks column c (zero-based) of attempt id at ply on msg as u, and
// returns the response and the message as it reads after it.
func (e *env) pz(u user, msg *discordgo.Message, id int64, ply, c int) (*discordgo.InteractionResponse, *discordgo.Message) {
	e.t.Helper()
	resp := e.clickID(u, msg, customid.New("pz", id, int64(ply), int64(c+1)).String())
	return resp, e.message(msg.ID)
}

// attemptOfButtons returns the attempt a puzzle message's first column
// button names.
func attemptOfButtons(t *testing.T, msg *discordgo.Message) int64 {
	t.Helper()
	for _, b := range buttons(msg.Components) {
		if rest, ok := strings.CutPrefix(b.CustomID, "cn:pz:"); ok {
			id, err := strconv.ParseInt(strings.Split(rest, ":")[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
	}
	t.Fatalf("no column button on the message: %q", labels(msg.Components))
	return 0
}

// evaluate values every column of the position moves reach on cfg.
func evaluate(t *testing.T, cfg game.Config, moves []int) []ai.ColumnValue {
	t.Helper()
	vals, err := puzzleEngine.Evaluate(context.Background(), cfg, moves)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vals {
		if v.Legal && !v.Settled {
			t.Fatalf("column %d of %v not settled", v.Column+1, moves)
		}
	}
	return vals
}

// positionOf returns the moves of p's position and its attempt's moves.
func positionOf(t *testing.T, p puzzle.Puzzle, attempt string) []int {
	t.Helper()
	start, err := p.MoveList()
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range attempt {
		c, _ := game.ParseColumnCode(ch)
		start = append(start, c)
	}
	return start
}

// TestPuzzleCommand: /connectn puzzle gives the member, privately, an
// unseen puzzle near their rating, with its task, board, a button per
// column and Hint, its rating and its theme; it is stored as their first
// attempt at it, and its solution solves it (or, for a win, is answered).
func TestPuzzleCommand(t *testing.T) {
	e := newPuzzleEnv(t)
	resp := e.send(slash(alice, "puzzle"))
	mustPrivate(t, resp, "")
	msg := e.lastPrivate()
	got := messageText(msg)
	mustContain(t, "the puzzle", got, "🧩 Puzzle", "to play", "rated 1", "6 × 7 board", "1️⃣")
	if l := labels(msg.Components); l != "1 2 3 4 5 6 7 Hint" {
		t.Errorf("buttons = %q, want the 7 columns and Hint", l)
	}
	id := attemptOfButtons(t, msg)
	a := e.attempt(id)
	if a.UserID != aliceID || a.GuildID != guildID || !a.First || a.Result != sessions.AttemptOpen {
		t.Errorf("stored attempt = %+v, want alice's first, open, in the guild", a)
	}
	p, err := puzzle.Parse(a.Puzzle)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the puzzle", got, strings.SplitN(taskWords(p), "{", 2)[0])
	if seen, _ := e.store.SeenPuzzles(context.Background(), aliceID); !seen[p.ID] || len(seen) != 1 {
		t.Errorf("SeenPuzzles(alice) = %v, want %s", seen, p.ID)
	}
	resp, after := e.pz(alice, msg, id, 0, p.Solution)
	if resp.Type != discordgo.InteractionResponseUpdateMessage && resp.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("the solution's click answered type %d, want an update of the message", resp.Type)
	}
	if p.Kind == puzzle.WinIn {
		mustContain(t, "after the solution", messageText(after), "✅ Correct!")
	} else {
		mustContain(t, "after the solution", messageText(after), "🎉 Solved!", "Puzzle rating: 1500 → ", "🔥 1 puzzle solved in a row")
	}
	// A second /connectn puzzle gives another puzzle: the first is seen.
	e.send(slash(alice, "puzzle"))
	if next := e.attempt(attemptOfButtons(t, e.lastPrivate())); next.PuzzleID == p.ID {
		t.Errorf("the second puzzle is the first again, %s", p.ID)
	}
}

// taskWords returns the English task of p, as its message starts.
func taskWords(p puzzle.Puzzle) string {
	switch p.Kind {
	case puzzle.WinIn:
		return "to play and win in " + strconv.Itoa(p.N)
	case puzzle.Defence:
		return "to play: the game is lost"
	}
	return "to play: find the only move that does not lose"
}

// TestPuzzleWinPlayedOut plays a win in 3 to the end: each correct move is
// answered on the same message by a longest defence (no other reply
// delays the loss longer, by the solver's value of every reply), and the
// last move solves it, rated as the member's first attempt.
func TestPuzzleWinPlayedOut(t *testing.T) {
	e := newPuzzleEnv(t)
	p := starterWhere(t, func(p puzzle.Puzzle) bool {
		return p.Kind == puzzle.WinIn && p.N == 3 && p.Config.Columns == 7 && p.Config.Rows == 6
	})
	msg := e.canvas(alice)
	a := e.startAt(alice, p, "")
	for ply := 0; ; ply += 2 {
		moves := positionOf(t, p, e.attempt(a.ID).Moves)
		// The member's fastest win (the solution, first).
		col := p.Solution
		if ply > 0 {
			bestIn := 1 << 30
			for _, v := range evaluate(t, p.Config, moves) {
				if v.Legal && v.Score > 0 && v.In < bestIn {
					col, bestIn = v.Column, v.In
				}
			}
		}
		_, after := e.pz(alice, msg, a.ID, ply, col)
		now := e.attempt(a.ID)
		if now.Result == sessions.AttemptSolved {
			mustContain(t, "the solved puzzle", messageText(after), "🎉 Solved!", "Puzzle rating: 1", "🔥 1 puzzle solved in a row")
			if after.Components == nil || labels(after.Components) != "🧩 Next puzzle" && labels(after.Components) != "Next puzzle" {
				t.Errorf("buttons under a solved puzzle = %q, want Next puzzle", labels(after.Components))
			}
			break
		}
		if now.Result != sessions.AttemptOpen || len(now.Moves) != ply+2 {
			t.Fatalf("after a correct move the attempt is %+v, want open with the move and a reply", now)
		}
		mustContain(t, "after a correct move", messageText(after), "✅ Correct!")
		// The reply delays the loss longest: no reply of the defender
		// loses later.
		reply, _ := game.ParseColumnCode(rune(now.Moves[len(now.Moves)-1]))
		vals := evaluate(t, p.Config, append(moves, col))
		longest := 0
		for _, v := range vals {
			if v.Legal && v.Score < 0 && v.In > longest {
				longest = v.In
			}
		}
		if v := vals[reply]; v.Score >= 0 || v.In != longest {
			t.Errorf("reply in column %d is worth %+v to the defender; the longest defence loses in %d", reply+1, v, longest)
		}
		mustContain(t, "the reply", messageText(after), discs[p.ToMove().Other()]+" answers in column "+strconv.Itoa(reply+1))
		if ply > 2*p.N {
			t.Fatalf("a win in %d not solved after %d plies", p.N, ply)
		}
	}
	pl, _ := e.store.PuzzlePlayer(context.Background(), aliceID)
	if pl.Rated != 1 || pl.Solved != 1 || pl.R <= 1500 || pl.Streak != 1 {
		t.Errorf("PuzzlePlayer(alice) = %+v, want 1 rated and solved, R above 1500, streak 1", pl)
	}
}

// TestPuzzleWrongMoveEndsAttempt: a wrong first move ends the attempt at
// once, saying why (its value, the refutation from the solver, the
// solution under a spoiler), rates it as a loss, and leaves only Next
// puzzle; the old buttons are refused after it. A second attempt at the
// same puzzle, solved, is not rated: only the first attempt counts.
func TestPuzzleWrongMoveEndsAttempt(t *testing.T) {
	e := newPuzzleEnv(t)
	p := starterWhere(t, func(p puzzle.Puzzle) bool {
		return p.Kind == puzzle.WinIn && p.N == 2 && p.Config.Columns == 7 && p.Config.Rows == 6 && p.ToMove() == game.Player1
	})
	msg := e.canvas(alice)
	a := e.startAt(alice, p, "")
	start, _ := p.MoveList()
	wrong := -1
	for _, v := range evaluate(t, p.Config, start) {
		if v.Legal && v.Column != p.Solution {
			wrong = v.Column
			break
		}
	}
	_, after := e.pz(alice, msg, a.ID, 0, wrong)
	got := messageText(after)
	mustContain(t, "after a wrong move", got, "❌ Column "+strconv.Itoa(wrong+1), "Refutation: 🟡", "Solution: ||🔴 "+strconv.Itoa(p.Solution+1),
		"Puzzle rating: 1500 → ")
	if p.ToMove() != game.Player1 {
		t.Fatalf("puzzle %s: want red to move for the test's words", p.ID)
	}
	if l := labels(after.Components); !strings.Contains(l, "Next puzzle") || strings.Contains(l, "Hint") {
		t.Errorf("buttons after a wrong move = %q, want Next puzzle alone", l)
	}
	failed := e.attempt(a.ID)
	if failed.Result != sessions.AttemptFailed || failed.Change == nil || failed.Change.MemberAfter.R >= 1500 {
		t.Errorf("attempt after a wrong move = %+v, want failed and rated down", failed)
	}
	// The old buttons: refused, nothing changes.
	resp, _ := e.pz(alice, msg, a.ID, 0, p.Solution)
	mustPrivate(t, resp, "That attempt is over")
	if again := e.attempt(a.ID); again.Revision != failed.Revision {
		t.Errorf("a click after the end changed the attempt: %+v", again)
	}
	// A second attempt, solved in full, is not rated.
	second := e.startAt(alice, p, "")
	if second.First {
		t.Fatal("the second attempt is first")
	}
	_, after = e.pz(alice, msg, second.ID, 0, p.Solution)
	moves := positionOf(t, p, e.attempt(second.ID).Moves)
	for _, v := range evaluate(t, p.Config, moves) {
		if v.Legal && v.Score > 0 && v.In == 1 {
			_, after = e.pz(alice, msg, second.ID, 2, v.Column)
			break
		}
	}
	mustContain(t, "a second attempt solved", messageText(after), "🎉 Solved!", "Not rated: you met this puzzle before")
	if pl, _ := e.store.PuzzlePlayer(context.Background(), aliceID); pl.Rated != 1 || pl.Solved != 0 {
		t.Errorf("PuzzlePlayer(alice) = %+v, want the first attempt's loss alone rated", pl)
	}
}

// TestPuzzleGuards: a click that names someone else's attempt (a crafted
// custom_id: another member never sees a private message), a ply the
// attempt has left, an attempt that does not exist, a column off the
// board or full is refused privately and changes nothing.
func TestPuzzleGuards(t *testing.T) {
	e := newPuzzleEnv(t)
	p := starterWhere(t, func(p puzzle.Puzzle) bool {
		if p.Kind != puzzle.WinIn || p.Config.Columns != 7 || p.Config.Rows != 6 {
			return false
		}
		start, _ := p.MoveList()
		r := func() *game.Round {
			m, _ := game.NewMatch(std)
			for _, c := range start {
				m.Play(m.ToMove(), c)
			}
			return m.Round()
		}()
		for c := range 7 {
			if !r.CanDrop(c) {
				return true // a full column
			}
		}
		return false
	})
	start, _ := p.MoveList()
	full := -1
	counts := map[int]int{}
	for _, c := range start {
		if counts[c]++; counts[c] == 6 {
			full = c
		}
	}
	alices := e.startAt(alice, p, "")
	msg := e.canvas(bob)
	tests := []struct {
		name   string
		who    user
		id     string
		want   string
		attack int64 // the attempt that must not change
	}{
		{"someone else's attempt", bob, customid.New("pz", alices.ID, 0, int64(p.Solution+1)).String(), "someone else's attempt", alices.ID},
		{"someone else's hint", bob, customid.New("pzhint", alices.ID, 0).String(), "someone else's attempt", alices.ID},
		{"a ply left behind", alice, customid.New("pz", alices.ID, 2, int64(p.Solution+1)).String(), "moved on", alices.ID},
		{"an unknown attempt", alice, customid.New("pz", alices.ID+1000, 0, 1).String(), "no longer here", alices.ID},
		{"a column off the board", alice, customid.New("pz", alices.ID, 0, 8).String(), "couldn't understand that request", alices.ID},
		{"a full column", alice, customid.New("pz", alices.ID, 0, int64(full+1)).String(), "Column " + strconv.Itoa(full+1) + " is full", alices.ID},
		{"a day that is no day", alice, customid.New("pzday", 20261399).String(), "couldn't understand that request", alices.ID},
		{"a daily post this server never had", alice, customid.New("pzday", 20200101).String(), "no longer here", alices.ID},
	}
	before := e.attempt(alices.ID)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := e.clickID(tt.who, msg, tt.id)
			mustPrivate(t, resp, tt.want)
			if got := e.attempt(tt.attack); got.Revision != before.Revision || got.Moves != before.Moves || got.Hinted {
				t.Errorf("attempt after the refused click = %+v, want it unchanged", got)
			}
		})
	}
	if seen, _ := e.store.SeenPuzzles(context.Background(), bobID); len(seen) != 1 {
		t.Errorf("bob has seen %d puzzles, want his own one only: a refused click starts nothing", len(seen))
	}
}

// TestPuzzleHint: Hint names the solution's area, on the same message;
// the attempt, solved afterwards, counts as failed for the rating.
func TestPuzzleHint(t *testing.T) {
	e := newPuzzleEnv(t)
	p := starterWhere(t, func(p puzzle.Puzzle) bool {
		return p.Kind == puzzle.OnlyMove && p.Config.Columns == 7 && p.Config.Rows == 6
	})
	msg := e.canvas(alice)
	a := e.startAt(alice, p, "")
	e.clickID(alice, msg, customid.New("pzhint", a.ID, 0).String())
	h := p.Hint()
	got := messageText(e.message(msg.ID))
	mustContain(t, "the hint", got, fmt.Sprintf("💡 Hint: look %s, columns %d–%d", map[puzzle.Area]string{
		puzzle.Left: "on the left", puzzle.Centre: "in the centre", puzzle.Right: "on the right"}[h.Area], h.First+1, h.Last+1))
	if !e.attempt(a.ID).Hinted {
		t.Error("the attempt is not marked hinted")
	}
	_, after := e.pz(alice, msg, a.ID, 0, p.Solution)
	mustContain(t, "solved after a hint", messageText(after), "🎉 Solved!")
	done := e.attempt(a.ID)
	if done.Change == nil || done.Change.MemberAfter.R >= done.Change.MemberBefore.R {
		t.Errorf("a hinted solve's rating change = %+v, want it rated as failed (down)", done.Change)
	}
	if pl, _ := e.store.PuzzlePlayer(context.Background(), aliceID); pl.Streak != 0 {
		t.Errorf("streak after a hinted solve = %d, want 0", pl.Streak)
	}
}

// TestPuzzleStatsAndLeaderboard: the member's puzzle rating in
// /connectn stats, and /connectn leaderboard by:puzzles.
func TestPuzzleStatsAndLeaderboard(t *testing.T) {
	e := newPuzzleEnv(t)
	msg := e.canvas(alice)
	n := 0
	for _, p := range puzzle.Starter() {
		if p.Kind != puzzle.OnlyMove || p.Config.Columns != 7 {
			continue
		}
		a := e.startAt(alice, p, "")
		e.pz(alice, msg, a.ID, 0, p.Solution)
		if n++; n == sessions.MinPuzzleAttempts {
			break
		}
	}
	mustContain(t, "stats", text(e.send(slash(alice, "stats"))), "🧩 Puzzles: rating **", "5 of 5 solved, best run 5")
	got := text(e.send(slash(bob, "leaderboard", "by", "puzzles")))
	mustContain(t, "leaderboard by:puzzles", got, "🧩 Puzzle ratings", "🥇 <@"+aliceID+">", "· 5/5 solved")
}

// slowSolver is the puzzles' solver that settles nothing in its first
// slow calls (as a solver out of time), then the engine's values.
type slowSolver struct {
	mu   sync.Mutex
	slow int
}

func (s *slowSolver) Move(ctx context.Context, m *game.Match, level ai.Level) (int, error) {
	return puzzleEngine.Move(ctx, m, level)
}

func (s *slowSolver) Analyze(ctx context.Context, cfg game.Config, r *game.Round) (*ai.Analysis, error) {
	return puzzleEngine.Analyze(ctx, cfg, r)
}

func (s *slowSolver) ColumnVerdicts(ctx context.Context, cfg game.Config, moves []int) ([]ai.Verdict, error) {
	return puzzleEngine.ColumnVerdicts(ctx, cfg, moves)
}

func (s *slowSolver) PositionVerdict(ctx context.Context, cfg game.Config, moves []int) (ai.Verdict, error) {
	return puzzleEngine.PositionVerdict(ctx, cfg, moves)
}

func (s *slowSolver) Evaluate(ctx context.Context, cfg game.Config, moves []int) ([]ai.ColumnValue, error) {
	s.mu.Lock()
	slow := s.slow > 0
	if slow {
		s.slow--
	}
	s.mu.Unlock()
	if !slow {
		return puzzleEngine.Evaluate(ctx, cfg, moves)
	}
	vals, err := puzzleEngine.Evaluate(ctx, cfg, moves)
	for k := range vals {
		vals[k].Settled, vals[k].Score, vals[k].In = false, 0, 0
	}
	return vals, err
}

// TestPuzzleJudgedAfterDeferral: when the solver does not settle a move
// within the click's time, the click is answered with a deferred update
// and the message is edited once the solver has judged it.
func TestPuzzleJudgedAfterDeferral(t *testing.T) {
	solver := &slowSolver{}
	c := clocktest.New()
	e := newEnvWith(t, c, slog.New(slog.DiscardHandler), true, bot.WithAI(solver))
	e.clock = c
	p := starterWhere(t, func(p puzzle.Puzzle) bool {
		return p.Kind == puzzle.WinIn && p.N == 3 && p.Config.Columns == 7 && p.Config.Rows == 6
	})
	msg := e.canvas(alice)
	a := e.startAt(alice, p, "")
	solver.mu.Lock()
	solver.slow = 1 // the reply's valuation, inside the response
	solver.mu.Unlock()
	resp, after := e.pz(alice, msg, a.ID, 0, p.Solution)
	if resp.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("a move the solver did not settle in time answered type %d, want a deferred update (6)", resp.Type)
	}
	mustContain(t, "the message after the deferred judgement", messageText(after), "✅ Correct!")
	if got := e.attempt(a.ID); len(got.Moves) != 2 {
		t.Errorf("attempt after the deferred judgement = %+v, want the move and the reply", got)
	}
}
