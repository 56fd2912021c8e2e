package bot

import (
	"context"
	"errors"

	"github.com/connectn/connectn/sessions"
)

// RunDue settles every session that has work due at the handler's clock:
// a challenge nobody answered in time is cancelled and a match whose turn
// ran out is forfeited by the player to move (their message edited to say
// so, through the messenger), the bot's turn that is due is played, and a
// board that still has to be posted is posted. Work queued for a response
// that was never delivered is dropped after a minute. It returns how many
// sessions it settled, and the store's error if it could not list them; a
// failure on one session is logged and does not stop the others. Threads
// the bot opened are archived threadArchiveDelay after their match.
func (h *Handler) RunDue(ctx context.Context) (int, error) {
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
func (h *Handler) settle(ctx context.Context, channelID string) (bool, error) {
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

// settleForNew makes room for a new session in the channel of c: it ends
// the active session if its deadline has passed (editing its message to
// say so, once the response to c is out), or abandons it if its stored row
// can no longer be read. It reports whether the channel is free now.
func (h *Handler) settleForNew(ctx context.Context, c *call) bool {
	expiry := sessions.ExpiryNone
	s, err := h.store.Update(ctx, c.i.ChannelID, func(s *sessions.Session) error {
		if expiry = s.Expire(c.now, h.policy); expiry == sessions.ExpiryNone {
			return sessions.ErrNothingDue
		}
		return nil
	})
	switch {
	case err == nil:
		c.afterResponse(func(ctx context.Context) { h.boards.expired(ctx, s, expiry) })
		return true
	case errors.Is(err, sessions.ErrCorrupt):
		id, err := h.store.Abandon(ctx, c.i.ChannelID)
		if err != nil {
			h.log.Error("abandon an unreadable session", "channel", c.i.ChannelID, "err", err)
			return false
		}
		h.log.Warn("abandoned an unreadable session", "match", id, "channel", c.i.ChannelID)
		return true
	}
	return false
}

// botSettle plays the bot's turn that is due in session match (from the
// scheduler, or after a deferred response), edits the board message that
// its webhook and message ID name, and posts the next board when a round
// ended.
func (h *Handler) botSettle(ctx context.Context, channelID string, match int64) {
	now := h.now()
	var (
		played sessions.Played
		hook   sessions.Webhook
		msgID  string
	)
	s, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		hook, msgID = s.Webhook, s.MessageID
		var err error
		played, err = s.BotTurn(ctx, match, h.bot(aiBackgroundBudget), now, h.policy)
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
		h.boards.edit(ctx, &old, renderRoundRecord(l, s, s.Match.Rounds()[played.Round-1]))
	case s.PostDue.IsZero():
		h.boards.edit(ctx, &old, renderBoard(l, s))
	}
	if !s.PostDue.IsZero() {
		h.boards.postPending(ctx, s.ChannelID, s.ID) // the board to post shows the bot's move
	}
}
