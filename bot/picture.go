package bot

import (
	"context"
	"log/slog"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/sessions"
)

// pictures is the feature of the Picture button under a finished match.
type pictures struct {
	store     historyStore
	log       *slog.Logger
	messenger Messenger // nil: no picture (it is sent through the messenger)
}

func (h *pictures) routes() []route {
	return []route{button("picture", matchParts, h.picture,
		mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource))}
}

// picture answers Picture under the channel's last finished match:
// privately, the deciding round's final board drawn as an image in the
// match's theme (the classroom canvas of seed 002). Drawing and uploading
// happen after a deferred response, through the interaction's webhook.
// It stays for a while after the channel moved on (finishedMatch).
func (h *pictures) picture(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, err := finishedMatch(ctx, h.store, c)
	if err != nil {
		return nil, err
	}
	if h.messenger == nil {
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	return c.deferPrivate(func(context.Context) *message {
		msg, err := render.Picture(c.reader, s)
		if err != nil {
			h.log.Error("drawing the board picture", "match", s.ID, "err", err)
			return nil
		}
		return msg
	}), nil
}
