package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/sessions"
)

// challengeCommand handles /connectn challenge: it stores a challenge with
// its deadline and answers with the challenge message. A channel whose
// session has run past its deadline is settled first, so an old challenge
// or match never blocks a new one.
func (h *Handler) challengeCommand(ctx context.Context, i *discordgo.Interaction, opts []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error) {
	me := userID(i)
	data, _ := i.Data.(discordgo.ApplicationCommandInteractionData)
	req, err := parseChallenge(data, opts)
	if err != nil {
		return nil, err
	}
	vsBot := req.opponent == nil || h.isBot(i, req.opponent.ID)
	switch {
	case vsBot && h.ai == nil:
		return nil, errNoAI
	case vsBot:
		if req.opponent == nil {
			req.opponent = &discordgo.User{ID: i.AppID, Bot: true}
			req.opponentName = botName
		}
	case req.opponent.ID == me:
		return nil, errSelfChallenge
	case req.opponent.Bot:
		return nil, errBotOpponent
	}
	switch req.first {
	case firstOpponent:
		req.config.FirstOpener = game.Player2
	case firstRandom:
		req.config.FirstOpener = game.Player(1 + h.intn(2))
	}
	match, err := game.NewMatch(req.config)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadSettings, err)
	}
	now := h.now()
	fresh := &sessions.Session{
		ChannelID: i.ChannelID,
		GuildID:   i.GuildID,
		Players: [2]sessions.Member{
			{ID: me, Name: userName(i)},
			{ID: req.opponent.ID, Name: req.opponentName},
		},
		Config:   match.Config(),
		Match:    match,
		Phase:    sessions.PhaseChallenge,
		Theme:    req.theme,
		Deadline: now.Add(h.challengeTimeout),
		Webhook:  webhookOf(i, "@original", now),
	}
	if vsBot {
		// No challenge to accept: the match starts, and the bot opens it
		// if it is its turn.
		fresh.Phase, fresh.AI, fresh.Deadline = sessions.PhasePlaying, req.level, now.Add(h.turnTimeout)
		if aiToMove(fresh) {
			if _, err := h.aiTurn(ctx, fresh, inlineBudget(ctx)); err != nil {
				h.log.Warn("the bot could not open in time; the scheduler will", "err", err)
				fresh.Deadline = now
			}
		}
	}
	s, err := h.store.Create(ctx, fresh)
	if errors.Is(err, sessions.ErrActiveSession) && h.settleForNew(ctx, i) {
		s, err = h.store.Create(ctx, fresh)
	}
	if err != nil {
		return nil, err
	}
	h.log.Info("challenge", "match", s.ID, "guild", s.GuildID, "channel", s.ChannelID,
		"challenger", s.Players[0].ID, "opponent", s.Players[1].ID, "ai", s.AI)
	if h.messenger != nil && h.messenger.HasBotToken() {
		// The ID serves only to edit the message with the bot token once
		// the interaction's webhook has expired (a challenge or a game
		// against the bot left longer than 15 minutes). Without a bot
		// token it is never used, and the opponent's Accept carries it
		// anyway: no request to Discord, no second write.
		h.afterResponse(i, func(ctx context.Context) { h.learnMessageID(ctx, i, s.ID, s.PostSeq) })
	}
	if vsBot {
		return newMessage(renderBoard(s)), nil
	}
	return newMessage(renderChallenge(s)), nil
}

// isBot reports whether userID is this bot: its application's ID (the
// bot user's ID for every application made since 2020), or the bot user
// the gateway announced.
func (h *Handler) isBot(i *discordgo.Interaction, userID string) bool {
	if userID == "" {
		return false
	}
	if id, _ := h.botUser.Load().(string); id == userID {
		return true
	}
	return userID == i.AppID
}

// setBotUser records the bot user's ID, as the gateway's READY tells it.
func (h *Handler) setBotUser(id string) { h.botUser.Store(id) }

// settleForNew makes room for a new session in the channel of i: it ends the
// active session if its deadline has passed (editing its message to say
// so, once the response to i is out), or abandons it if its stored row can
// no longer be read. It reports whether the channel is free now.
func (h *Handler) settleForNew(ctx context.Context, i *discordgo.Interaction) bool {
	now := h.now()
	kind := ""
	s, err := h.store.Update(ctx, i.ChannelID, func(s *sessions.Session) error {
		if kind = h.expire(s, now); kind == "" {
			return errNothingDue
		}
		return nil
	})
	switch {
	case err == nil:
		h.afterResponse(i, func(ctx context.Context) { h.expired(ctx, s, kind) })
		return true
	case errors.Is(err, sessions.ErrCorrupt):
		id, err := h.store.Abandon(ctx, i.ChannelID)
		if err != nil {
			h.log.Error("abandon an unreadable session", "channel", i.ChannelID, "err", err)
			return false
		}
		h.log.Warn("abandoned an unreadable session", "match", id, "channel", i.ChannelID)
		return true
	}
	return false
}

// challengeRequest is a validated /connectn challenge.
type challengeRequest struct {
	opponent     *discordgo.User
	opponentName string
	config       game.Config
	first        string
	theme        string
	level        string // the bot's level, when the opponent is the bot
}

