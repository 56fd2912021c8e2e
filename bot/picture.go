package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/picture"
	"github.com/connectn/connectn/sessions"
)

// pictureScale is how large the board picture is drawn: 50 pixels a cell.
const pictureScale = 2

// pictureButton answers Picture under the channel's last finished match:
// privately, the deciding round's final board drawn as an image in the
// match's theme (the classroom canvas of seed 002). Drawing and uploading
// happen after a deferred response, through the interaction's webhook.
// Once the channel has moved on to another session, the button is stale.
func (h *Handler) pictureButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	s, err := h.store.Get(ctx, i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) || (err == nil && s.ID != r.Match) {
		return nil, errStale
	}
	if err != nil {
		return nil, err
	}
	if s.Phase != sessions.PhaseFinished || h.messenger == nil {
		return nil, errStale
	}
	h.afterResponse(i, func(ctx context.Context) { h.sendPicture(ctx, i, s) })
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &message{Flags: discordgo.MessageFlagsEphemeral},
	}, nil
}

// sendPicture draws s's last round and puts it in the deferred private
// answer to i.
func (h *Handler) sendPicture(ctx context.Context, i *discordgo.Interaction, s *sessions.Session) {
	var png bytes.Buffer
	r := s.Match.Round()
	if err := picture.Encode(&png, r, themeNamed(s.Theme).Picture, pictureScale); err != nil {
		h.log.Error("drawing the board picture", "match", s.ID, "err", err)
		return
	}
	file := fmt.Sprintf("connectn-match-%d-round-%d.png", s.ID, r.Number())
	msg := &message{
		Content:         fmt.Sprintf("Round %d of %s vs %s, as it ended.", r.Number(), escapeName(s.Players[0].Name), escapeName(s.Players[1].Name)),
		AllowedMentions: noMentions(),
		Embeds:          []*discordgo.MessageEmbed{{Image: &discordgo.MessageEmbedImage{URL: "attachment://" + file}, Color: themeNamed(s.Theme).color(s.Match.Winner())}},
		Components:      []discordgo.MessageComponent{},
	}
	err := h.early(ctx, func() error {
		// A fresh reader each try: a failed upload consumed the last one.
		msg.Files = []*discordgo.File{{Name: file, ContentType: "image/png", Reader: bytes.NewReader(png.Bytes())}}
		return h.messenger.EditWebhookMessage(ctx, i.AppID, i.Token, "@original", msg)
	}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	if err != nil {
		h.log.Warn("sending the board picture", "match", s.ID, "channel", s.ChannelID, "err", restErrorText(err))
	}
}
