package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// Store is what the handler needs of the session store; *sessions.Store
// satisfies it. Update must serialise calls for one channel and commit the
// change before it returns.
type Store interface {
	Create(ctx context.Context, s *sessions.Session) (*sessions.Session, error)
	Update(ctx context.Context, channelID string, fn func(*sessions.Session) error) (*sessions.Session, error)
	Abandon(ctx context.Context, channelID string) (int64, error)
}

// How long a channel's session may sit untouched before a new challenge in
// the channel may replace it: a challenge nobody answers (the interaction
// token that posted it lives 15 minutes), and a match nobody plays.
const (
	ChallengeIdle = 15 * time.Minute
	MatchIdle     = 24 * time.Hour
)

// Handler turns one Discord interaction into the response to send. It never
// talks to the network itself: the gateway and HTTP transports deliver the
// interaction and send what Handle returns. A Handler is safe for concurrent
// use; the store serialises changes per channel.
type Handler struct {
	store   Store
	log     *slog.Logger
	now     func() time.Time
	metrics Metrics // nil records nothing
}

// Option configures a Handler.
type Option func(*Handler)

// WithClock makes the handler read the time from now instead of time.Now.
func WithClock(now func() time.Time) Option {
	return func(h *Handler) { h.now = now }
}

// NewHandler returns a handler that keeps its sessions in store and logs
// unexpected failures to log (slog.Default() when nil).
func NewHandler(store Store, log *slog.Logger, opts ...Option) *Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &Handler{store: store, log: log, now: time.Now}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Handle computes the response to interaction i:
//   - PING: a PONG; an autocomplete request: no choices;
//   - the /connectn challenge command: a challenge message with Accept and
//     Decline buttons, or a private message saying what is wrong;
//   - a button click: the updated message (UPDATE_MESSAGE), or a private
//     message when the click is not allowed (not your turn, not your match, a
//     full column, a stale or crafted button) and nothing changed.
//
// Every change is committed to the store before Handle returns. Unexpected
// failures (the store failing) are logged and answered with a private
// apology. Handle returns an error only when i is nil.
func (h *Handler) Handle(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, error) {
	if i == nil {
		return nil, errors.New("handle: nil interaction")
	}
	var (
		resp *discordgo.InteractionResponse
		err  error
	)
	defer func(start time.Time) { h.observe(i, err, start) }(time.Now())
	switch i.Type {
	case discordgo.InteractionPing:
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}, nil
	case discordgo.InteractionApplicationCommand:
		resp, err = h.command(ctx, i)
	case discordgo.InteractionMessageComponent:
		resp, err = h.component(ctx, i)
	case discordgo.InteractionApplicationCommandAutocomplete:
		// No option autocompletes; an empty list is the only valid answer.
		return &discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}},
		}, nil
	default:
		err = errUnsupported
	}
	if err != nil {
		return h.failure(i, err), nil
	}
	return resp, nil
}

// failure maps err to the private message the user sees, logging anything
// that is not the user's doing.
func (h *Handler) failure(i *discordgo.Interaction, err error) *discordgo.InteractionResponse {
	text, ok := userMessage(err)
	if !ok {
		h.log.Error("interaction failed", "interaction", i.ID, "type", i.Type.String(),
			"guild", i.GuildID, "channel", i.ChannelID, "err", err)
		text = "Sorry, something went wrong on my side and nothing was changed. Please try again in a moment."
	} else {
		h.log.Debug("interaction refused", "interaction", i.ID, "channel", i.ChannelID, "reason", err)
	}
	return ephemeral(text)
}

// userID returns the ID of the user who caused i, from the guild member or,
// in a DM, the user.
func userID(i *discordgo.Interaction) string {
	if i.Member != nil && i.Member.User != nil {
		return i.Member.User.ID
	}
	if i.User != nil {
		return i.User.ID
	}
	return ""
}

