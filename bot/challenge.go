package bot

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// The bounds and defaults of the challenge's options.
const (
	minRows, maxRows, defaultRows          = 4, 12, 6
	minColumns, maxColumns, defaultColumns = 4, 12, 7
	minConnect, maxConnect, defaultConnect = 3, 12, 4
	minWins, maxWins, defaultWins          = 1, 9, 2
)

// The values of the first option: who opens round 1.
const (
	firstChallenger = "challenger"
	firstOpponent   = "opponent"
	firstRandom     = "random"
)

// challenges is the feature of challenges: /connectn challenge, its
// Accept and Decline buttons, and the thread a match may open (thread.go).
type challenges struct {
	store  challengeStore
	boards *outbox.Boards
	log    *slog.Logger
	defaults
	engine    engine
	messenger Messenger // nil: no thread, no message ID learnt
	id        *identity
	rand      *lockedRand
}

// challengeStore is what challenges read and write.
type challengeStore interface {
	getter
	updater
	settingsReader
	Create(ctx context.Context, s *sessions.Session) (*sessions.Session, error)
	Abandon(ctx context.Context, channelID string) (int64, error)
	LastChallenge(ctx context.Context, guildID, userID string) (time.Time, error)
	RatedToday(ctx context.Context, guildID, userA, userB string, since time.Time) (int, error)
}

