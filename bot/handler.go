package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/sessions"
)

// Store is what the handler needs of the session store; every
// sessions.Store backend (sessions/sqlite, sessions/postgres)
// satisfies it. Update must serialise calls for one channel and commit the
// change (with the stats of a match it finishes) before it returns.
type Store interface {
	Create(ctx context.Context, s *sessions.Session) (*sessions.Session, error)
	Get(ctx context.Context, channelID string) (*sessions.Session, error)
	Update(ctx context.Context, channelID string, fn func(*sessions.Session) error) (*sessions.Session, error)
	Abandon(ctx context.Context, channelID string) (int64, error)
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)
	Stats(ctx context.Context, guildID, userID string, vsAI bool) (sessions.Stats, error)
	Pair(ctx context.Context, guildID, userID, opponentID string) (sessions.PairRecord, error)
	Leaderboard(ctx context.Context, guildID string, limit int) ([]sessions.Stats, error)
}

// Default deadlines, used unless WithTimeouts sets others.
const (
	DefaultChallengeTimeout = 5 * time.Minute
	DefaultTurnTimeout      = 5 * time.Minute
)

// Handler turns one Discord interaction into the response to send, and does
// the work that follows a response (the next round's board, deadlines)
// through its Messenger. Handle never talks to the network itself: the
// gateway and HTTP transports deliver the interaction, send what Handle
// returns, and then call Delivered. A Handler is safe for concurrent use; the
// store serialises changes per channel.
type Handler struct {
	store     Store
	log       *slog.Logger
	now       func() time.Time
	messenger Messenger
	metrics   Metrics
	ai        AI
	botUser   atomic.Value // string: the bot user's ID, from the gateway

	challengeTimeout, turnTimeout time.Duration

	randMu sync.Mutex
	rand   *rand.Rand

	after     afterQueue
	work      sync.WaitGroup
	running   atomic.Int64
	workCtx   context.Context
	stopWork  context.CancelFunc
	closeOnce sync.Once
}

// Option configures a Handler.
type Option func(*Handler)

// WithClock makes the handler read the time from now instead of time.Now.
func WithClock(now func() time.Time) Option {
	return func(h *Handler) { h.now = now }
}

// WithMessenger gives the handler its way to Discord for follow-ups and
// edits after a response. Without one, the handler still answers every
// interaction and settles deadlines in the store, but posts no follow-up:
// the next round's board then appears only with /connectn board.
func WithMessenger(m Messenger) Option {
	return func(h *Handler) { h.messenger = m }
}

// WithTimeouts sets how long a challenge waits for an answer and how long a
// player has for a turn; a value <= 0 keeps the default (5 minutes each).
func WithTimeouts(challenge, turn time.Duration) Option {
	return func(h *Handler) {
		if challenge > 0 {
			h.challengeTimeout = challenge
		}
		if turn > 0 {
			h.turnTimeout = turn
		}
	}
}

// WithSeed seeds the handler's randomness (who opens when the challenger asks
// for a random first player), for reproducible tests.
func WithSeed(seed uint64) Option {
	return func(h *Handler) { h.rand = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
}

// NewHandler returns a handler that keeps its sessions in store and logs
// unexpected failures to log (slog.Default() when nil).
func NewHandler(store Store, log *slog.Logger, opts ...Option) *Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &Handler{
		store: store, log: log, now: time.Now, metrics: noMetrics{},
		challengeTimeout: DefaultChallengeTimeout, turnTimeout: DefaultTurnTimeout,
		rand: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
	}
	h.workCtx, h.stopWork = context.WithCancel(context.Background())
	for _, o := range opts {
		o(h)
	}
	return h
}

// commandFunc handles one subcommand of /connectn.
type commandFunc func(h *Handler, ctx context.Context, i *discordgo.Interaction, opts []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error)

// buttonFunc handles a click on one kind of button.
type buttonFunc func(h *Handler, ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error)

// commandRoutes and buttonRoutes are the routing table: a subcommand name or
// a custom_id action to its own small handler, each in a file of its own.
var (
	commandRoutes = map[string]commandFunc{
		subChallenge:   (*Handler).challengeCommand,
		subForfeit:     (*Handler).forfeitCommand,
		subBoard:       (*Handler).boardCommand,
		subStats:       (*Handler).statsCommand,
		subLeaderboard: (*Handler).leaderboardCommand,
		subHelp:        (*Handler).helpCommand,
	}
	buttonRoutes = map[action]buttonFunc{
		actAccept:     (*Handler).acceptButton,
		actDecline:    (*Handler).declineButton,
		actDrop:       (*Handler).dropButton,
		actForfeit:    (*Handler).forfeitButton,
		actForfeitYes: (*Handler).forfeitConfirmButton,
		actForfeitNo:  (*Handler).forfeitCancelButton,
		actRematch:    (*Handler).rematchButton,
		actPicture:    (*Handler).pictureButton,
		actAnalysis:   (*Handler).analysisButton,
	}
)