// parseChallenge reads the options of /connectn challenge, taking the
// opponent from data.resolved (no REST call) and checking every value
// against the bounds and choices Discord was told to enforce.
func parseChallenge(data discordgo.ApplicationCommandInteractionData, opts []*discordgo.ApplicationCommandInteractionDataOption) (challengeRequest, error) {
	req := challengeRequest{
		config: game.Config{
			Rows: defaultRows, Columns: defaultCols, Connect: defaultConn, Wins: defaultWins,
			Openers: game.Alternate, FirstOpener: game.Player1,
		},
		first: firstChallenger,
		theme: themes[0].Name,
		level: ai.DefaultLevel.String(),
	}
	ints := map[string]struct {
		dst      *int
		min, max int
	}{
		optRows:    {&req.config.Rows, minRows, maxRows},
		optColumns: {&req.config.Columns, minColumns, maxColumns},
		optConnect: {&req.config.Connect, minConnect, maxConnect},
		optWins:    {&req.config.Wins, minWins, maxWins},
	}
	strs := map[string]struct {
		dst   *string
		valid func(string) bool
	}{
		optFirst: {&req.first, func(v string) bool { return v == firstChallenger || v == firstOpponent || v == firstRandom }},
		optTheme: {&req.theme, knownTheme},
		optLevel: {&req.level, func(v string) bool { _, err := ai.ParseLevel(v); return err == nil && v == strings.ToLower(v) }},
	}
	var opponentID string
	for _, o := range opts {
		if o == nil {
			return req, fmt.Errorf("nil option: %w", errMalformed)
		}
		if o.Name == optOpponent {
			id, ok := o.Value.(string)
			if o.Type != discordgo.ApplicationCommandOptionUser || !ok || id == "" {
				return req, fmt.Errorf("option %s: %w", o.Name, errMalformed)
			}
			opponentID = id
			continue
		}
		if spec, known := strs[o.Name]; known {
			v, ok := o.Value.(string)
			if o.Type != discordgo.ApplicationCommandOptionString || !ok || !spec.valid(v) {
				return req, &choiceError{option: o.Name}
			}
			*spec.dst = v
			continue
		}
		spec, known := ints[o.Name]
		if !known {
			return req, fmt.Errorf("unknown option %q: %w", o.Name, errMalformed)
		}
		f, ok := o.Value.(float64)
		if o.Type != discordgo.ApplicationCommandOptionInteger || !ok || f != float64(int64(f)) {
			return req, fmt.Errorf("option %s: %w", o.Name, errMalformed)
		}
		if f < float64(spec.min) || f > float64(spec.max) {
			return req, &rangeError{option: o.Name, min: spec.min, max: spec.max}
		}
		*spec.dst = int(f)
	}
	if c := req.config; c.Connect > c.Rows && c.Connect > c.Columns {
		return req, &connectError{connect: c.Connect, rows: c.Rows, columns: c.Columns}
	}
	if opponentID == "" {
		return req, nil // the bot
	}
	if data.Resolved == nil || data.Resolved.Users[opponentID] == nil {
		return req, fmt.Errorf("opponent %s not in resolved users: %w", opponentID, errMalformed)
	}
	req.opponent = data.Resolved.Users[opponentID]
	req.opponentName = req.opponent.DisplayName()
	if m := data.Resolved.Members[opponentID]; m != nil && m.Nick != "" {
		req.opponentName = m.Nick
	}
	return req, nil
}

// acceptButton starts the match when the challenged member accepts: the
// challenge message becomes the board, with the first turn's deadline.
func (h *Handler) acceptButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	me := userID(i)
	s, expired, err := h.updateMatch(ctx, i, r.Match, func(s *sessions.Session, now time.Time) error {
		if s.Phase != sessions.PhaseChallenge {
			return errStale
		}
		switch s.PlayerOf(me) {
		case game.Player1:
			return errOwnChallenge
		case game.NoPlayer:
			return errNotForYou
		}
		s.Phase = sessions.PhasePlaying
		s.MessageID = messageID(i)
		s.Webhook = webhookOf(i, "@original", now)
		s.Deadline = now.Add(h.turnTimeout)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if expired {
		return updateMessage(renderSession(s)), nil
	}
	h.log.Info("match started", "match", s.ID, "channel", s.ChannelID)
	return updateMessage(renderBoard(s)), nil
}

// declineButton ends a challenge without a match: declined by the
// challenged member, or withdrawn by the challenger.
func (h *Handler) declineButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	me := userID(i)
	s, _, err := h.updateMatch(ctx, i, r.Match, func(s *sessions.Session, _ time.Time) error {
		if s.Phase != sessions.PhaseChallenge {
			return errStale
		}
		switch s.PlayerOf(me) {
		case game.Player1:
			s.End = sessions.EndWithdrawn
		case game.Player2:
			s.End = sessions.EndDeclined
		default:
			return errNotForYou
		}
		s.Phase = sessions.PhaseCancelled
		return nil
	})
	if err != nil {
		return nil, err
	}
	return updateMessage(renderSession(s)), nil
}
