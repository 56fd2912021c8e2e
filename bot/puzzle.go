package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// WithPuzzles gives the handler the store of its puzzles: /connectn
// puzzle, the daily puzzle, and the puzzles found in the server's own
// matches. Without it (or without an AI, WithAI, whose solver judges the
// moves), /connectn puzzle answers that puzzles are off.
func WithPuzzles(store sessions.PuzzleStore) Option {
	return func(h *Handler) { h.puzzles = store }
}

// Budgets of the solver for puzzles.
const (
	// puzzleBudget bounds the judging of a move (or a hint) after a
	// deferred response, when it did not fit in the response's time.
	puzzleBudget = 8 * time.Second
)

// Refusals of the puzzles.
var (
	reasonPuzzlesOff     = sessions.NewReason("puzzles_off")
	reasonPuzzleNotYours = sessions.NewReason("puzzle_not_yours")
	reasonPuzzleOver     = sessions.NewReason("puzzle_over")
	reasonPuzzleMoved    = sessions.NewReason("puzzle_moved")
	reasonPuzzleFull     = sessions.NewReason("puzzle_full")
	reasonPuzzleGone     = sessions.NewReason("puzzle_gone")
	reasonDailyInServer  = sessions.NewReason("daily_in_server")
)

// puzzles is the feature of /connectn puzzle: an unseen puzzle near the
// member's puzzle rating, privately, played move by move through its
// buttons (a column, Hint, Next puzzle), each move judged by the exact
// solver; and the Solve button of the daily post (puzzle_daily.go),
// which starts the day's puzzle the same way.
type puzzles struct {
	store  puzzleStore
	engine engine // its AI's solver judges the moves
	boards *outbox.Boards
	log    *slog.Logger
	rand   *lockedRand
}

// puzzleStore is what the puzzles read and write (sessions.PuzzleStore's
// methods).
type puzzleStore interface {
	FoundPuzzles(ctx context.Context, guildID string) ([]sessions.FoundPuzzle, error)
	PuzzleRatings(ctx context.Context) (map[string]rating.Rating, error)
	PuzzlePlayer(ctx context.Context, userID string) (sessions.PuzzlePlayer, error)
	SeenPuzzles(ctx context.Context, userID string) (map[string]bool, error)
	StartAttempt(ctx context.Context, a *sessions.Attempt) (*sessions.Attempt, error)
	Attempt(ctx context.Context, id int64) (*sessions.Attempt, error)
	UpdateAttempt(ctx context.Context, id int64, rate sessions.PuzzleRater, fn func(*sessions.Attempt) error) (*sessions.Attempt, error)
	DailyPosts(ctx context.Context, guildID string, limit int) ([]sessions.DailyPost, error)
}

// The custom_id parts of the puzzles' buttons (render/puzzle.go): an
// attempt, its ply (its moves so far) and a column from 1; a day as
// yyyymmdd.
var (
	partAttempt = customid.Part{Name: "attempt", Min: 1, Max: 1<<53 - 1}
	partDay     = customid.Part{Name: "day", Min: 10000101, Max: 99991231}
)

func (h *puzzles) routes() []route {
	return []route{
		command("puzzle", h.start, helpLine("help_puzzle")),
		button("pz", []customid.Part{partAttempt, partPly, partColumn}, h.move,
			mayDefer(discordgo.InteractionResponseDeferredMessageUpdate)),
		button("pzhint", []customid.Part{partAttempt, partPly}, h.hint,
			mayDefer(discordgo.InteractionResponseDeferredMessageUpdate)),
		button("pznext", nil, h.next),
		button("pzday", []customid.Part{partDay}, h.daily),
	}
}

// on reports whether puzzles can be played: a store and a solver.
func (h *puzzles) on() bool { return h.store != nil && h.engine.ai != nil }