func (h *challenges) routes() []route {
	return []route{
		command("challenge", h.challenge, helpLine("help_challenge"),
			mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
		button("accept", matchParts, h.accept),
		button("decline", matchParts, h.decline),
	}
}

// challengeOptions are the options of /connectn challenge.
// Left out, rows, columns, connect, wins, theme and level take the
// server's setting, else the bot's default.
type challengeOptions struct {
	Opponent                     member
	Rows, Columns, Connect, Wins optInt
	First                        string
	Theme, Level                 optString
	Thread, Rated                toggle
	// open is set for /connectn open: no opponent, any member may accept.
	open bool
}

func (o *challengeOptions) declare(s *optionSet) {
	s.user("opponent", &o.Opponent)
	o.board(s)
	s.optChoice("level", &o.Level, levelChoices())
	s.boolean("thread", &o.Thread)
	s.boolean("rated", &o.Rated)
}

// board declares the options of the board and the match, shared with
// /connectn open.
func (o *challengeOptions) board(s *optionSet) {
	s.optInteger("rows", &o.Rows, minRows, maxRows, defaultRows)
	s.optInteger("columns", &o.Columns, minColumns, maxColumns, defaultColumns)
	s.optInteger("connect", &o.Connect, minConnect, maxConnect, defaultConnect)
	s.optInteger("wins", &o.Wins, minWins, maxWins, defaultWins)
	s.oneOf("first", &o.First, firstChallenger, []choice{
		{value: firstChallenger, label: "choice_first_challenger"}, {value: firstOpponent, label: "choice_first_opponent"}, {value: firstRandom, label: "choice_first_random"},
	})
	s.optChoice("theme", &o.Theme, themeChoices())
}

// challenge handles /connectn challenge: it stores a challenge with its
// deadline and answers with the challenge message; against the bot (no
// opponent, or this bot), the match starts at once. With the thread
// option (or CONNECTN_THREADS), it answers "thinking…" and opens a thread
// for the match after the response (openThread). A channel whose
// session has run past its deadline is settled first, so an old challenge
// or match never blocks a new one.
func (h *challenges) challenge(ctx context.Context, c *call, o *challengeOptions) (*discordgo.InteractionResponse, error) {
	rules, err := h.rulesOf(ctx, h.store, c)
	if err != nil {
		return nil, err
	}
	gs := rules.gs
	rows, columns := o.Rows.or(gs.Rows, defaultRows), o.Columns.or(gs.Columns, defaultColumns)
	connect, wins := o.Connect.or(gs.Connect, defaultConnect), o.Wins.or(gs.Wins, defaultWins)
	adm := sessions.Admission{ChannelID: c.i.ChannelID, Challenger: sessions.Entrant{Member: sessions.Member{ID: c.user, Name: c.name},
		Roles: roles(c.i.Member)}, Rows: rows, Columns: columns, Connect: connect,
		LastChallenge: func() (time.Time, error) { return h.store.LastChallenge(ctx, c.i.GuildID, c.user) }}
	if o.Opponent.set && !h.id.is(c.i, o.Opponent.ID) {
		adm.Opponent = &sessions.Entrant{Member: sessions.Member{ID: o.Opponent.ID, Name: o.Opponent.Name}, Roles: o.Opponent.Roles}
	}
	if err := sessions.Admit(gs, adm, c.now); err != nil {
		return nil, err
	}
	thread, err := h.inThread(c, o.Thread, or(gs.Threads, h.threads))
	if err != nil {
		return nil, err
	}
	req := sessions.Challenge{
		ChannelID: c.i.ChannelID, GuildID: c.i.GuildID,
		Challenger: sessions.Member{ID: c.user, Name: c.name},
		Opponent:   sessions.Member{ID: o.Opponent.ID, Name: o.Opponent.Name}, OpponentIsBot: o.Opponent.Bot,
		Config: game.Config{Rows: rows, Columns: columns, Connect: connect, Wins: wins,
			Openers: game.Alternate, FirstOpener: game.Player1},
		Theme:   o.Theme.or(gs.Theme, render.Themes[0].Name),
		Webhook: c.webhook("@original"),
		Place:   rules.place(c),
		Rated:   o.Rated.or(or(gs.Rated, true)),
	}
	req.Place.Open = o.open
	if !o.open && (!o.Opponent.set || h.id.is(c.i, o.Opponent.ID)) {
		if h.engine.ai == nil {
			return nil, sessions.Refuse(reasonNoAI)
		}
		req.AI = o.Level.or(gs.AILevel, ai.DefaultLevel.String())
		if !o.Opponent.set {
			req.Opponent = sessions.Member{ID: c.i.AppID, Name: render.BotName}
		}
	}
	switch o.First {
	case firstOpponent:
		req.Config.FirstOpener = game.Player2
	case firstRandom:
		req.Config.FirstOpener = game.Player(1 + h.rand.intn(2))
	}
	fresh, err := sessions.Open(req, h.policy, c.now)
	if err != nil {
		return nil, err
	}
	if thread {
		c.afterResponse(func(ctx context.Context) { h.openThread(ctx, c, req, o.Thread.set) })
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}, nil
	}
	if err := fresh.Opening(ctx, h.engine.turns(inlineBudget(ctx, c)), c.now); err != nil {
		h.log.Warn("the bot could not open in time; the scheduler will", "err", err)
	}
	s, err := h.store.Create(ctx, fresh)
	if errors.Is(err, sessions.ErrActiveSession) && h.settleForNew(ctx, c) {
		s, err = h.store.Create(ctx, fresh)
	}
	if errors.Is(err, sessions.ErrActiveSession) {
		return nil, sessions.Refuse(sessions.ReasonBusy)
	}
	if err != nil {
		return nil, err
	}
	h.log.Info("challenge", "match", s.ID, "guild", s.GuildID, "channel", s.ChannelID,
		"challenger", s.Players[0].ID, "opponent", s.Players[1].ID, "ai", s.AI)
	if h.messenger != nil && h.messenger.HasBotToken() && !s.Place.WebhookOnly {
		// The ID serves only to edit the message with the bot token once
		// the interaction's webhook has expired (a challenge or a game
		// against the bot left longer than 15 minutes). Without a bot
		// token it is never used, and the opponent's Accept carries it
		// anyway: no request to Discord, no second write.
		c.afterResponse(func(ctx context.Context) { h.boards.LearnMessageID(ctx, c.out(), s.ID, s.PostSeq) })
	}
	if s.AI != "" {
		return newMessage(render.Board(c.public(s), s)), nil
	}
	return newMessage(render.Challenge(c.public(s), s)), nil
}

// ratedCapped reports whether the rated challenge that c accepts is to be
// played unrated: its two members played sessions.RatedPerDay rated
// matches with each other in the last 24 hours (no farming). It reads the
// channel's session as it stands; Accept checks it again.
func (h *challenges) ratedCapped(ctx context.Context, c *call) (bool, error) {
	s, err := h.store.Get(ctx, c.i.ChannelID)
	if err != nil || s.ID != c.match() || !s.Rated || s.Phase != sessions.PhaseChallenge {
		return false, nil // the update below refuses what must be refused
	}
	other := s.Players[1].ID
	if other == sessions.OpenSeat {
		other = c.user
	}
	n, err := h.store.RatedToday(ctx, s.GuildID, s.Players[0].ID, other, c.now.Add(-24*time.Hour))
	return sessions.RatedCapReached(n), err
}

