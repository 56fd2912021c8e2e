package bot

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// rematches is the feature of the Rematch button under a finished match.
type rematches struct {
	store  rematchStore
	boards *outbox.Boards
	log    *slog.Logger
	policy sessions.Policy
	engine engine
}

// rematchStore is what rematches read and write.
type rematchStore interface {
	getter
	Create(ctx context.Context, s *sessions.Session) (*sessions.Session, error)
}

func (h *rematches) routes() []route { return []route{button("rematch", matchParts, h.rematch)} }

// rematch answers Rematch under a finished match, clicked by one of its
// players: between members it invites the other player to a new match
// with the same settings (a challenge they may Accept or Decline, posted
// as a new message once Discord has the response, expiring as challenges
// do); against the bot the new match starts at once. The player who did
// not open round 1 of the finished match opens round 1 of the next. The
// finished match's message says a rematch was asked for, its Rematch
// disabled and its Picture and Analysis kept (they answer while the
// channel moves on: finishedMatch). A second click, by the same player or
// the other one, while the invitation waits, or two clicks at once, make
// one invitation: the second is told privately (the invitation's Accept
// named as it reads). Anyone else, or a click after the channel moved on,
// is answered privately.
func (h *rematches) rematch(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	old, err := h.store.Get(ctx, c.i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	if err != nil {
		return nil, err
	}
	fresh, err := sessions.Rematch(old, c.match(), c.user, c.name, c.webhook(""), c.now, h.policy)
	if err != nil {
		return nil, acceptNamed(c.public(old), err)
	}
	if err := fresh.Opening(ctx, h.engine.turns(inlineBudget(ctx, c)), c.now); err != nil {
		h.log.Warn("the bot could not open the rematch in time; the scheduler will", "err", err)
	}
	s, err := h.store.Create(ctx, fresh)
	if errors.Is(err, sessions.ErrActiveSession) {
		// Another click won the race: say what it made.
		if now, gerr := h.store.Get(ctx, c.i.ChannelID); gerr == nil {
			_, err = sessions.Rematch(now, c.match(), c.user, c.name, c.webhook(""), c.now, h.policy)
			err = acceptNamed(c.public(now), err)
		}
		if !sessions.IsRefusal(err, sessions.ReasonRematchAsked) && !sessions.IsRefusal(err, sessions.ReasonRematchPending) {
			err = sessions.Refuse(sessions.ReasonBusy)
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	h.log.Info("rematch", "match", s.ID, "after", old.ID, "channel", s.ChannelID, "invitation", s.Invitation())
	c.afterResponse(func(ctx context.Context) { h.boards.PostPending(ctx, s.ChannelID, s.ID) })
	line := c.public(old).T("match_rematch_started")
	if s.Invitation() {
		// Named with the disc they had in the match that ended.
		line = c.public(old).T("match_rematch_asked", "Inviter", render.Name(c.public(old), old, old.PlayerOf(c.user)))
	}
	return updateMessage(h.boards.MatchOver(ctx, c.public(old), old, line)), nil
}

// acceptNamed returns err, a refusal of a Rematch click, with the label of
// the invitation's Accept button (read in l, the invitation's language)
// as the argument Button when it is sessions.ReasonRematchPending, whose
// text tells the clicker to click it; any other error as it is.
func acceptNamed(l *locale.Localizer, err error) error {
	if r, ok := sessions.AsRefusal(err); ok && r.Reason == sessions.ReasonRematchPending {
		return sessions.Refuse(r.Reason, append(slices.Clip(r.Args), "Button", l.T("button_accept"))...)
	}
	return err
}