// pool returns the puzzles a member of server guildID may be given: the
// starter set and the puzzles found in the server's matches, each with its
// current rating (the store's, once an attempt moved it).
func (h *puzzles) pool(ctx context.Context, guildID string) ([]puzzle.Puzzle, error) {
	ratings, err := h.store.PuzzleRatings(ctx)
	if err != nil {
		return nil, err
	}
	// The starter set, a copy of the one the puzzle package keeps.
	out := puzzle.Starter()
	ids := make(map[string]bool, len(out))
	for k, p := range out {
		if r, ok := ratings[p.ID]; ok {
			out[k].Rating = r
		}
		ids[p.ID] = true
	}
	if guildID == "" {
		return out, nil
	}
	found, err := h.store.FoundPuzzles(ctx, guildID)
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		p, err := puzzle.Parse(f.Puzzle)
		if err != nil || ids[p.ID] {
			if err != nil {
				h.log.Warn("a stored puzzle does not parse", "guild", guildID, "puzzle", f.ID, "err", err)
			}
			continue
		}
		if r, ok := ratings[p.ID]; ok {
			p.Rating = r
		}
		ids[p.ID] = true
		out = append(out, p)
	}
	return out, nil
}

// start handles /connectn puzzle.
func (h *puzzles) start(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	return h.give(ctx, c)
}

// next answers Next puzzle under a finished attempt: another one, as a
// new private message (the finished one stays to be read).
func (h *puzzles) next(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	return h.give(ctx, c)
}

// give starts an attempt at an unseen puzzle near the member's rating
// (puzzle.Pick, seeded by the handler's randomness) and shows it
// privately.
func (h *puzzles) give(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	if !h.on() {
		return nil, sessions.Refuse(reasonPuzzlesOff)
	}
	player, err := h.store.PuzzlePlayer(ctx, c.user)
	if err != nil {
		return nil, err
	}
	seen, err := h.store.SeenPuzzles(ctx, c.user)
	if err != nil {
		return nil, err
	}
	pool, err := h.pool(ctx, c.i.GuildID)
	if err != nil {
		return nil, err
	}
	p, ok := puzzle.Pick(pool, player.Rating, seen, uint64(h.rand.intn(math.MaxInt)))
	if !ok {
		return render.Ephemeral(c.reader.T("puzzle_all_seen")), nil
	}
	return h.begin(ctx, c, p, "")
}

// begin starts the member's attempt at p (from the daily post of day,
// when not "") and shows it privately.
func (h *puzzles) begin(ctx context.Context, c *call, p puzzle.Puzzle, day string) (*discordgo.InteractionResponse, error) {
	a, err := h.store.StartAttempt(ctx, &sessions.Attempt{UserID: c.user, GuildID: c.i.GuildID, PuzzleID: p.ID,
		Puzzle: p.Format(), PuzzleRating: p.Rating, Daily: day})
	if err != nil {
		return nil, err
	}
	h.log.Info("puzzle started", "attempt", a.ID, "puzzle", p.ID, "user", c.user, "first", a.First, "daily", day)
	return newMessage(render.Puzzle(c.reader, render.PuzzleView{Puzzle: p, Rating: a.PuzzleRating.R, Attempt: a.ID, First: a.First})), nil
}

// daily answers the daily post's Solve button: the day's puzzle of this
// server's post, privately.
func (h *puzzles) daily(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	if !h.on() {
		return nil, sessions.Refuse(reasonPuzzlesOff)
	}
	if c.i.GuildID == "" {
		return nil, sessions.Refuse(reasonDailyInServer)
	}
	day := render.DayOfNumber(c.id.Part(0))
	if day == "" {
		return nil, malformed("daily puzzle of day %d", c.id.Part(0))
	}
	posts, err := h.store.DailyPosts(ctx, c.i.GuildID, dailyKept)
	if err != nil {
		return nil, err
	}
	for _, post := range posts {
		if post.Day != day {
			continue
		}
		p, err := puzzle.Parse(post.Puzzle)
		if err != nil {
			return nil, fmt.Errorf("the daily puzzle of %s: %w", day, err)
		}
		if r, err := h.store.PuzzleRatings(ctx); err == nil {
			if pr, ok := r[p.ID]; ok {
				p.Rating = pr
			}
		}
		return h.begin(ctx, c, p, day)
	}
	return nil, sessions.Refuse(reasonPuzzleGone)
}

