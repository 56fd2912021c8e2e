package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/sessions"
)

// Puzzles from the server's own matches: every finished match of a
// server, on a board the solver settles, is queued when the bot draws its
// result (the Boards' after-match hook, queued), and the scheduler's task
// (runDue) searches the queued matches one at a time, in the background,
// with puzzle.FindInMatch within findBudget: a position where a player
// had a forced win and played a move that gave it away becomes a puzzle,
// with its attribution ("from Alice vs Bob, round 2, move 17"), offered
// by /connectn puzzle to the members of that server. The queue is the
// store's (QueuePuzzleScan, ClaimPuzzleScan with a lease), so a match is
// searched by one process at a time, and again after a restart that cut
// its search short.
//
// The search uses the AI's engine, whose pool of workers leaves the
// interaction handlers a processor (cmd's aiWorkers), and one search runs
// at a time per process: a finished match costs a few seconds of one
// worker, never the handlers' processor. It is frugal besides, as a
// background task on a self-hosted machine must be: each search has a
// transposition table of its own of findTableMB (the AI's
// table, CONNECTN_AI_MEMORY, stays unallocated on a bot whose members only
// play each other), and after a search that took d the finder rests
// findRest times d, so that on a busy server, where matches end faster
// than they can be searched, it takes at most a tenth of one processor
// on average; the queue waits in the store. (It rested three times d, a
// quarter of a processor, until a profile of 50 busy matches found it
// taking 30 % of the server's CPU: docs/load.md, "CPU per move over a
// PING".) It gives its tables' memory back to the system after each
// search (forgetTables). And it gives way to the members: while the
// handlers are given more than findBusy interactions a second (PINGs
// included), it takes a match only once every findBusyEvery, so that a
// server at its busiest spends next to nothing on the search, and a bot
// that is never quiet still finds puzzles.

// Budgets of the search of a finished match.
const (
	// findBudget bounds the solver's time on one match.
	findBudget = 20 * time.Second
	// findLease is how long a process holds a queued match: longer than
	// findBudget, so that a live search is never taken over.
	findLease = 2 * time.Minute
	// findTableMB is the size of a search's own transposition table, in
	// mebibytes.
	findTableMB = 4
	// findRest is how long the finder rests after a search, in multiples
	// of the search's time: 9 keeps it to a tenth of a processor (one
	// search runs at a time, on one worker).
	findRest = 9
	// findBusy is the rate of interactions, a second, above which the
	// handlers are busy and the finder takes no match: 20 is a hundred
	// matches played at once at a human's pace (a click every five
	// seconds each); a load generator's thousands a second are far above.
	findBusy = 20
	// findBusyEvery is how often a busy server's finder still takes a
	// match: a bot that is never quiet (thousands of matches at once)
	// finds puzzles all the same, a match a minute, and its queue does not
	// only grow.
	findBusyEvery = time.Minute
)

// puzzleFinder is the feature that finds puzzles in the server's matches.
type puzzleFinder struct {
	store  finderStore
	engine engine
	run    *outbox.Runner // runs the search in the background
	log    *slog.Logger
	clock  clock.Clock
	// busy is set while this process searches a match (or runDue looks
	// whether it may).
	busy atomic.Bool
	// rest is when the finder may take the next match: findRest times the
	// last search's time after it ended. Written before busy is cleared,
	// read after it is set.
	rest time.Time
	// ended is when the last search ended (zero: none yet); written and
	// read as rest is.
	ended time.Time
	// own and eval: the searches' evaluator, made on the first search.
	own  sync.Once
	eval puzzle.Evaluator
	// served returns how many interactions the handlers have been given
	// (nil: none); looked and seen are when runDue last counted them and
	// the count then. Read and written with busy set.
	served func() uint64
	looked time.Time
	seen   uint64
}

// finderStore is what the search reads and writes.
type finderStore interface {
	History(ctx context.Context, channelID string, limit int) ([]*sessions.Session, error)
	QueuePuzzleScan(ctx context.Context, scan sessions.PuzzleScan) (bool, error)
	ClaimPuzzleScan(ctx context.Context, lease time.Duration) (sessions.PuzzleScan, bool, error)
	FinishPuzzleScan(ctx context.Context, match int64, found []sessions.FoundPuzzle) (int, error)
}

// searched reports whether a finished match s is searched for puzzles: a
// match of a server (its members are offered them) on a board the solver
// holds, on a bot with a solver.
func (h *puzzleFinder) searched(s *sessions.Session) bool {
	return h.store != nil && h.engine.ai != nil && s.GuildID != "" && s.Phase == sessions.PhaseFinished && ai.Solvable(s.Config)
}

