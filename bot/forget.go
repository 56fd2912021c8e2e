package bot

import (
	"context"
	"errors"
	"log/slog"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/bot/internal/customid"

	"github.com/connectn/connectn/sessions"
)

// forgetting is the feature of /connectn forget-me, its confirmation
// and its cancel.
type forgetting struct {
	store  forgetStore
	boards *outbox.Boards
	log    *slog.Logger
}

// forgetStore is what forgetting reads and removes.
type forgetStore interface {
	updater
	ActiveChannelsOf(ctx context.Context, userID string) ([]string, error)
	Forget(ctx context.Context, userID string) (sessions.ForgetCounts, error)
}

func (h *forgetting) routes() []route {
	return []route{
		command("forget-me", h.forgetMe, helpLine("help_forget_me")),
		button("forget", nil, h.forgetConfirm),
		button("forget-keep", nil, h.forgetCancel),
	}
}

// forgetMe handles /connectn forget-me: it asks, privately, whether to
// remove everything kept about the member, with a button that does it
// and one that does not.
func (h *forgetting) forgetMe(_ context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	resp := render.Ephemeral(c.reader.T("forget_prompt"))
	resp.Data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: c.reader.T("button_forget"), Style: discordgo.DangerButton, CustomID: customid.New("forget").String()},
		discordgo.Button{Label: c.reader.T("button_cancel"), Style: discordgo.SecondaryButton, CustomID: customid.New("forget-keep").String()},
	}}}
	return resp, nil
}

// forgetConfirm forgets the member who clicked (whoever made the prompt:
// a crafted click forgets only the one who sends it): each match they
// play ends as their forfeit, each challenge of theirs is called off
// (its message edited after the response), and then the store removes
// every row naming them (sessions.Store's Forget), in every server. The
// prompt becomes the answer. The log keeps the counts, not the member.
func (h *forgetting) forgetConfirm(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	channels, err := h.store.ActiveChannelsOf(ctx, c.user)
	if err != nil {
		return nil, err
	}
	var left []*sessions.Session
	for _, ch := range channels {
		s, err := h.store.Update(ctx, ch, func(s *sessions.Session) error { return s.Leave(c.user) })
		var refused *sessions.Refusal
		switch {
		case errors.Is(err, sessions.ErrOver), errors.Is(err, sessions.ErrNotFound), errors.As(err, &refused):
			continue // it ended, or moved on to a session without them, meanwhile
		case err != nil:
			return nil, err
		}
		left = append(left, s)
	}
	n, err := h.store.Forget(ctx, c.user)
	if err != nil {
		return nil, err
	}
	h.log.Info("a member was forgotten", "matches", n.Matches, "member_stats", n.MemberStats, "pair_records", n.PairRecords,
		"ended", len(left))
	for _, s := range left {
		c.afterResponse(func(ctx context.Context) { h.boards.Edit(ctx, s, render.Session(render.Public(s), s)) })
	}
	return updateMessage(&message{Content: c.reader.T("forget_done"), AllowedMentions: render.NoMentions(),
		Components: []discordgo.MessageComponent{}}), nil
}

// forgetCancel answers the prompt's Cancel: nothing removed.
func (h *forgetting) forgetCancel(_ context.Context, c *call) (*discordgo.InteractionResponse, error) {
	return updateMessage(&message{Content: c.reader.T("forget_cancelled"), AllowedMentions: render.NoMentions(),
		Components: []discordgo.MessageComponent{}}), nil
}
