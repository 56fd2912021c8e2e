package bot

import (
	"context"
	"errors"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// errSettled tells a click's update that the session is over (or has just
// been settled), so the message it came from should show how it ended.
var errSettled = errors.New("session over")

// dropButton drops the clicker's disc in the button's column, and in a
// match against the bot the bot's reply too. The message becomes the new
// board; when a disc ends a round that the match outlives, the message
// becomes that round's record and the next round's board is posted as a
// new message once Discord has the response; when it ends the match, the
// message shows the result and the Rematch button. When the bot cannot
// reply within the response's time, the response is a deferred update and
// the bot's move edits the message once it is made.
func (h *Handler) dropButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	me := userID(i)
	var (
		round      int
		roundEnded bool
		aiLate     bool
	)
	s, expired, err := h.updateMatch(ctx, i, r.Match, func(s *sessions.Session, now time.Time) error {
		roundEnded, aiLate = false, false
		if s.Phase == sessions.PhaseChallenge {
			return errStale
		}
		p := s.PlayerOf(me)
		if p == game.NoPlayer {
			return errNotYourMatch
		}
		if r.Post != s.PostSeq {
			return &movedError{link: boardLink(s)}
		}
		if r.Ply != s.Match.Plies() {
			return errStale
		}
		round = s.Match.Round().Number()
		if _, err := s.Match.Play(p, r.Column-1); err != nil {
			return err
		}
		s.Webhook = webhookOf(i, "@original", now)
		if aiToMove(s) {
			if _, err := h.aiTurn(ctx, s, inlineBudget(ctx)); err != nil {
				h.log.Warn("the bot could not reply in time; it will reply after the response", "match", s.ID, "err", err)
				aiLate = true
			}
		}
		roundEnded = h.afterMoves(s, round, now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case expired:
		return updateMessage(h.renderSettled(ctx, s)), nil
	case s.Phase == sessions.PhaseFinished:
		h.log.Info("match over", "match", s.ID, "channel", s.ChannelID, "winner", s.Member(s.Match.Winner()).ID)
		return updateMessage(h.renderMatchOver(ctx, s, false)), nil
	case roundEnded:
		h.afterResponse(i, func(ctx context.Context) {
			h.postPending(ctx, s.ChannelID, s.ID)
			if aiLate {
				h.aiSettle(ctx, s.ChannelID, s.ID)
			}
		})
		return updateMessage(renderRoundRecord(s, s.Match.Rounds()[round-1])), nil
	case aiLate:
		h.afterResponse(i, func(ctx context.Context) { h.aiSettle(ctx, s.ChannelID, s.ID) })
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}, nil
	}
	return updateMessage(renderBoard(s)), nil
}

// inlineBudget is the time the bot may think inside the response to an
// interaction handled under ctx: aiInlineBudget, or less when ctx ends
// sooner, keeping half a second to answer.
func inlineBudget(ctx context.Context) time.Duration {
	budget := aiInlineBudget
	if dl, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(dl)-500*time.Millisecond)
	}
	return max(budget, 0)
}

// showSettled answers a click on a message of a session that is over by
// updating that message to show how it ended (the message may have missed
// the edit), or privately when the channel has moved on to another session.
func (h *Handler) showSettled(ctx context.Context, i *discordgo.Interaction, match int64) (*discordgo.InteractionResponse, error) {
	s, err := h.store.Get(ctx, i.ChannelID)
	if err != nil || s.ID != match || s.Phase.Active() {
		return nil, errStale
	}
	return updateMessage(h.renderSettled(ctx, s)), nil
}

// boardLink returns the link to s's live board message, "" while its ID is
// not known.
func boardLink(s *sessions.Session) string {
	if s.MessageID == "" || s.GuildID == "" {
		return ""
	}
	return messageLink(s.GuildID, s.ChannelID, s.MessageID)
}

// forfeitPrompt is the private confirmation a player sees before forfeiting.
func forfeitPrompt(s *sessions.Session, p game.Player) *discordgo.InteractionResponse {
	resp := ephemeral("Forfeit the match? " + name(s, p.Other()) +
		" wins it, and it counts as a loss in your stats. The board does not change until you confirm.")
	resp.Data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Forfeit match", Style: discordgo.DangerButton, CustomID: route{Action: actForfeitYes, Match: s.ID}.String()},
		discordgo.Button{Label: "Keep playing", Style: discordgo.SecondaryButton, CustomID: route{Action: actForfeitNo, Match: s.ID}.String()},
	}}}
	return resp
}