// queued is the Boards' after-match hook: it queues the finished match
// s to be searched, once however often its result is drawn.
func (h *puzzleFinder) queued(ctx context.Context, s *sessions.Session) {
	if !h.searched(s) {
		return
	}
	if _, err := h.store.QueuePuzzleScan(ctx, sessions.PuzzleScan{Match: s.ID, GuildID: s.GuildID, ChannelID: s.ChannelID}); err != nil {
		h.log.Warn("queueing a match's search for puzzles", "match", s.ID, "err", err)
	}
}

// runDue is the scheduler's task: unless this process searches a match
// already, it takes the queued match due longest and searches it in the
// background.
func (h *puzzleFinder) runDue(ctx context.Context) {
	if h.store == nil || h.engine.ai == nil || !h.busy.CompareAndSwap(false, true) {
		return
	}
	// Counted at every tick, resting or not: the rate is of the last one.
	now := h.clock.Now()
	if busy := h.handlersBusy(); now.Before(h.rest) || busy && now.Before(h.ended.Add(findBusyEvery)) {
		h.busy.Store(false)
		return
	}
	sc, ok, err := h.store.ClaimPuzzleScan(ctx, findLease)
	if err != nil || !ok {
		if err != nil {
			h.log.Warn("taking a match to search for puzzles", "err", err)
		}
		h.busy.Store(false)
		return
	}
	h.run.Spawn(func(ctx context.Context) {
		start := h.clock.Now()
		h.search(ctx, sc)
		h.forgetTables()
		end := h.clock.Now()
		h.rest = end.Add(findRest * end.Sub(start))
		h.ended = end
		h.busy.Store(false)
	})
}

// handlersBusy reports whether the handlers were given more than findBusy
// interactions a second since the last look (over a second at least, so
// that a few clicks just before a look are not a rate), and starts the
// next look's count.
func (h *puzzleFinder) handlersBusy() bool {
	if h.served == nil {
		return false
	}
	now, n := h.clock.Now(), h.served()
	since := max(now.Sub(h.looked), time.Second)
	busy := !h.looked.IsZero() && float64(n-h.seen) > findBusy*since.Seconds()
	h.looked, h.seen = now, n
	return busy
}

// evaluator is what the searches value positions with: the AI's engine
// with a table of its own of findTableMB, made once (a table's memory is
// mapped for the process's life), or the AI itself when it is not the
// engine (the tests' stand-ins).
func (h *puzzleFinder) evaluator() puzzle.Evaluator {
	h.own.Do(func() {
		h.eval = h.engine.ai
		if e, ok := h.engine.ai.(*ai.Engine); ok {
			h.eval = e.WithTableMB(findTableMB)
		}
	})
	return h.eval
}

// forgetTables gives the memory of the searches' tables back to the
// system (ai.Engine.ForgetTables) between searches: 5 MiB that a finder
// at rest, most of the time, has no use for. Called with busy set, after
// a search, never during one.
func (h *puzzleFinder) forgetTables() {
	if f, ok := h.eval.(interface{ ForgetTables() }); ok {
		f.ForgetTables()
	}
}

// search looks for puzzles in the match of sc and stores them.
func (h *puzzleFinder) search(ctx context.Context, sc sessions.PuzzleScan) {
	list, err := h.store.History(ctx, sc.ChannelID, 50)
	if err != nil {
		h.log.Warn("reading a match to search for puzzles", "match", sc.Match, "err", err)
		return // the lease lapses and it is taken again
	}
	var found []sessions.FoundPuzzle
	for _, s := range list {
		if s.ID != sc.Match || !h.searched(s) {
			continue
		}
		fctx, cancel := context.WithTimeout(ctx, findBudget)
		info := puzzle.MatchInfo{Guild: s.GuildID, Match: s.ID, Players: [2]string{s.Players[0].Name, s.Players[1].Name}}
		ps, complete, err := puzzle.FindInMatch(fctx, h.evaluator(), s.Match, info, puzzle.FindOptions{})
		cancel()
		if err != nil && !errors.Is(err, puzzle.ErrInvalidPuzzle) && ctx.Err() == nil {
			h.log.Warn("searching a match for puzzles", "match", s.ID, "err", err)
		}
		for _, p := range ps {
			found = append(found, sessions.FoundPuzzle{GuildID: s.GuildID, ID: p.ID, Puzzle: p.Format(), Match: s.ID,
				Players: [2]string{s.Players[0].ID, s.Players[1].ID}})
		}
		h.log.Info("a match searched for puzzles", "match", s.ID, "found", len(ps), "complete", complete)
	}
	if ctx.Err() != nil {
		return // the process stops: the lease lapses and another takes it
	}
	if _, err := h.store.FinishPuzzleScan(ctx, sc.Match, found); err != nil {
		h.log.Warn("storing the puzzles found in a match", "match", sc.Match, "err", err)
	}
}
