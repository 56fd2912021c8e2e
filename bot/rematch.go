package bot

import (
	"context"
	"errors"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// rematchButton starts a new match between the same two players with the
// same settings, when either of them clicks Rematch under a finished match:
// the player who did not open round 1 of the finished match opens round 1
// of the rematch. The finished match's message loses the button and says a
// rematch started; the new board follows as a new message once Discord has
// the response. Anyone else, or a click after the channel moved on, is
// answered privately.
func (h *Handler) rematchButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	me, now := userID(i), h.now()
	old, err := h.store.Get(ctx, i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, errStale
	}
	if err != nil {
		return nil, err
	}
	switch {
	case old.ID != r.Match && old.Phase.Active():
		return nil, sessions.ErrActiveSession
	case old.ID != r.Match:
		return nil, errStale
	case old.Phase != sessions.PhaseFinished:
		return nil, errStale
	case old.PlayerOf(me) == game.NoPlayer:
		return nil, errNotYourMatch
	}
	cfg := old.Config
	cfg.FirstOpener = cfg.OpenerOf(1).Other()
	match, err := game.NewMatch(cfg)
	if err != nil {
		return nil, err
	}
	fresh := &sessions.Session{
		ChannelID: old.ChannelID,
		GuildID:   old.GuildID,
		Players:   old.Players,
		Config:    match.Config(),
		Match:     match,
		Phase:     sessions.PhasePlaying,
		Theme:     old.Theme,
		AI:        old.AI,
		Deadline:  now.Add(h.turnTimeout),
		PostSeq:   1,
		PostDue:   now.Add(postGrace),
		Webhook:   webhookOf(i, "", now),
	}
	if me == old.Players[1].ID {
		fresh.Players[1].Name = userName(i)
	} else {
		fresh.Players[0].Name = userName(i)
	}
	if aiToMove(fresh) {
		if _, err := h.aiTurn(ctx, fresh, inlineBudget(ctx)); err != nil {
			h.log.Warn("the bot could not open the rematch in time; the scheduler will", "err", err)
			fresh.Deadline = now
		}
	}
	s, err := h.store.Create(ctx, fresh)
	if err != nil {
		return nil, err
	}
	h.log.Info("rematch", "match", s.ID, "after", old.ID, "channel", s.ChannelID)
	h.afterResponse(i, func(ctx context.Context) { h.postPending(ctx, s.ChannelID, s.ID) })
	return updateMessage(h.renderMatchOver(ctx, old, true)), nil
}