// dailyKept is how many of a server's latest daily posts a Solve button
// may start: a month of them.
const dailyKept = 31

// attemptOf loads the attempt a button names, for its member, open and at
// the button's ply: a button of someone else's attempt (a crafted
// custom_id: another member cannot see a private message), of an ended
// attempt, or of a board that has moved on is refused, and nothing
// changes. It returns the puzzle and the attempt's moves.
func (h *puzzles) attemptOf(ctx context.Context, c *call) (*sessions.Attempt, puzzle.Puzzle, []int, error) {
	if !h.on() {
		return nil, puzzle.Puzzle{}, nil, sessions.Refuse(reasonPuzzlesOff)
	}
	a, err := h.store.Attempt(ctx, c.id.Part(0))
	switch {
	case errors.Is(err, sessions.ErrNotFound):
		return nil, puzzle.Puzzle{}, nil, sessions.Refuse(reasonPuzzleGone)
	case err != nil:
		return nil, puzzle.Puzzle{}, nil, err
	case a.UserID != c.user:
		return nil, puzzle.Puzzle{}, nil, sessions.Refuse(reasonPuzzleNotYours)
	case a.Result != sessions.AttemptOpen:
		return nil, puzzle.Puzzle{}, nil, sessions.Refuse(reasonPuzzleOver)
	}
	moves, ok := decodeMoves(a.Moves)
	if !ok {
		return nil, puzzle.Puzzle{}, nil, fmt.Errorf("attempt %d: moves %q: %w", a.ID, a.Moves, sessions.ErrCorrupt)
	}
	if int64(len(moves)) != c.id.Part(1) {
		return nil, puzzle.Puzzle{}, nil, sessions.Refuse(reasonPuzzleMoved)
	}
	p, err := puzzle.Parse(a.Puzzle)
	if err != nil {
		return nil, puzzle.Puzzle{}, nil, fmt.Errorf("attempt %d: %w", a.ID, err)
	}
	return a, p, moves, nil
}