// askForfeit checks that userID may forfeit s and returns the prompt.
func askForfeit(s *sessions.Session, userID string) (*discordgo.InteractionResponse, error) {
	if s.Phase != sessions.PhasePlaying {
		return nil, errNoMatch
	}
	p := s.PlayerOf(userID)
	if p == game.NoPlayer {
		return nil, errNotYourMatch
	}
	return forfeitPrompt(s, p), nil
}

// forfeitButton answers the board's Forfeit match button with the private
// confirmation; nothing changes yet.
func (h *Handler) forfeitButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	s, err := h.store.Get(ctx, i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) || (err == nil && s.ID != r.Match) {
		return nil, errStale
	}
	if err != nil {
		return nil, err
	}
	return askForfeit(s, userID(i))
}

// forfeitCommand handles /connectn forfeit: the same private confirmation
// for the channel's match.
func (h *Handler) forfeitCommand(ctx context.Context, i *discordgo.Interaction, _ []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error) {
	s, err := h.store.Get(ctx, i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, errNoMatch
	}
	if err != nil {
		return nil, err
	}
	return askForfeit(s, userID(i))
}

// forfeitConfirmButton forfeits the match for the player who confirms: the
// confirmation says so, and the board message shows the result once
// Discord has the response.
func (h *Handler) forfeitConfirmButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	me := userID(i)
	s, expired, err := h.updateMatch(ctx, i, r.Match, func(s *sessions.Session, _ time.Time) error {
		if s.Phase != sessions.PhasePlaying {
			return errMatchEnded
		}
		p := s.PlayerOf(me)
		if p == game.NoPlayer {
			return errNotYourMatch
		}
		if err := s.Match.Forfeit(p); err != nil {
			return err
		}
		s.Phase, s.End = sessions.PhaseFinished, sessions.EndForfeit
		return nil
	})
	if errors.Is(err, errSettled) {
		// The confirmation is a private message: it says so, and the
		// board stays as it is.
		err = errMatchEnded
	}
	if err != nil {
		return nil, err
	}
	h.afterResponse(i, func(ctx context.Context) { h.editBoard(ctx, s, h.renderSettled(ctx, s)) })
	text := "You forfeited the match: " + name(s, s.Match.Winner()) + " wins it."
	if expired {
		text = "Too late: the match had already ended when you confirmed."
	} else {
		h.log.Info("match forfeited", "match", s.ID, "channel", s.ChannelID, "by", me)
	}
	return updateMessage(&message{Content: text, AllowedMentions: noMentions(), Components: []discordgo.MessageComponent{}}), nil
}

// forfeitCancelButton answers Keep playing: nothing changes.
func (h *Handler) forfeitCancelButton(context.Context, *discordgo.Interaction, route) (*discordgo.InteractionResponse, error) {
	return updateMessage(&message{Content: "Forfeit cancelled: the match goes on.", AllowedMentions: noMentions(),
		Components: []discordgo.MessageComponent{}}), nil
}

// boardCommand handles /connectn board: it posts the live board again as a
// new message at the bottom of the channel; the buttons of the old message
// then answer privately where the board went.
func (h *Handler) boardCommand(ctx context.Context, i *discordgo.Interaction, _ []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error) {
	now := h.now()
	kind := ""
	s, err := h.store.Update(ctx, i.ChannelID, func(s *sessions.Session) error {
		if kind = h.expire(s, now); kind != "" {
			return nil
		}
		if s.Phase != sessions.PhasePlaying {
			return errNoMatch
		}
		s.PostSeq++
		s.PostDue = time.Time{} // a board still to post is this one
		s.MessageID = ""
		s.Webhook = webhookOf(i, "@original", now)
		return nil
	})
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, errNoMatch
	}
	if err != nil {
		return nil, err
	}
	if kind != "" {
		h.afterResponse(i, func(ctx context.Context) { h.expired(ctx, s, kind) })
		return nil, errMatchEnded
	}
	h.afterResponse(i, func(ctx context.Context) { h.learnMessageID(ctx, i, s.ID, s.PostSeq) })
	return newMessage(renderBoard(s)), nil
}
