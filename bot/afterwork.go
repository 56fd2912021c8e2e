package bot

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// RunDue settles every session that has work due at the handler's clock:
// a challenge nobody answered in time is cancelled and a match whose turn
// ran out is forfeited by the player to move (their message edited to say
// so, through the messenger), the bot's turn that is due is played, and a
// board that still has to be posted is posted. Work queued for a response
// that was never delivered is dropped after a minute. It returns how many
// sessions it settled, and the store's error if it could not list them; a
// failure on one session is logged and does not stop the others.
func (h *Handler) RunDue(ctx context.Context) (int, error) {
	h.run.sweep()
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
		h.expired(ctx, s, expiry)
	}
	if duty == sessions.DutyPost {
		h.sendBoard(ctx, s)
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
		c.afterResponse(func(ctx context.Context) { h.expired(ctx, s, expiry) })
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

// expired reports a deadline that fired on s and edits its message.
func (h *Handler) expired(ctx context.Context, s *sessions.Session, e sessions.Expiry) {
	h.metrics.DeadlineFired(string(e))
	attrs := []any{"match", s.ID, "guild", s.GuildID, "channel", s.ChannelID, "deadline", string(e)}
	if e == sessions.ExpiryTurn {
		attrs = append(attrs, "loser", s.Member(s.Match.Winner().Other()).ID)
	}
	h.log.Info("deadline passed", attrs...)
	h.editBoard(ctx, s, h.renderSettled(ctx, h.publicOf(s), s))
}

// publicOf returns the localizer of the messages everyone sees in s's
// channel.
func (h *Handler) publicOf(*sessions.Session) *locale.Localizer { return h.catalog.Localizer() }

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
	l := h.publicOf(s)
	old := *s
	old.Webhook, old.MessageID = hook, msgID
	switch {
	case s.Phase == sessions.PhaseFinished:
		h.editBoard(ctx, &old, h.renderMatchOver(ctx, l, s, false))
	case played.RoundEnded:
		h.editBoard(ctx, &old, renderRoundRecord(l, s, s.Match.Rounds()[played.Round-1]))
	case s.PostDue.IsZero():
		h.editBoard(ctx, &old, renderBoard(l, s))
	}
	if !s.PostDue.IsZero() {
		h.postPending(ctx, s.ChannelID, s.ID) // the board to post shows the bot's move
	}
}

// renderSettled draws a session that is no longer active as its message
// should read, with the players' record against each other for a finished
// match between members.
func (h *Handler) renderSettled(ctx context.Context, l *locale.Localizer, s *sessions.Session) *message {
	if s.Phase != sessions.PhaseFinished {
		return renderSession(l, s)
	}
	return h.renderMatchOver(ctx, l, s, false)
}

// pair returns the record of s's first player against the second in this
// server, or nil (and a log line) when the store cannot say.
func (h *Handler) pair(ctx context.Context, s *sessions.Session) *sessions.PairRecord {
	if s.AI != "" {
		return nil
	}
	rec, err := h.store.Pair(ctx, s.GuildID, s.Players[0].ID, s.Players[1].ID)
	if err != nil {
		h.log.Warn("reading the record between two players", "match", s.ID, "err", err)
		return nil
	}
	return &rec
}

// editBoard replaces s's board message with msg: through the latest
// interaction webhook while its token lives, else with the bot token when
// there is one. When neither can reach the message, it stays as it is and
// the next click on it shows msg instead (the click finds the session
// settled). Failures are logged at warn level.
func (h *Handler) editBoard(ctx context.Context, s *sessions.Session, msg *message) {
	if h.messenger == nil {
		return
	}
	now := h.now()
	var err error
	switch {
	case s.Webhook.Valid(now) && s.Webhook.Message != "":
		err = h.messenger.EditWebhookMessage(ctx, s.Webhook.AppID, s.Webhook.Token, s.Webhook.Message, msg)
	case h.messenger.HasBotToken() && s.MessageID != "":
		err = h.messenger.EditChannelMessage(ctx, s.ChannelID, s.MessageID, msg)
	default:
		h.log.Info("the board message cannot be reached now; the next click on it will show the result",
			"match", s.ID, "channel", s.ChannelID)
		return
	}
	if err != nil {
		h.log.Warn("editing the board message", "match", s.ID, "channel", s.ChannelID, "gone", gone(err), "err", restErrorText(err))
	}
}

