package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// play is the feature of a match being played: the column buttons,
// /connectn board, and forfeiting (/connectn forfeit and the board's
// Forfeit match button, confirmed privately).
type play struct {
	store  playStore
	boards *outbox.Boards
	sched  *outbox.Scheduler // plays the bot's turn after a deferred response
	log    *slog.Logger
	policy sessions.Policy
	engine engine
}

// playStore is what play reads and writes.
type playStore interface {
	getter
	updater
}

func (h *play) routes() []route {
	return []route{
		command("forfeit", h.forfeitCommand, helpLine("help_forfeit")),
		command("board", h.board, helpLine("help_board")),
		button("drop", dropParts, h.drop, mayDefer(discordgo.InteractionResponseDeferredMessageUpdate)),
		button("forfeit", matchParts, h.forfeitButton),
		button("forfeit!", matchParts, h.forfeitConfirm),
		button("keep", matchParts, h.forfeitCancel),
	}
}

// drop drops the clicker's disc in the button's column, and in a match
// against the bot the bot's reply too. The message becomes the new board;
// when it ends the match, the message shows the result and the Rematch
// button. When a disc ends a round that the match outlives, the response
// is the next round's board as a new message, and the message clicked
// becomes that round's record once Discord has the response, by an edit
// (see roundEnded). When the bot cannot reply within the response's time,
// the response is a deferred update and the bot's move edits the message
// once it is made (and a round it ends posts the next board as a
// follow-up).
func (h *play) drop(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	var (
		played sessions.Played
		before sessions.Webhook // how the clicked message was reached before the click
	)
	s, expired, err := updateMatch(ctx, h.store, c, h.policy, func(s *sessions.Session) error {
		before = s.Webhook
		var err error
		played, err = s.Drop(ctx, sessions.Click{User: c.user, Post: int(c.id.Part(1)), Ply: int(c.id.Part(2)),
			Column: int(c.id.Part(3)), Message: clickedMessage(c.i), Hook: c.webhook("@original")},
			h.engine.turns(inlineBudget(ctx, c)), c.now, h.policy)
		if err == nil && played.RoundEnded && played.BotLate == nil {
			err = s.PostInResponse()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if played.BotLate != nil {
		h.log.Warn("the bot could not reply in time; it will reply after the response", "match", s.ID, "err", played.BotLate)
	}
	switch {
	case expired != sessions.ExpiryNone:
		return updateMessage(h.boards.Settled(ctx, c.public(s), s)), nil
	case s.Phase == sessions.PhaseFinished:
		h.log.Info("match over", "match", s.ID, "channel", s.ChannelID, "winner", s.Member(s.Match.Winner()).ID)
		return updateMessage(h.boards.MatchOver(ctx, c.public(s), s, "")), nil
	case played.RoundEnded && played.BotLate == nil:
		return h.roundEnded(c, s, played, before), nil
	case played.RoundEnded:
		c.afterResponse(func(ctx context.Context) {
			h.boards.PostPending(ctx, s.ChannelID, s.ID)
			h.sched.BotSettle(ctx, s.ChannelID, s.ID)
		})
		return updateMessage(render.RoundRecord(c.public(s), s, s.Match.Rounds()[played.Round-1])), nil
	case played.BotLate != nil:
		return c.deferUpdate(func(ctx context.Context) { h.sched.BotSettle(ctx, s.ChannelID, s.ID) }), nil
	}
	return updateMessage(render.Board(c.public(s), s)), nil
}

// roundEnded answers the click c that ended a round of s (played) with
// the next round's board as a new message, and once Discord has the
// response, makes the message clicked that round's record, reached as it
// was before the click (before: the previous interaction's webhook, whose
// @original it is). The board stays due (sessions.Session.PostInResponse)
// until the first click on it, which carries its message ID; should no
// click come within the post's grace, the scheduler finds it through the
// click's own webhook (outbox.Boards.Post). With a bot token, whose edits
// need the message's ID once the interaction tokens have died, the ID is
// read at once, as a challenge's is.
//
// The next board travels in the response, which Discord sends and waits
// for, not in a follow-up, a REST call whose answer may be lost: a
// follow-up whose answer was lost could only be looked for with a bot
// token (its webhook lists no follow-ups), and without one it was given
// up rather than risk a second copy (21 boards of about 280 missing under
// a fifth of REST calls failing, docs/load.md). What the REST API carries
// now is an edit, which Discord applies once however often it is sent,
// and a read of the response's message, which changes nothing. The
// channel ends as before: the message clicked is the round's record and
// the new message below it is the next round's board.
func (h *play) roundEnded(c *call, s *sessions.Session, played sessions.Played, before sessions.Webhook) *discordgo.InteractionResponse {
	old := *s
	old.Webhook, old.MessageID = before, clickedMessage(c.i)
	record := render.RoundRecord(render.Public(s), s, s.Match.Rounds()[played.Round-1])
	c.afterResponse(func(ctx context.Context) {
		h.boards.Edit(ctx, &old, record)
		if h.boards.Messenger != nil && h.boards.Messenger.HasBotToken() && !s.Place.WebhookOnly {
			h.boards.LearnMessageID(ctx, c.out(), s.ID, s.PostSeq)
		}
	})
	return newMessage(render.Board(c.public(s), s))
}

// clickedMessage returns the ID of the message a component interaction
// is on, "" when it carries none.
func clickedMessage(i *discordgo.Interaction) string {
	if i.Message == nil {
		return ""
	}
	return i.Message.ID
}

// inlineBudget is the time the bot may think inside the response to c,
// handled under ctx: aiInlineBudget, or less when ctx ends sooner on c's
// clock, keeping half a second to answer.
func inlineBudget(ctx context.Context, c *call) time.Duration {
	budget := aiInlineBudget
	if dl, ok := ctx.Deadline(); ok {
		budget = min(budget, dl.Sub(c.clock.Now())-500*time.Millisecond)
	}
	return max(budget, 0)
}

// board handles /connectn board: it posts the live board again as a new
// message at the bottom of the channel; once Discord has it, the old
// message loses its buttons and links to the new one (a click on it that
// came first is answered privately with the same link).
func (h *play) board(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	expired := sessions.ExpiryNone
	var old sessions.Session // the board message before, to retire
	s, err := h.store.Update(ctx, c.i.ChannelID, func(s *sessions.Session) error {
		old = *s
		var err error
		expired, err = s.Repost(c.webhook("@original"), c.now, h.policy)
		return err
	})
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, sessions.Refuse(sessions.ReasonNoMatch)
	}
	if err != nil {
		return nil, err
	}
	if expired != sessions.ExpiryNone {
		// The deadline settled the match: the old message is edited to
		// say so once the refusal is out.
		c.afterResponse(func(ctx context.Context) { h.boards.Expired(ctx, s, expired) })
		return nil, sessions.Refuse(sessions.ReasonMatchEnded)
	}
	c.afterResponse(func(ctx context.Context) {
		id := h.boards.LearnMessageID(ctx, c.out(), s.ID, s.PostSeq)
		link := ""
		if id != "" && s.GuildID != "" {
			link = render.MessageLink(s.GuildID, s.ChannelID, id)
		}
		// The old message loses its buttons and says where the board
		// went; a click that reached it first is refused as moved.
		h.boards.Edit(ctx, &old, render.Moved(render.Public(s), s, link))
	})
	return newMessage(render.Board(c.public(s), s)), nil
}

// forfeitButton answers the board's Forfeit match button with the private
// confirmation; nothing changes yet.
func (h *play) forfeitButton(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, err := current(ctx, h.store, c)
	if err != nil {
		return nil, err
	}
	return h.askForfeit(c, s)
}

// forfeitCommand handles /connectn forfeit: the same private confirmation
// for the channel's match.
func (h *play) forfeitCommand(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	s, err := h.store.Get(ctx, c.i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, sessions.Refuse(sessions.ReasonNoMatch)
	}
	if err != nil {
		return nil, err
	}
	if s.Phase == sessions.PhaseChallenge {
		return h.withdraw(ctx, c, s.ID)
	}
	return h.askForfeit(c, s)
}

// withdraw ends the channel's pending challenge, session match, for one
// of its players, from /connectn forfeit: nothing is lost, so nothing is
// asked first. The challenge's message, if it can be reached, says how it
// ended; the player is told privately (the message may never have reached
// the channel: then this is the only way to free it before it expires).
func (h *play) withdraw(ctx context.Context, c *call, match int64) (*discordgo.InteractionResponse, error) {
	s, err := updateChannel(ctx, h.store, c, func(s *sessions.Session) error {
		if s.ID != match {
			return sessions.Refuse(sessions.ReasonStale)
		}
		if e := s.Expire(c.now, h.policy); e != sessions.ExpiryNone {
			return nil // it ran out meanwhile: settled as expired
		}
		return s.Withdraw(c.user)
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("challenge withdrawn", "match", s.ID, "channel", s.ChannelID, "by", c.user, "end", s.End)
	if s.End == sessions.EndExpired {
		c.afterResponse(func(ctx context.Context) { h.boards.Expired(ctx, s, sessions.ExpiryChallenge) })
	} else {
		c.afterResponse(func(ctx context.Context) { h.boards.Edit(ctx, s, render.Session(render.Public(s), s)) })
	}
	id := "withdraw_declined"
	switch s.End {
	case sessions.EndWithdrawn:
		id = "withdraw_withdrawn"
	case sessions.EndExpired:
		id = "withdraw_expired"
	}
	return render.Ephemeral(c.reader.T(id, "Challenger", render.Name(c.reader, s, game.Player1), "Opponent", render.Name(c.reader, s, game.Player2))), nil
}

// askForfeit checks that the sender of c may forfeit s and returns the
// private confirmation.
func (h *play) askForfeit(c *call, s *sessions.Session) (*discordgo.InteractionResponse, error) {
	p, err := s.CanForfeit(c.user)
	if err != nil {
		return nil, err
	}
	return render.ForfeitPrompt(c.reader, s, p), nil
}

// forfeitConfirm forfeits the match for the player who confirms: the
// confirmation says so, and the board message shows the result once
// Discord has the response.
func (h *play) forfeitConfirm(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, expired, err := updateMatch(ctx, h.store, c, h.policy, func(s *sessions.Session) error { return s.Forfeit(c.user) })
	if errors.Is(err, sessions.ErrOver) {
		// The confirmation is a private message: it says so, and the
		// board stays as it is.
		err = sessions.Refuse(sessions.ReasonMatchEnded)
	}
	if err != nil {
		return nil, err
	}
	c.afterResponse(func(ctx context.Context) { h.boards.Edit(ctx, s, h.boards.Settled(ctx, render.Public(s), s)) })
	text := c.reader.T("forfeit_done", "Winner", render.Name(c.reader, s, s.Match.Winner()))
	if expired != sessions.ExpiryNone {
		text = c.reader.T("forfeit_too_late")
	} else {
		h.log.Info("match forfeited", "match", s.ID, "channel", s.ChannelID, "by", c.user)
	}
	return updateMessage(&message{Content: text, AllowedMentions: render.NoMentions(), Components: []discordgo.MessageComponent{}}), nil
}

// forfeitCancel answers Keep playing: nothing changes.
func (h *play) forfeitCancel(_ context.Context, c *call) (*discordgo.InteractionResponse, error) {
	return updateMessage(&message{Content: c.reader.T("forfeit_cancelled"), AllowedMentions: render.NoMentions(),
		Components: []discordgo.MessageComponent{}}), nil
}
