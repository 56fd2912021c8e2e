package bot

import (
	"context"
	"errors"
	"log/slog"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/sessions"
)

// moderation is the feature of /connectn-admin end, for members with
// Manage Messages.
type moderation struct {
	store  updater
	boards *outbox.Boards
	log    *slog.Logger
}

func (h *moderation) routes() []route {
	return []route{admin("end", discordgo.PermissionManageMessages, h.end, helpLine("help_admin"))}
}

// end handles /connectn-admin end: the channel's challenge or match ends
// without a result, its message saying who ended it; logged with the
// moderator's ID.
func (h *moderation) end(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	s, err := h.store.Update(ctx, c.i.ChannelID, func(s *sessions.Session) error { return s.EndBy(c.user) })
	if err != nil {
		if errors.Is(err, sessions.ErrNotFound) {
			return nil, sessions.Refuse(sessions.ReasonNothingToEnd)
		}
		return nil, err
	}
	h.log.Info("ended by a moderator", "match", s.ID, "guild", s.GuildID, "channel", s.ChannelID, "moderator", c.user)
	c.afterResponse(func(ctx context.Context) { h.boards.Edit(ctx, s, render.Session(render.Public(s), s)) })
	return render.Ephemeral(c.reader.T("end_done")), nil
}