// editOriginal replaces the (deferred) response to c with msg, through
// the interaction's webhook.
func (h *Handler) editOriginal(ctx context.Context, c *call, msg *message) {
	if h.messenger == nil {
		return
	}
	files := msg.Files
	err := h.early(ctx, func() error {
		// A fresh reader each try: a failed upload consumed the last one.
		msg.Files = freshFiles(files)
		return h.messenger.EditWebhookMessage(ctx, c.i.AppID, c.i.Token, "@original", msg)
	}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	if err != nil {
		h.log.Warn("sending a deferred answer", "interaction", c.i.ID, "channel", c.i.ChannelID, "kind", c.kind, "err", restErrorText(err))
	}
}

// postPending posts the board that the session of match in channelID still
// has to post, unless someone else is posting it already. Delivered runs
// it as soon as the response that ended the round is delivered.
func (h *Handler) postPending(ctx context.Context, channelID string, match int64) {
	now := h.now()
	s, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		return s.ClaimPost(match, now, h.policy)
	})
	if err != nil {
		if !errors.Is(err, sessions.ErrNothingDue) {
			h.log.Warn("claiming a board post", "match", match, "channel", channelID, "err", err)
		}
		return
	}
	h.sendBoard(ctx, s)
}

// errUnreachable means neither a live webhook nor a bot token can reach the
// channel.
var errUnreachable = errors.New("no live interaction token and no bot token")

// sendBoard posts s's live board as a new message: a follow-up through the
// latest interaction webhook while its token lives, else a channel message
// with the bot token. On success the session learns the new message; on a
// failure that may pass the lease runs out and the scheduler tries again;
// on one that will not (the channel gone, no access, no way in) the post is
// given up, logged, and /connectn board posts the board when asked.
func (h *Handler) sendBoard(ctx context.Context, s *sessions.Session) {
	now := h.now()
	msg := renderBoard(h.publicOf(s), s)
	var (
		id   string
		hook sessions.Webhook
		err  = errUnreachable
	)
	switch {
	case h.messenger == nil:
	case s.Webhook.Valid(now):
		err = h.early(ctx, func() error {
			var err error
			id, err = h.messenger.FollowUp(ctx, s.Webhook.AppID, s.Webhook.Token, msg)
			return err
		}, discordgo.ErrCodeUnknownWebhook)
		hook = s.Webhook
		hook.Message = id
	case h.messenger.HasBotToken():
		id, err = h.messenger.SendChannelMessage(ctx, s.ChannelID, msg)
	}
	seq := s.PostSeq
	if err != nil {
		final := gone(err) || errors.Is(err, errUnreachable)
		h.log.Warn("posting the board", "match", s.ID, "channel", s.ChannelID, "round", s.Match.Round().Number(),
			"retry", !final, "err", restErrorText(err))
		if final {
			h.record(ctx, s, "recording a board post", func(x *sessions.Session) error { return x.PostGivenUp(s.ID, seq) })
		}
		return
	}
	h.record(ctx, s, "recording a board post", func(x *sessions.Session) error { return x.PostDone(s.ID, seq, id, hook) })
}

// record applies fn to the channel of s, logging a failure as doing.
func (h *Handler) record(ctx context.Context, s *sessions.Session, doing string, fn func(*sessions.Session) error) {
	_, err := h.store.Update(ctx, s.ChannelID, fn)
	if err != nil && !errors.Is(err, sessions.ErrNothingDue) {
		h.log.Warn(doing, "match", s.ID, "channel", s.ChannelID, "err", err)
	}
}

// learnMessageID records the ID of the message the response to c created,
// as the board message of post seq of match, unless another was recorded
// since.
func (h *Handler) learnMessageID(ctx context.Context, c *call, match int64, seq int) {
	if h.messenger == nil {
		return
	}
	var id string
	err := h.early(ctx, func() error {
		var err error
		id, err = h.messenger.OriginalMessageID(ctx, c.i.AppID, c.i.Token)
		return err
	}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	if err != nil {
		h.log.Warn("reading the ID of a new message", "match", match, "channel", c.i.ChannelID, "err", restErrorText(err))
		return
	}
	_, err = h.store.Update(ctx, c.i.ChannelID, func(s *sessions.Session) error { return s.LearnMessage(match, seq, id) })
	if err != nil && !errors.Is(err, sessions.ErrNothingDue) {
		h.log.Warn("recording the ID of a new message", "match", match, "channel", c.i.ChannelID, "err", err)
	}
}

// earlyRetries are the waits between tries of a webhook call that Discord
// may not accept yet: over HTTP, the response that acknowledges the
// interaction and a follow-up sent at once can cross, and Discord then
// answers the follow-up as if the webhook did not exist.
var earlyRetries = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// early calls fn, and again after each of earlyRetries while it fails with
// one of the Discord error codes given, or until ctx ends.
func (h *Handler) early(ctx context.Context, fn func() error, codes ...int) error {
	err := fn()
	for _, wait := range earlyRetries {
		if err == nil || !hasCode(err, codes...) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		err = fn()
	}
	return err
}

// hasCode reports whether err is a Discord API error with one of codes.
func hasCode(err error, codes ...int) bool {
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Message == nil {
		return false
	}
	return slices.Contains(codes, re.Message.Code)
}
