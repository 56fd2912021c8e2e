package outbox

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/internal/clock"

	"github.com/connectn/connectn/sessions"
)

// Scheduler settles the sessions that have work due at its clock: a
// deadline that passed, the bot's turn, a board still to post (the
// store's Due lists them); it also plays the bot's turn after a deferred
// response. The fields are set once, before first use.
type Scheduler struct {
	Store  DueStore
	Boards *Boards
	Log    *slog.Logger
	Clock  clock.Clock
	Policy sessions.Policy
	// Bot takes the bot's turns, each within the background budget.
	Bot sessions.Bot
	// Run is the runner whose expired work RunDue drops.
	Run *Runner
	// Tasks run at every RunDue, after the sessions (the daily puzzle's
	// posts, the search of finished matches for puzzles); each logs its
	// own failures.
	Tasks []func(ctx context.Context)
}

// DueStore is what the scheduler reads and writes.
type DueStore interface {
	BoardStore
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)
	Abandon(ctx context.Context, channelID string) (int64, error)
}

// RunDue settles every session that has work due at the clock: a
// challenge nobody answered in time is cancelled and a match whose turn
// ran out is forfeited by the player to move (their message edited to say
// so), the bot's turn that is due is played, and a board that still has
// to be posted is posted. Work queued for a response that was never
// delivered is dropped after a minute, and the threads the bot opened are
// archived threadArchiveDelay after their match. It returns how many
// sessions it settled, and the store's error if it could not list them; a
// failure on one session is logged and does not stop the others.
func (h *Scheduler) RunDue(ctx context.Context) (int, error) {
	h.Run.Sweep()
	h.Boards.ArchiveDue(ctx)
	channels, err := h.Store.Due(ctx, h.Clock.Now(), dueBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ch := range channels {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		settled, err := h.settle(ctx, ch)
		if err != nil {
			h.Log.Warn("settling a due session", "channel", ch, "err", err)
		}
		if settled {
			n++
		}
	}
	for _, task := range h.Tasks {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		task(ctx)
	}
	return n, nil
}

// settle does what is due in the channel's session: an expired deadline
// first, else the bot's turn, else a board post.
func (h *Scheduler) settle(ctx context.Context, channelID string) (bool, error) {
	now := h.Clock.Now()
	var (
		duty   sessions.Duty
		expiry sessions.Expiry
		match  int64
	)
	s, err := h.Store.Update(ctx, channelID, func(s *sessions.Session) error {
		duty, expiry = s.Due(now, h.Policy)
		match = s.ID
		switch duty {
		case sessions.DutyExpired, sessions.DutyPost:
			return nil
		}
		return sessions.ErrNothingDue // the bot's turn is played below, in an update of its own
	})
	switch {
	case duty == sessions.DutyBot:
		h.BotSettle(ctx, channelID, match)
		return true, nil
	case errors.Is(err, sessions.ErrNothingDue), errors.Is(err, sessions.ErrNotFound):
		return false, nil
	case errors.Is(err, sessions.ErrCorrupt):
		id, aerr := h.Store.Abandon(ctx, channelID)
		if aerr != nil {
			return false, aerr
		}
		h.Log.Warn("abandoned an unreadable session", "match", id, "channel", channelID, "err", err)
		return true, nil
	case err != nil:
		return false, err
	}
	if duty == sessions.DutyExpired {
		h.Boards.Expired(ctx, s, expiry)
	}
	if duty == sessions.DutyPost {
		h.Boards.Post(ctx, s)
	}
	return true, nil
}

// BotSettle plays the bot's turn that is due in session match (from the
// scheduler, or after a deferred response), edits the board message that
// its webhook and message ID name, and posts the next board when a round
// ended.
func (h *Scheduler) BotSettle(ctx context.Context, channelID string, match int64) {
	now := h.Clock.Now()
	var (
		played sessions.Played
		hook   sessions.Webhook
		msgID  string
	)
	s, err := h.Store.Update(ctx, channelID, func(s *sessions.Session) error {
		hook, msgID = s.Webhook, s.MessageID
		var err error
		played, err = s.BotTurn(ctx, match, h.Bot, now, h.Policy)
		return err
	})
	if err != nil {
		if !errors.Is(err, sessions.ErrNothingDue) {
			h.Log.Warn("the bot's turn", "match", match, "channel", channelID, "err", err)
		}
		return
	}
	l := render.Public(s)
	old := *s
	old.Webhook, old.MessageID = hook, msgID
	switch {
	case s.Phase == sessions.PhaseFinished:
		h.Boards.Edit(ctx, &old, h.Boards.MatchOver(ctx, l, s, ""))
	case played.RoundEnded:
		h.Boards.Edit(ctx, &old, render.RoundRecord(l, s, s.Match.Rounds()[played.Round-1]))
	case s.PostDue.IsZero():
		h.Boards.Edit(ctx, &old, render.Board(l, s))
	}
	if !s.PostDue.IsZero() {
		h.Boards.PostPending(ctx, s.ChannelID, s.ID) // the board to post shows the bot's move
	}
}