// levelChoices returns the choices of the level option, weakest first.
func levelChoices() []choice {
	out := []choice{}
	for _, l := range ai.Levels() {
		out = append(out, choice{value: l.String(), label: "choice_level_" + l.String()})
	}
	return out
}

// accept starts the match when the challenged member (or, for an open
// challenge, the first member but the challenger) accepts: the challenge
// message becomes the board, with the first turn's deadline. A server
// that asks for a role to play refuses a member without it.
func (h *challenges) accept(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	if c.i.GuildID != "" {
		gs, err := h.store.GuildSettings(ctx, c.i.GuildID)
		if err != nil {
			return nil, err
		}
		if err := gs.MayPlay(roles(c.i.Member)); err != nil {
			return nil, err
		}
	}
	capped, err := h.ratedCapped(ctx, c)
	if err != nil {
		return nil, err
	}
	s, expired, err := updateMatch(ctx, h.store, c, h.policy, func(s *sessions.Session) error {
		if err := s.Accept(sessions.Member{ID: c.user, Name: c.name}, c.messageID(), c.webhook("@original"), c.now, h.policy); err != nil {
			return namingButton(c.public(s), s, err)
		}
		if capped {
			s.PlayUnrated()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if expired != sessions.ExpiryNone {
		return updateMessage(render.Session(c.public(s), s)), nil
	}
	h.log.Info("match started", "match", s.ID, "channel", s.ChannelID)
	return updateMessage(render.Board(c.public(s), s)), nil
}

// decline ends a challenge without a match: declined by the challenged
// member, or withdrawn by the challenger.
func (h *challenges) decline(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, _, err := updateMatch(ctx, h.store, c, h.policy, func(s *sessions.Session) error {
		return namingButton(c.public(s), s, s.Decline(c.user))
	})
	if err != nil {
		return nil, err
	}
	return updateMessage(render.Session(c.public(s), s)), nil
}

// reasonOwnOpenChallenge refuses the challenger's Accept on their own
// open challenge (/connectn open), which has no opponent yet: its Withdraw
// button takes it back. Its text reads the button's label as Button.
var reasonOwnOpenChallenge = sessions.NewReason("own_open_challenge")

// namingButton returns err (nil stays nil), a refusal of a click on the
// message of challenge s, with the label of the button its text tells the
// clicker to use as the argument Button, read in l, the language the
// message is drawn in (which may not be the clicker's): Decline for the
// challenger's own Accept (reasonOwnOpenChallenge and Withdraw on an open
// challenge), Accept for another member's Withdraw on an open challenge.
// Any other error comes back as it is.
func namingButton(l *locale.Localizer, s *sessions.Session, err error) error {
	r, ok := sessions.AsRefusal(err)
	switch {
	case !ok:
	case r.Reason == sessions.ReasonOwnChallenge && s.Place.Open:
		return sessions.Refuse(reasonOwnOpenChallenge, "Button", l.T("button_withdraw"))
	case r.Reason == sessions.ReasonOwnChallenge:
		return sessions.Refuse(r.Reason, append(slices.Clip(r.Args), "Button", l.T("button_decline"))...)
	case r.Reason == sessions.ReasonOpenWithdraw:
		return sessions.Refuse(r.Reason, append(slices.Clip(r.Args), "Button", l.T("button_accept"))...)
	}
	return err
}

// settleForNew makes room for a new session in the channel of c: it ends
// the active session if its deadline has passed (editing its message to
// say so, once the response to c is out), or abandons it if its stored row
// can no longer be read. It reports whether the channel is free now.
func (h *challenges) settleForNew(ctx context.Context, c *call) bool {
	expiry := sessions.ExpiryNone
	s, err := h.store.Update(ctx, c.i.ChannelID, func(s *sessions.Session) error {
		if expiry = s.Expire(c.now, h.policy); expiry == sessions.ExpiryNone {
			return sessions.ErrNothingDue
		}
		return nil
	})
	switch {
	case err == nil:
		c.afterResponse(func(ctx context.Context) { h.boards.Expired(ctx, s, expiry) })
		return true
	case errors.Is(err, sessions.ErrCorrupt):
		id, err := h.store.Abandon(ctx, c.i.ChannelID)
		if err != nil {
			h.log.Error("abandon an unreadable session", "channel", c.i.ChannelID, "err", err)
			return false
		}
		h.log.Warn("abandoned an unreadable session", "match", id, "channel", c.i.ChannelID)
		return true
	}
	return false
}