// decodeMoves reads moves in the game's notation (game.MovesCode).
func decodeMoves(s string) ([]int, bool) {
	out := make([]int, 0, len(s))
	for _, ch := range s {
		c, ok := game.ParseColumnCode(ch)
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// errPuzzleMoved stops an attempt's update that finds it changed since
// it was judged (a second click, through another replica).
var errPuzzleMoved = errors.New("the attempt moved on")

// move answers a column button of an attempt: the move judged by the
// solver (puzzle.Judge) within the response's time, or after a deferred
// response when the solver needs longer; a correct move gets the
// solver's longest defence, a wrong one ends the attempt with the
// refutation and the solution, the last one solves it. The attempt's
// message shows the outcome in place.
func (h *puzzles) move(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	a, p, moves, err := h.attemptOf(ctx, c)
	if err != nil {
		return nil, err
	}
	column := int(c.id.Part(2)) - 1
	if column >= p.Config.Columns {
		return nil, malformed("puzzle column %d on %d columns", column+1, p.Config.Columns)
	}
	judge := func(ctx context.Context, budget time.Duration) (puzzle.Step, error) {
		jctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		return puzzle.Judge(jctx, h.engine.ai, p, moves, column)
	}
	step, err := judge(ctx, inlineBudget(ctx, c))
	switch {
	case errors.Is(err, puzzle.ErrIllegalMove):
		return nil, sessions.Refuse(reasonPuzzleFull, "Column", render.ColumnLabel(column, p.Config.Columns))
	case errors.Is(err, ai.ErrNotSettled):
		return c.deferUpdate(func(ctx context.Context) {
			step, err := judge(ctx, puzzleBudget)
			var msg *message
			if err == nil {
				msg, err = h.play(ctx, a, p, moves, column, step, c)
			}
			if err != nil {
				msg = h.unchanged(c, a, p, moves, err)
			}
			h.boards.EditOriginal(ctx, c.out(), msg)
		}), nil
	case err != nil:
		return nil, err
	}
	msg, err := h.play(ctx, a, p, moves, column, step, c)
	if err != nil {
		return nil, err
	}
	return updateMessage(msg), nil
}

// unchanged is the attempt's message when a deferred judgement failed:
// as it was, and why, for the member to try again.
func (h *puzzles) unchanged(c *call, a *sessions.Attempt, p puzzle.Puzzle, moves []int, err error) *message {
	key := "puzzle_unsettled"
	if r, ok := sessions.AsRefusal(err); ok {
		key = r.Reason.MessageID()
	} else if !errors.Is(err, ai.ErrNotSettled) {
		h.log.Error("judging a puzzle move", "attempt", a.ID, "err", err)
		key = "apology"
	}
	msg := render.Puzzle(c.reader, render.PuzzleView{Puzzle: p, Rating: a.PuzzleRating.R, Attempt: a.ID, Moves: moves, First: a.First})
	msg.Embeds[0].Description += "\n" + c.reader.T(key)
	return msg
}

// play records the judged move (and the reply) on the attempt, finishing
// it when it is solved or wrong (the store rates a first attempt), and
// returns the attempt's message.
func (h *puzzles) play(ctx context.Context, a *sessions.Attempt, p puzzle.Puzzle, moves []int, column int, step puzzle.Step, c *call) (*message, error) {
	after := append(append([]int(nil), moves...), column)
	result := sessions.AttemptOpen
	switch step.Verdict {
	case puzzle.Correct:
		after = append(after, step.Reply)
	case puzzle.Solved:
		result = sessions.AttemptSolved
	case puzzle.Wrong:
		result = sessions.AttemptFailed
	}
	done, err := h.store.UpdateAttempt(ctx, a.ID, sessions.PuzzleRater(puzzle.Rate), func(x *sessions.Attempt) error {
		if x.Result != sessions.AttemptOpen || x.Moves != a.Moves {
			return errPuzzleMoved
		}
		x.Moves, x.Result = game.MovesCode(after), result
		return nil
	})
	if errors.Is(err, errPuzzleMoved) {
		return nil, sessions.Refuse(reasonPuzzleMoved)
	}
	if err != nil {
		return nil, err
	}
	if result != sessions.AttemptOpen {
		h.log.Info("puzzle finished", "attempt", a.ID, "puzzle", p.ID, "user", c.user, "result", result, "hinted", done.Hinted,
			"rated", done.Change != nil)
	}
	v := render.PuzzleView{Puzzle: p, Rating: a.PuzzleRating.R, Attempt: a.ID, Moves: after, Replied: step.Verdict == puzzle.Correct,
		Result: result, Wrong: column, Step: step, Change: done.Change, First: done.First, Streak: done.Streak}
	if result == sessions.AttemptFailed {
		v.Refutation, v.Solution = step.Refutation.Moves, step.Solution.Moves
	}
	return render.Puzzle(c.reader, v), nil
}

// hint answers an attempt's Hint button: the area of the move due
// (puzzle.HintAt: the solution's for the first move, the solver's best
// later), shown in place; the attempt then counts as failed for the
// rating, whatever follows.
func (h *puzzles) hint(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	a, p, moves, err := h.attemptOf(ctx, c)
	if err != nil {
		return nil, err
	}
	show := func(ctx context.Context, budget time.Duration) (*message, error) {
		hctx, cancel := context.WithTimeout(ctx, budget)
		hint, err := puzzle.HintAt(hctx, h.engine.ai, p, moves)
		cancel()
		if err != nil {
			return nil, err
		}
		_, err = h.store.UpdateAttempt(ctx, a.ID, nil, func(x *sessions.Attempt) error {
			if x.Result != sessions.AttemptOpen || x.Moves != a.Moves {
				return errPuzzleMoved
			}
			x.Hinted = true
			return nil
		})
		if errors.Is(err, errPuzzleMoved) {
			return nil, sessions.Refuse(reasonPuzzleMoved)
		}
		if err != nil {
			return nil, err
		}
		return render.Puzzle(c.reader, render.PuzzleView{Puzzle: p, Rating: a.PuzzleRating.R, Attempt: a.ID, Moves: moves,
			Hint: &hint, First: a.First}), nil
	}
	msg, err := show(ctx, inlineBudget(ctx, c))
	if errors.Is(err, ai.ErrNotSettled) {
		return c.deferUpdate(func(ctx context.Context) {
			msg, err := show(ctx, puzzleBudget)
			if err != nil {
				msg = h.unchanged(c, a, p, moves, err)
			}
			h.boards.EditOriginal(ctx, c.out(), msg)
		}), nil
	}
	if err != nil {
		return nil, err
	}
	return updateMessage(msg), nil
}

// puzzleStores is the session store and the puzzles' store as one, for
// the features that read both (the daily puzzle reads a server's language
// setting; the search reads a channel's matches).
type puzzleStores struct {
	sessions.Store
	sessions.PuzzleStore
}

// puzzleRoutes builds the puzzles' features from f and returns their
// route rows: /connectn puzzle and its buttons, and the admins' setting
// of the daily puzzle.
func (f features) puzzleRoutes() []route {
	var store puzzleStore
	if f.puzzles != nil {
		store = f.puzzles
	}
	return slices.Concat(
		(&puzzles{store: store, engine: f.engine, boards: f.boards, log: f.log, rand: f.rand}).routes(),
		(&dailyPuzzles{store: f.dailyStore(), boards: f.boards, log: f.log, clock: f.clock}).routes(),
	)
}

// dailyStore is the daily puzzle's store, nil without puzzles.
func (f features) dailyStore() dailyStore {
	if f.puzzles == nil {
		return nil
	}
	return puzzleStores{f.store, f.puzzles}
}

// puzzleStats is the puzzles' store as /connectn stats and leaderboard
// read it, nil without puzzles.
func (f features) puzzleStats() puzzleStatsStore {
	if f.puzzles == nil {
		return nil
	}
	return f.puzzles
}

// dailyReader is the puzzles' store as the settings read it, nil
// without puzzles.
func (f features) dailyReader() dailyReader {
	if f.puzzles == nil {
		return nil
	}
	return f.puzzles
}

// dailyReader reads a server's daily puzzle setting.
type dailyReader interface {
	DailyPuzzle(ctx context.Context, guildID string) (sessions.DailyPuzzle, error)
}

// puzzleStatsStore is what /connectn stats and leaderboard read of the
// puzzles.
type puzzleStatsStore interface {
	PuzzlePlayer(ctx context.Context, userID string) (sessions.PuzzlePlayer, error)
	PuzzleLeaderboard(ctx context.Context, guildID string, limit int) ([]sessions.PuzzlePlayer, error)
}

// wirePuzzles hooks the puzzles' background work into the handler's
// outbox: the search of finished matches (queued by the Boards when they
// draw a result, run by the scheduler) and the daily puzzle's posts (run
// by the scheduler). Nothing without puzzles.
func (f features) wirePuzzles(b *outbox.Boards, sched *outbox.Scheduler, run *outbox.Runner) {
	if f.puzzles == nil {
		return
	}
	both := puzzleStores{f.store, f.puzzles}
	finder := &puzzleFinder{store: both, engine: f.engine, run: run, log: f.log, clock: f.clock, served: f.served}
	daily := &dailyPuzzles{store: both, boards: b, log: f.log, clock: f.clock}
	b.Finished = finder.queued
	sched.Tasks = append(sched.Tasks, daily.runDue, finder.runDue)
}
