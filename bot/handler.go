package bot

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/sessions"
)

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
	// What the options set, read by NewHandler.
	store     sessions.Store
	log       *slog.Logger
	clock     clock.Clock
	messenger Messenger
	metrics   Metrics
	ai        AI
	policy    sessions.Policy
	retry     outbox.Retry // the tries of REST calls after a response
	// threads is whether a challenge opens a thread when its thread option
	// is left out (WithThreads).
	threads bool
	rand    *lockedRand
	// mounted are routes a test adds after the features' (mount).
	mounted []route
	// puzzles is the store of the puzzles (WithPuzzles); nil: no puzzles.
	puzzles sessions.PuzzleStore

	id       *identity
	routes   *router
	run      *outbox.Runner
	boards   *outbox.Boards
	sched    *outbox.Scheduler
	tourneys *tournaments
	// served counts the interactions Handle was given (PINGs included):
	// the puzzle finder searches only while they come slower than
	// findBusy a second.
	served atomic.Uint64
}

// Option configures a Handler.
type Option func(*Handler)

// WithClock makes the handler run on c instead of the system clock:
// deadlines, the webhooks' lifetimes, the expiry of work queued for a
// delivery, the scheduler's ticks, and the tries and waits of the work
// after a response.
func WithClock(c clock.Clock) Option {
	return func(h *Handler) { h.clock = c }
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
	return func(h *Handler) { h.rand = newRand(seed, seed^0x9e3779b97f4a7c15) }
}

// NewHandler returns a handler that keeps its sessions in store and logs
// unexpected failures to log (slog.Default() when nil). It builds its
// route table from its features (table).
func NewHandler(store sessions.Store, log *slog.Logger, opts ...Option) *Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &Handler{
		store: store, log: log, clock: clock.Real(), metrics: noMetrics{},
		policy: sessions.DefaultPolicy(), retry: outbox.DefaultRetry,
		rand: newRand(rand.Uint64(), rand.Uint64()),
		id:   &identity{},
	}
	for _, o := range opts {
		o(h)
	}
	eng := engine{ai: h.ai, metrics: h.metrics, clock: h.clock}
	h.run = outbox.NewRunner(h.clock, log)
	h.boards = &outbox.Boards{Store: store, Messenger: h.messenger, Log: log, Metrics: h.metrics, Clock: h.clock, Policy: h.policy,
		Analysis: eng.offersAnalysis, Retry: h.retry}
	h.sched = &outbox.Scheduler{Store: store, Boards: h.boards, Log: log, Clock: h.clock, Policy: h.policy,
		Bot: eng.turns(aiBackgroundBudget), Run: h.run}
	h.tourneys = &tournaments{boards: h.boards, log: log, clock: h.clock, policy: h.policy,
		defaults: defaults{policy: h.policy, threads: h.threads}, messenger: h.messenger, rand: h.rand}
	if ts, ok := store.(tournamentStore); ok { // both backends keep tournaments
		h.tourneys.store = ts
	}
	f := features{
		store: store, log: log, policy: h.policy, threads: h.threads, messenger: h.messenger,
		boards: h.boards, sched: h.sched, engine: eng, id: h.id, rand: h.rand, tournaments: h.tourneys, clock: h.clock, puzzles: h.puzzles,
		served: h.served.Load,
	}
	f.wirePuzzles(h.boards, h.sched, h.run)
	global, perRoute := h.middleware()
	h.routes = newRouter(append(table(f), h.mounted...), global, perRoute)
	return h
}

// features are what the features are built from: each takes only what it
// needs of them.
type features struct {
	store     sessions.Store
	log       *slog.Logger
	policy    sessions.Policy
	threads   bool
	messenger Messenger
	boards    *outbox.Boards
	sched     *outbox.Scheduler
	engine    engine
	id        *identity
	rand      *lockedRand
	// tournaments is the feature of tournaments, which the scheduler runs
	// too (RunDue); nil builds one that answers nothing but its routes.
	tournaments *tournaments
	clock       clock.Clock
	// puzzles is the puzzles' store; nil: no puzzles.
	puzzles sessions.PuzzleStore
	// served returns how many interactions the handler has been given;
	// nil counts none.
	served func() uint64
}

// table builds the features from f and returns their route rows, in the
// order Commands registers the subcommands. Adding a feature is a file
// with its small type and its routes method, and one line here.
func table(f features) []route {
	defs := defaults{policy: f.policy, threads: f.threads}
	ch := &challenges{store: f.store, boards: f.boards, log: f.log, defaults: defs, engine: f.engine,
		messenger: f.messenger, id: f.id, rand: f.rand}
	return slices.Concat(
		ch.routes(),
		(&play{store: f.store, boards: f.boards, sched: f.sched, log: f.log, policy: f.policy, engine: f.engine}).routes(),
		(&stats{store: f.store, puzzles: f.puzzleStats()}).routes(),
		(&help{turn: f.policy.TurnTimeout, store: f.store}).routes(),
		(&openChallenges{challenges: ch}).routes(),
		(&forgetting{store: f.store, boards: f.boards, log: f.log}).routes(),
		(&solver{store: f.store, boards: f.boards, log: f.log, engine: f.engine, messenger: f.messenger}).routes(),
		(&serverSettings{store: f.store, log: f.log, defaults: defs, daily: f.dailyReader()}).routes(),
		(&moderation{store: f.store, boards: f.boards, log: f.log}).routes(),
		(&rematches{store: f.store, boards: f.boards, log: f.log, policy: f.policy, engine: f.engine}).routes(),
		(&pictures{store: f.store, log: f.log, messenger: f.messenger}).routes(),
		(&cards{store: f.store, shares: cardStore(f.store), boards: f.boards, log: f.log}).routes(),
		cmp.Or(f.tournaments, &tournaments{}).routes(),
		f.puzzleRoutes(),
	)
}

