package bot

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/locale"
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
	History(ctx context.Context, channelID string, limit int) ([]*sessions.Session, error)
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)
	Stats(ctx context.Context, guildID, userID string, vsAI bool) (sessions.Stats, error)
	Pair(ctx context.Context, guildID, userID, opponentID string) (sessions.PairRecord, error)
	Leaderboard(ctx context.Context, guildID string, limit int) ([]sessions.Stats, error)
	GuildSettings(ctx context.Context, guildID string) (sessions.GuildSettings, error)
	UpdateGuildSettings(ctx context.Context, guildID, userID string, fn func(*sessions.GuildSettings) error) (sessions.GuildSettings, error)
	LastChallenge(ctx context.Context, guildID, userID string) (time.Time, error)
	ActiveChannelsOf(ctx context.Context, userID string) ([]string, error)
	Forget(ctx context.Context, userID string) (sessions.ForgetCounts, error)
	Rating(ctx context.Context, guildID, userID string) (sessions.MemberRating, error)
	RatingLeaderboard(ctx context.Context, guildID string, limit int) ([]sessions.MemberRating, error)
	RatedToday(ctx context.Context, guildID, userA, userB string, since time.Time) (int, error)
}

// Default deadlines, used unless WithTimeouts sets others.
const (
	DefaultChallengeTimeout = sessions.DefaultChallengeTimeout
	DefaultTurnTimeout      = sessions.DefaultTurnTimeout
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
	policy    sessions.Policy
	retry     retryPolicy  // the tries of REST calls after a response
	botUser   atomic.Value // string: the bot user's ID, from the gateway
	// threads is whether a challenge opens a thread when its thread option
	// is left out (WithThreads).
	threads bool
	// lang speaks the one language the catalog has today, resolved once:
	// a Localizer from the catalog takes its lock and builds its key.
	lang *locale.Localizer

	randMu sync.Mutex
	rand   *rand.Rand

	routes *router
	run    *runner
	boards *boards
}

// Option configures a Handler.
type Option func(*Handler)

// WithClock makes the handler read the time from now instead of time.Now:
// deadlines, the webhooks' lifetimes and the expiry of work queued for a
// delivery.
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
			h.policy.ChallengeTimeout = challenge
		}
		if turn > 0 {
			h.policy.TurnTimeout = turn
		}
	}
}

// WithSeed seeds the handler's randomness (who opens when the challenger asks
// for a random first player), for reproducible tests.
func WithSeed(seed uint64) Option {
	return func(h *Handler) { h.rand = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
}

// NewHandler returns a handler that keeps its sessions in store and logs
// unexpected failures to log (slog.Default() when nil). It routes
// interactions by the route table (routes.go) as it stands when called.
func NewHandler(store Store, log *slog.Logger, opts ...Option) *Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &Handler{
		store: store, log: log, now: time.Now, metrics: noMetrics{},
		policy: sessions.DefaultPolicy(), retry: defaultRetry,
		lang: locale.English(),
		rand: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
	}
	for _, o := range opts {
		o(h)
	}
	h.run = newRunner(h.now, log)
	h.boards = &boards{store: store, messenger: h.messenger, log: log, metrics: h.metrics, now: h.now, policy: h.policy,
		analysis: h.analysisOffered, retry: h.retry}
	global, perRoute := h.middleware()
	h.routes = newRouter(h, routes, global, perRoute)
	return h
}

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
func (h *Handler) Handle(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, error) {
	if i == nil {
		return nil, errors.New("handle: nil interaction")
	}
	c := h.newCall(i)
	resp, err := h.routes.serve(ctx, c)
	if err != nil { // only a failure of the routing itself: the middleware answers the rest
		return nil, err
	}
	if len(c.after) > 0 {
		h.run.queue(i.ID, c.after)
	}
	return resp, nil
}

// Delivered tells the handler that Discord has the response to i, so the
// work that waited for it may start: posting the next round's board as a
// follow-up, learning the ID of a new message. The work runs in the
// background; Close waits for it. Transports call Delivered after sending
// the response; calling it for an interaction with no work is harmless.
func (h *Handler) Delivered(i *discordgo.Interaction) {
	if i != nil {
		h.run.delivered(i.ID)
	}
}

// Undelivered tells the handler that the response to i could not be sent:
// the work that waited for it is dropped (what must survive, the board post,
// is in the store and the scheduler does it).
func (h *Handler) Undelivered(i *discordgo.Interaction) {
	if i != nil {
		h.run.undelivered(i.ID)
	}
}

// Close waits for the background work under way (follow-ups, edits) to
// finish, or for ctx to end, whichever comes first; then it cancels what is
// left. It returns ctx's error if the work did not finish in time. The
// handler must not be used after Close.
func (h *Handler) Close(ctx context.Context) error { return h.run.close(ctx) }

// WaitIdle waits until no work waits for a delivery and none runs in the
// background, or until ctx ends (returning its error). Tests and tools use
// it to know that every follow-up and edit is done.
func (h *Handler) WaitIdle(ctx context.Context) error { return h.run.waitIdle(ctx) }

// RunScheduler settles due sessions (RunDue) at once, then every interval,
// until ctx ends. A deadline that passed while the bot was down is thus
// settled within interval of start-up. Failures are logged and retried on
// the next tick.
func (h *Handler) RunScheduler(ctx context.Context, interval time.Duration) {
	h.run.every(ctx, interval, func(ctx context.Context) {
		if _, err := h.RunDue(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("settling due sessions", "err", err)
		}
	})
}

// intn returns a random number in [0, n).
func (h *Handler) intn(n int) int {
	h.randMu.Lock()
	defer h.randMu.Unlock()
	return h.rand.IntN(n)
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