// userName returns the display name of the user who caused i.
func userName(i *discordgo.Interaction) string {
	if i.Member != nil && i.Member.User != nil {
		return i.Member.DisplayName()
	}
	if i.User != nil {
		return i.User.DisplayName()
	}
	return ""
}

func (h *Handler) command(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, error) {
	data, ok := i.Data.(discordgo.ApplicationCommandInteractionData)
	if !ok || data.Name != commandName {
		return nil, errUnknownCommand
	}
	if len(data.Options) != 1 || data.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
		return nil, errUnknownCommand
	}
	sub := data.Options[0]
	switch sub.Name {
	case subChallenge:
		return h.challenge(ctx, i, data, sub.Options)
	}
	return nil, errUnknownCommand
}

func (h *Handler) challenge(ctx context.Context, i *discordgo.Interaction, data discordgo.ApplicationCommandInteractionData, opts []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error) {
	if i.GuildID == "" || i.ChannelID == "" {
		return nil, errNotInGuild
	}
	me := userID(i)
	if me == "" {
		return nil, fmt.Errorf("challenge without a user: %w", errMalformed)
	}
	req, err := parseChallenge(data, opts)
	if err != nil {
		return nil, err
	}
	if req.opponent.ID == me {
		return nil, errSelfChallenge
	}
	if req.opponent.Bot {
		return nil, errBotOpponent
	}
	match, err := game.NewMatch(req.config)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadSettings, err)
	}
	fresh := &sessions.Session{
		ChannelID: i.ChannelID,
		GuildID:   i.GuildID,
		Players: [2]sessions.Member{
			{ID: me, Name: userName(i)},
			{ID: req.opponent.ID, Name: req.opponentName},
		},
		Config: match.Config(),
		Match:  match,
		Phase:  sessions.PhaseChallenge,
	}
	s, err := h.store.Create(ctx, fresh)
	if errors.Is(err, sessions.ErrActiveSession) && h.closeIdle(ctx, i.ChannelID) {
		s, err = h.store.Create(ctx, fresh)
	}
	if err != nil {
		return nil, err
	}
	h.log.Info("challenge", "match", s.ID, "guild", s.GuildID, "channel", s.ChannelID,
		"challenger", s.Players[0].ID, "opponent", s.Players[1].ID)
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: renderChallenge(s),
	}, nil
}

// errInUse tells closeIdle's update to keep a session that is still in use.
var errInUse = errors.New("session still in use")

// closeIdle cancels the channel's active session when it has sat untouched
// longer than ChallengeIdle (a challenge) or MatchIdle (a match), or when its
// stored row can no longer be read, so that two players who walked away do
// not block the channel for ever. It reports whether it closed one.
func (h *Handler) closeIdle(ctx context.Context, channelID string) bool {
	now := h.now()
	var closed int64
	_, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		idle := now.Sub(s.UpdatedAt)
		if !(s.Phase == sessions.PhaseChallenge && idle > ChallengeIdle) &&
			!(s.Phase == sessions.PhasePlaying && idle > MatchIdle) {
			return errInUse
		}
		s.Phase, closed = sessions.PhaseCancelled, s.ID
		return nil
	})
	switch {
	case err == nil:
		h.log.Info("closed an idle session", "match", closed, "channel", channelID)
		return true
	case errors.Is(err, sessions.ErrCorrupt):
		id, err := h.store.Abandon(ctx, channelID)
		if err != nil {
			h.log.Error("abandon an unreadable session", "channel", channelID, "err", err)
			return false
		}
		h.log.Warn("abandoned an unreadable session", "match", id, "channel", channelID)
		return true
	}
	return false
}

// challengeRequest is a validated /connectn challenge.
type challengeRequest struct {
	opponent     *discordgo.User
	opponentName string
	config       game.Config
}

