package bot

import (
	"context"
	"errors"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/sessions"
)

// Refusals of the thread option.
var (
	// reasonNoThreadHere: the thread option where no thread can be opened
	// (a DM, a group DM, a server where the bot is not a member, a bot
	// without a token).
	reasonNoThreadHere = sessions.NewReason("no_thread_here")
	// reasonThreadPermission: the bot lacks a permission threads need in
	// the channel.
	reasonThreadPermission = sessions.NewReason("thread_permission")
	// reasonThreadFailed: Discord refused to open the thread.
	reasonThreadFailed = sessions.NewReason("thread_failed")
)

// threadPermissions are the permissions the bot needs in a channel to play
// a match in a thread of its own: Create Public Threads and Send Messages
// in Threads (https://discord.com/developers/docs/topics/permissions).
const threadPermissions = discordgo.PermissionCreatePublicThreads | discordgo.PermissionSendMessagesInThreads

// WithThreads sets whether a challenge opens a thread for its match when
// the challenger leaves the thread option out (CONNECTN_THREADS; off by
// default). Where no thread can be opened, the match is then played in
// the channel.
func WithThreads(on bool) Option {
	return func(h *Handler) { h.threads = on }
}

// inThread reports whether the challenge of call c opens a thread for its
// match, as the thread option t (or, left out, the handler's default)
// asks (def when left out: the server's setting, else the bot's). It refuses reasonNoThreadHere when t asks for one where none can
// be opened (outside a server, where the bot is not a member, without a
// bot token) and reasonThreadPermission when the interaction's
// app_permissions lack threadPermissions; the default alone never refuses:
// the match is then played in the channel.
func (h *challenges) inThread(c *call, t toggle, def bool) (bool, error) {
	if !t.or(def) {
		return false, nil
	}
	possible := c.i.GuildID != "" && !webhookOnly(c.i) && h.messenger != nil && h.messenger.HasBotToken()
	switch {
	case !possible && t.set:
		return false, sessions.Refuse(reasonNoThreadHere)
	case !possible:
		return false, nil
	case c.i.AppPermissions&threadPermissions != threadPermissions:
		return false, sessions.Refuse(reasonThreadPermission)
	}
	return true, nil
}

// openThread runs after the deferred response ("thinking…") to a
// challenge with the thread option: it opens a public thread named after
// the players in the channel, stores the challenge (or, against the bot,
// the match) as the thread's session, posts it there with the bot token
// (through the board post of the scheduler, which tries again after a
// failure) and turns the response into a line that links the thread. When
// Discord refuses the thread, the response gives way to a private reply
// that says so and no challenge is left behind; except that a channel
// where no thread can be opened (a thread or a forum post: Discord's code
// 50024), with the thread option left to the bot's default, hosts the
// match itself (playHere).
func (h *challenges) openThread(ctx context.Context, c *call, req sessions.Challenge, explicit bool) {
	l := c.public(nil)
	name := render.ThreadName(l, req.Config.Connect, req.Challenger.Name, req.Opponent.Name)
	thread, err := h.messenger.StartThread(ctx, c.i.ChannelID, name)
	if err != nil && !explicit && outbox.HasCode(err, discordgo.ErrCodeCannotExecuteActionOnThisChannelType) {
		h.playHere(ctx, c, req)
		return
	}
	if err != nil {
		h.log.Warn("opening a thread for a challenge", "channel", c.i.ChannelID, "err", outbox.RESTErrorText(err))
		h.boards.Privately(ctx, c.out(), c.reader.T(reasonThreadFailed.MessageID()))
		return
	}
	req.ChannelID, req.Place.Thread, req.Webhook = thread, true, sessions.Webhook{}
	s := h.openAfter(ctx, c, req)
	if s == nil {
		return
	}
	h.boards.EditOriginal(ctx, c.out(), render.ThreadLink(l, s))
	h.boards.PostPending(ctx, s.ChannelID, s.ID)
}

// playHere stores the challenge req in the channel it was made in, after
// a deferred response, and posts it as a follow-up through the
// interaction's webhook (a new message, so that the opponent's mention
// notifies them, which an edit would not), in place of the "thinking…"
// response. A channel already busy gets the refusal, privately.
func (h *challenges) playHere(ctx context.Context, c *call, req sessions.Challenge) {
	req.Webhook = c.webhook("")
	if s := h.openAfter(ctx, c, req); s != nil {
		h.boards.Privately(ctx, c.out(), "") // the "thinking…" response goes
		h.boards.PostPending(ctx, s.ChannelID, s.ID)
	}
}

// openAfter opens and stores the challenge req after the response to c
// (the bot moving first when it opens), its board to be posted by the
// caller (PostDue now; the scheduler posts it if the caller cannot). It
// returns nil after answering c privately when the channel is busy or the
// store fails.
func (h *challenges) openAfter(ctx context.Context, c *call, req sessions.Challenge) *sessions.Session {
	now := c.clock.Now()
	fresh, err := sessions.Open(req, h.policy, now)
	if err == nil {
		if err := fresh.Opening(ctx, h.engine.turns(inlineBudget(ctx, c)), now); err != nil {
			h.log.Warn("the bot could not open in time; the scheduler will", "err", err)
		}
		fresh.PostDue = now // posted below; the scheduler tries again after a failure
		fresh, err = h.store.Create(ctx, fresh)
	}
	switch {
	case errors.Is(err, sessions.ErrActiveSession):
		h.boards.Privately(ctx, c.out(), c.reader.T(sessions.ReasonBusy.MessageID()))
		return nil
	case err != nil:
		h.log.Error("storing a challenge", "channel", req.ChannelID, "err", err)
		h.boards.Privately(ctx, c.out(), c.reader.T("apology"))
		return nil
	}
	h.log.Info("challenge", "match", fresh.ID, "guild", fresh.GuildID, "channel", fresh.ChannelID, "from", c.i.ChannelID,
		"challenger", fresh.Players[0].ID, "opponent", fresh.Players[1].ID, "ai", fresh.AI)
	return fresh
}