// Handle computes the response to interaction i:
//   - PING: a PONG; an autocomplete request: no choices;
//   - a /connectn subcommand: its message, or a private message saying what
//     is wrong;
//   - a button click: the updated message (UPDATE_MESSAGE), a private
//     message (a confirmation, or why the click is refused and nothing
//     changed), or a new message.
//
// Every change is committed to the store before Handle returns. Work that
// must wait until Discord has the response (posting the next round's board)
// is queued for Delivered. Unexpected failures (the store failing, a panic)
// are logged and answered with a private apology. Handle returns an error
// only when i is nil.
func (h *Handler) Handle(ctx context.Context, i *discordgo.Interaction) (resp *discordgo.InteractionResponse, err error) {
	if i == nil {
		return nil, errors.New("handle: nil interaction")
	}
	start := time.Now()
	outcome := OutcomeOK
	defer func() {
		if p := recover(); p != nil {
			h.log.Error("panic while handling an interaction", "interaction", i.ID, "type", i.Type.String(),
				"channel", i.ChannelID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp, err, outcome = ephemeral(apology), nil, OutcomeFailed
		}
		h.metrics.Interaction(InteractionKind(i), outcome, time.Since(start))
	}()
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
		var refused bool
		resp, refused = h.failure(i, err)
		outcome = OutcomeFailed
		if refused {
			outcome = OutcomeRefused
		}
	}
	return resp, nil
}

// apology is the private answer to a failure on our side.
const apology = "Sorry, something went wrong on my side and nothing was changed. Please try again in a moment."

// failure maps err to the private message the user sees, logging anything
// that is not the user's doing; it reports whether err was the user's.
func (h *Handler) failure(i *discordgo.Interaction, err error) (*discordgo.InteractionResponse, bool) {
	text, ok := userMessage(err)
	if !ok {
		h.log.Error("interaction failed", "interaction", i.ID, "type", i.Type.String(),
			"guild", i.GuildID, "channel", i.ChannelID, "err", err)
		return ephemeral(apology), false
	}
	h.log.Debug("interaction refused", "interaction", i.ID, "channel", i.ChannelID, "reason", err)
	return ephemeral(text), true
}

func (h *Handler) command(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, error) {
	data, ok := i.Data.(discordgo.ApplicationCommandInteractionData)
	if !ok || data.Name != commandName {
		return nil, errUnknownCommand
	}
	if len(data.Options) != 1 || data.Options[0] == nil || data.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
		return nil, errUnknownCommand
	}
	sub := data.Options[0]
	run, known := commandRoutes[sub.Name]
	if !known {
		return nil, errUnknownCommand
	}
	if i.GuildID == "" || i.ChannelID == "" {
		return nil, errNotInGuild
	}
	if userID(i) == "" {
		return nil, fmt.Errorf("command without a user: %w", errMalformed)
	}
	return run(h, ctx, i, sub.Options)
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
	if userID(i) == "" {
		return nil, fmt.Errorf("component without a user: %w", errMalformed)
	}
	resp, err := buttonRoutes[r.Action](h, ctx, i, r)
	if errors.Is(err, errSettled) {
		// A button of a session that has ended (expired while its message
		// could not be edited, or a client still showing old buttons):
		// the message shows how it ended.
		return h.showSettled(ctx, i, r.Match)
	}
	return resp, err
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

// messageID returns the ID of the message a component interaction came
// from, "" for a command.
func messageID(i *discordgo.Interaction) string {
	if i.Message != nil {
		return i.Message.ID
	}
	return ""
}

// webhookOf returns the webhook of interaction i, naming the board message
// as ref ("@original", a message ID, or "" while it is not posted yet).
func webhookOf(i *discordgo.Interaction, ref string, now time.Time) sessions.Webhook {
	return sessions.Webhook{AppID: i.AppID, Token: i.Token, Message: ref, At: now.UTC()}
}

// update is the store's Update for the channel of i.
func (h *Handler) update(ctx context.Context, i *discordgo.Interaction, fn func(*sessions.Session) error) (*sessions.Session, error) {
	s, err := h.store.Update(ctx, i.ChannelID, fn)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, errStale
	}
	return s, err
}

// updateMatch runs fn on the channel's session when it is match, at the
// handler's time now, after settling a deadline that has passed: then fn is
// not called and expired is true. Another session in the channel is
// errStale; the session over already is errSettled (which component turns
// into the message showing how it ended).
func (h *Handler) updateMatch(ctx context.Context, i *discordgo.Interaction, match int64, fn func(s *sessions.Session, now time.Time) error) (s *sessions.Session, expired bool, err error) {
	now := h.now()
	s, err = h.update(ctx, i, func(s *sessions.Session) error {
		if s.ID != match {
			return errStale
		}
		if !s.Phase.Active() {
			return errSettled
		}
		if expired = h.expire(s, now) != ""; expired {
			return nil
		}
		return fn(s, now)
	})
	return s, expired, err
}

// updateMessage is an UPDATE_MESSAGE response.
func updateMessage(data *message) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: data}
}

// newMessage is a CHANNEL_MESSAGE_WITH_SOURCE response seen by everyone.
func newMessage(data *message) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: data}
}

// intn returns a random number in [0, n).
func (h *Handler) intn(n int) int {
	h.randMu.Lock()
	defer h.randMu.Unlock()
	return h.rand.IntN(n)
}