// parseChallenge reads the options of /connectn challenge, taking the
// opponent from data.resolved (no REST call) and checking every number
// against the bounds Discord was told to enforce.
func parseChallenge(data discordgo.ApplicationCommandInteractionData, opts []*discordgo.ApplicationCommandInteractionDataOption) (challengeRequest, error) {
	req := challengeRequest{config: game.Config{
		Rows: defaultRows, Columns: defaultCols, Connect: defaultConn, Wins: defaultWins,
		Openers: game.Alternate, FirstOpener: game.Player1,
	}}
	ints := map[string]struct {
		dst      *int
		min, max int
	}{
		optRows:    {&req.config.Rows, minRows, maxRows},
		optColumns: {&req.config.Columns, minColumns, maxColumns},
		optConnect: {&req.config.Connect, minConnect, maxConnect},
		optWins:    {&req.config.Wins, minWins, maxWins},
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
	if opponentID == "" {
		return req, errNoOpponent
	}
	if data.Resolved == nil || data.Resolved.Users[opponentID] == nil {
		return req, fmt.Errorf("opponent %s not in resolved users: %w", opponentID, errMalformed)
	}
	req.opponent = data.Resolved.Users[opponentID]
	req.opponentName = req.opponent.DisplayName()
	if m := data.Resolved.Members[opponentID]; m != nil && m.Nick != "" {
		req.opponentName = m.Nick
	}
	if c := req.config; c.Connect > c.Rows && c.Connect > c.Columns {
		return req, &connectError{connect: c.Connect, rows: c.Rows, columns: c.Columns}
	}
	return req, nil
}

func (h *Handler) component(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, error) {
	data, ok := i.Data.(discordgo.MessageComponentInteractionData)
	if !ok {
		return nil, errMalformed
	}
	r, err := parseRoute(data.CustomID)
	if err != nil {
		return nil, err
	}
	if i.ChannelID == "" {
		return nil, fmt.Errorf("component without channel: %w", errMalformed)
	}
	me := userID(i)
	if me == "" {
		return nil, fmt.Errorf("component without a user: %w", errMalformed)
	}
	messageID := ""
	if i.Message != nil {
		messageID = i.Message.ID
	}
	var (
		render   func(*sessions.Session) *discordgo.InteractionResponseData
		finished bool
	)
	s, err := h.store.Update(ctx, i.ChannelID, func(s *sessions.Session) error {
		if s.ID != r.Match {
			return errStale
		}
		p := s.PlayerOf(me)
		switch r.Action {
		case actAccept:
			if s.Phase != sessions.PhaseChallenge {
				return errStale
			}
			if p != game.Player2 {
				if p == game.Player1 {
					return errOwnChallenge
				}
				return errNotForYou
			}
			s.Phase = sessions.PhasePlaying
			s.MessageID = messageID
			render = renderBoard
		case actDecline:
			if s.Phase != sessions.PhaseChallenge {
				return errStale
			}
			if p == game.NoPlayer {
				return errNotForYou
			}
			s.Phase = sessions.PhaseCancelled
			render = func(s *sessions.Session) *discordgo.InteractionResponseData { return renderCancelled(s, me) }
		case actDrop, actForfeit:
			if s.Phase == sessions.PhaseFinished {
				return game.ErrMatchOver
			}
			if s.Phase != sessions.PhasePlaying {
				return errStale
			}
			if p == game.NoPlayer {
				return errNotYourMatch
			}
			if r.Action == actForfeit {
				if err := s.Match.Forfeit(p); err != nil {
					return err
				}
			} else {
				if r.Ply != s.Match.Plies() {
					return errStale
				}
				if _, err := s.Match.Play(p, r.Column-1); err != nil {
					return err
				}
			}
			if s.Match.Over() {
				s.Phase, finished = sessions.PhaseFinished, true
			}
			if s.MessageID == "" {
				s.MessageID = messageID
			}
			render = renderBoard
		}
		return nil
	})
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, errStale
	}
	if err != nil {
		return nil, err
	}
	if finished {
		h.log.Info("match over", "match", s.ID, "channel", s.ChannelID,
			"winner", s.Member(s.Match.Winner()).ID, "forfeit", s.Match.Forfeited())
	}
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: render(s)}, nil
}