// mount adds rows to the handler's route table, after its features': a
// feature under test.
func mount(rows ...route) Option {
	return func(h *Handler) { h.mounted = append(h.mounted, rows...) }
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
	h.served.Add(1)
	c := h.newCall(i)
	resp, err := h.routes.serve(ctx, c)
	if err != nil { // only a failure of the routing itself: the middleware answers the rest
		return nil, err
	}
	if len(c.after) > 0 {
		h.run.Queue(i.ID, c.after)
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
		h.run.Delivered(i.ID)
	}
}

// Undelivered tells the handler that the response to i could not be sent:
// the work that waited for it is dropped (what must survive, the board post,
// is in the store and the scheduler does it).
func (h *Handler) Undelivered(i *discordgo.Interaction) {
	if i != nil {
		h.run.Undelivered(i.ID)
	}
}

// Close waits for the background work under way (follow-ups, edits) to
// finish, or for ctx to end, whichever comes first; then it cancels what is
// left. It returns ctx's error if the work did not finish in time. The
// handler must not be used after Close.
func (h *Handler) Close(ctx context.Context) error { return h.run.Close(ctx) }

// WaitIdle waits until no work waits for a delivery and none runs in the
// background, or until ctx ends (returning its error). Tests and tools use
// it to know that every follow-up and edit is done.
func (h *Handler) WaitIdle(ctx context.Context) error { return h.run.WaitIdle(ctx) }

// RunScheduler settles due sessions (RunDue) at once, then every interval,
// until ctx ends. A deadline that passed while the bot was down is thus
// settled within interval of start-up. Failures are logged and retried on
// the next tick.
func (h *Handler) RunScheduler(ctx context.Context, interval time.Duration) {
	h.run.Every(ctx, interval, func(ctx context.Context) {
		if _, err := h.RunDue(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("settling due sessions", "err", err)
		}
	})
}

// RunDue settles every session that has work due at the handler's clock:
// a challenge nobody answered in time is cancelled and a match whose turn
// ran out is forfeited by the player to move (their message edited to say
// so, through the messenger), the bot's turn that is due is played, and a
// board that still has to be posted is posted. Work queued for a response
// that was never delivered is dropped after a minute. It returns how many
// sessions it settled, and the store's error if it could not list them; a
// failure on one session is logged and does not stop the others. Threads
// the bot opened are archived threadArchiveDelay after their match. Then it
// settles the tournaments that have work due (pairing the next round once
// the last result of one is in, starting games, posting the pairings,
// standings and podium); they count among the sessions settled.
func (h *Handler) RunDue(ctx context.Context) (int, error) {
	n, err := h.sched.RunDue(ctx)
	if err != nil {
		return n, err
	}
	k, err := h.tourneys.runDue(ctx)
	return n + k, err
}

// InteractionKind names the kind of interaction i for metrics and logs,
// from a bounded set: "ping", "autocomplete", "command/<subcommand>" for a
// subcommand of /connectn that the route table declares
// ("command/unknown" otherwise; "command/connectn-admin/<subcommand>" for
// the admins' command), "button/<action>" for a custom_id this bot makes
// ("button/unknown" otherwise), "modal", or "other". A nil i is "other".
func (h *Handler) InteractionKind(i *discordgo.Interaction) string {
	if i == nil {
		return "other"
	}
	c := &call{i: i}
	h.routes.resolve(c)
	return c.kind
}

// SetBotUser records the bot user's ID, as the gateway's READY tells it
// (transport.Gateway's OnReady).
func (h *Handler) SetBotUser(id string) { h.id.set(id) }

// identity is who the bot is, as the gateway's READY tells it.
type identity struct {
	user atomic.Value // string: the bot user's ID
}

func (b *identity) set(id string) { b.user.Store(id) }

// is reports whether userID is this bot: its application's ID (the bot
// user's ID for every application made since 2020), or the bot user the
// gateway announced.
func (b *identity) is(i *discordgo.Interaction, userID string) bool {
	if userID == "" {
		return false
	}
	if id, _ := b.user.Load().(string); id == userID {
		return true
	}
	return userID == i.AppID
}

// lockedRand is a random source safe for concurrent use.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newRand(seed1, seed2 uint64) *lockedRand {
	return &lockedRand{r: rand.New(rand.NewPCG(seed1, seed2))}
}

// intn returns a random number in [0, n).
func (l *lockedRand) intn(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.IntN(n)
}
