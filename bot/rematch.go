package bot

import (
	"context"
	"errors"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/sessions"
)

// rematch starts a new match between the same two players with the same
// settings, when either of them clicks Rematch under a finished match:
// the player who did not open round 1 of the finished match opens round 1
// of the rematch. The finished match's message loses the button and says a
// rematch started; the new board follows as a new message once Discord has
// the response. Anyone else, or a click after the channel moved on, is
// answered privately.
func (h *Handler) rematch(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	old, err := h.store.Get(ctx, c.i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	if err != nil {
		return nil, err
	}
	fresh, err := sessions.Rematch(old, c.id.Match, c.user, c.name, c.webhook(""), c.now, h.policy)
	if err != nil {
		return nil, err
	}
	if err := fresh.Opening(ctx, h.bot(inlineBudget(ctx)), c.now); err != nil {
		h.log.Warn("the bot could not open the rematch in time; the scheduler will", "err", err)
	}
	s, err := h.store.Create(ctx, fresh)
	if errors.Is(err, sessions.ErrActiveSession) {
		return nil, sessions.Refuse(sessions.ReasonBusy)
	}
	if err != nil {
		return nil, err
	}
	h.log.Info("rematch", "match", s.ID, "after", old.ID, "channel", s.ChannelID)
	c.afterResponse(func(ctx context.Context) { h.boards.postPending(ctx, s.ChannelID, s.ID) })
	return updateMessage(h.boards.matchOver(ctx, c.public, old, true)), nil
}
