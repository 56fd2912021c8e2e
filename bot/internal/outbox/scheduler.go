package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/sessions"
)

// scheduler settles the sessions that have work due at its clock: a
// deadline that passed, the bot's turn, a board still to post (the
// store's Due lists them); it also plays the bot's turn after a deferred
// response.
type scheduler struct {
	store  dueStore
	boards *boards
	log    *slog.Logger
	now    func() time.Time
	policy sessions.Policy
	engine engine
	run    *runner
}

// dueStore is what the scheduler reads and writes.
type dueStore interface {
	boardStore
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)
	Abandon(ctx context.Context, channelID string) (int64, error)
}

// runDue is Handler.RunDue.
func (h *scheduler) runDue(ctx context.Context) (int, error) {
	h.run.sweep()
	h.boards.archiveDue(ctx)
	channels, err := h.store.Due(ctx, h.now(), dueBatch)
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
			h.log.Warn("settling a due session", "channel", ch, "err", err)
		}
		if settled {
			n++
		}
	}
	return n, nil
}

// settle does what is due in the channel's session: an expired deadline
// first, else the bot's turn, else a board post.
func (h *scheduler) settle(ctx context.Context, channelID string) (bool, error) {
	now := h.now()
	var (
		duty   sessions.Duty
		expiry sessions.Expiry
		match  int64
	)
	s, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		duty, expiry = s.Due(now, h.policy)
		match = s.ID
		switch duty {
		case sessions.DutyExpired, sessions.DutyPost:
			return nil
		}
		return sessions.ErrNothingDue // the bot's turn is played below, in an update of its own
	})
	switch {
	case duty == sessions.DutyBot:
		h.botSettle(ctx, channelID, match)
		return true, nil
	case errors.Is(err, sessions.ErrNothingDue), errors.Is(err, sessions.ErrNotFound):
		return false, nil
	case errors.Is(err, sessions.ErrCorrupt):
		id, aerr := h.store.Abandon(ctx, channelID)
		if aerr != nil {
			return false, aerr
		}
		h.log.Warn("abandoned an unreadable session", "match", id, "channel", channelID, "err", err)
		return true, nil
	case err != nil:
		return false, err
	}
	if duty == sessions.DutyExpired {
		h.boards.expired(ctx, s, expiry)
	}
	if duty == sessions.DutyPost {
		h.boards.post(ctx, s)
	}
	return true, nil
}

// botSettle plays the bot's turn that is due in session match (from the
// scheduler, or after a deferred response), edits the board message that
// its webhook and message ID name, and posts the next board when a round
// ended.
func (h *scheduler) botSettle(ctx context.Context, channelID string, match int64) {
	now := h.now()
	var (
		played sessions.Played
		hook   sessions.Webhook
		msgID  string
	)
	s, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		hook, msgID = s.Webhook, s.MessageID
		var err error
		played, err = s.BotTurn(ctx, match, h.engine.turns(aiBackgroundBudget), now, h.policy)
		return err
	})
	if err != nil {
		if !errors.Is(err, sessions.ErrNothingDue) {
			h.log.Warn("the bot's turn", "match", match, "channel", channelID, "err", err)
		}
		return
	}
	l := h.boards.public(s)
	old := *s
	old.Webhook, old.MessageID = hook, msgID
	switch {
	case s.Phase == sessions.PhaseFinished:
		h.boards.edit(ctx, &old, h.boards.matchOver(ctx, l, s, ""))
	case played.RoundEnded:
		h.boards.edit(ctx, &old, render.RoundRecord(l, s, s.Match.Rounds()[played.Round-1]))
	case s.PostDue.IsZero():
		h.boards.edit(ctx, &old, render.Board(l, s))
	}
	if !s.PostDue.IsZero() {
		h.boards.postPending(ctx, s.ChannelID, s.ID) // the board to post shows the bot's move
	}
}
