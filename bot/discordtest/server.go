package discordtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/connectn/connectn/bot/internal/limits"
)

const (
	defaultToken         = "discordtest-token"
	defaultApplicationID = "1187654321098765432"
	defaultBotName       = "discordtest-bot"

	// discordEpoch is the first millisecond of 2015, the epoch of Discord snowflakes.
	discordEpoch = 1420070400000

	// heartbeatInterval is the interval, in milliseconds, announced in HELLO.
	// It is Discord's usual value; discordgo sends its first heartbeat right
	// after Open, so a test never waits for it.
	heartbeatInterval = 41250

	// writeTimeout bounds every write to a gateway connection.
	writeTimeout = 5 * time.Second

	// originalHostHeader carries the host a request was addressed to before
	// Transport rewrote it.
	originalHostHeader = "X-Discordtest-Original-Host"
)

// ErrNotConnected is returned by DispatchInteraction(JSON) when no
// gateway connection has identified (or resumed).
var ErrNotConnected = errors.New("discordtest: no identified gateway connection")

// ErrClosed is returned by the Wait methods once the Server is closed and
// what they wait for has not happened.
var ErrClosed = errors.New("discordtest: server closed")

type config struct {
	token      string
	appID      string
	user       *discordgo.User
	privileged discordgo.Intent
	now        func() time.Time
	shards     int // GET /gateway/bot's recommended shard count; 0 means 1
	messageIDs func() string
	listener   net.Listener
	resolve    Resolver
	onMessage  func(Message)
	faults     func(Request) Injection
	onResponse func(Response)
	noLogs     bool
	heartbeat  time.Duration // HELLO's heartbeat_interval; 0 means heartbeatInterval
}

// Option configures a Server created by New.
type Option func(*config)

// WithToken sets the bot token the Server accepts, without the "Bot "
// prefix (a leading "Bot " is stripped). The default is "discordtest-token".
func WithToken(token string) Option {
	return func(c *config) { c.token = strings.TrimPrefix(token, "Bot ") }
}

// WithApplicationID sets the application id. It is also the bot user's id
// (the user is named "discordtest-bot"), as on Discord. The default is
// "1187654321098765432".
func WithApplicationID(id string) Option {
	return func(c *config) { c.appID = id }
}

// WithShards sets the shard count GET /gateway/bot recommends (1 by
// default). Whatever it is, interactions are routed as Discord routes
// guild events: to the connection whose shard pair [id, count] has
// id == (guild_id >> 22) % count, and those outside a guild to shard 0.
func WithShards(n int) Option {
	return func(c *config) { c.shards = n }
}

// WithPrivilegedIntents sets the privileged gateway intents (GUILD_MEMBERS,
// GUILD_PRESENCES, MESSAGE_CONTENT) the application may request. By default
// none is allowed, and an IDENTIFY asking for one is closed with code 4014.
func WithPrivilegedIntents(intents discordgo.Intent) Option {
	return func(c *config) { c.privileged = intents }
}

// WithClock sets the clock of the fake's Discord: message timestamps and
// edited timestamps, snowflake ids, the X-Signature-Timestamp of Deliver,
// the reset times of rate-limit headers (FailNext) and the expiry of
// interaction webhook tokens (WebhookTokenLifetime) all read it. now must
// be safe for concurrent use and must not call Server methods; it may
// stand still or jump, and ids stay unique and increasing whatever it
// returns. The default, and a nil now, is time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithListener makes the Server serve on ln, which it closes on Close,
// instead of on a new loopback port: for a fake at a fixed address.
func WithListener(ln net.Listener) Option {
	return func(c *config) { c.listener = ln }
}

// WithMessageIDs makes next give the ID of every message the Server
// creates (responses, follow-ups, channel messages), in order, instead of
// a snowflake of its clock: for tests whose recorded data names the IDs of
// the messages. next must return IDs that are unique, and must not call
// Server methods. Other IDs (interactions, attachments, commands) stay
// snowflakes.
func WithMessageIDs(next func() string) Option {
	return func(c *config) { c.messageIDs = next }
}

// Resolver tells a Server about an interaction it neither dispatched nor
// delivered, from the token of a webhook request: the channel it happened
// in and the ID of the message its response created or updated (behind
// @original). ok is false for a token it does not know either.
type Resolver func(token string) (channelID, originalID string, ok bool)

// WithResolver lets the webhook routes (/webhooks/{app}/{token}...) serve
// the tokens of interactions that were sent to the bot by someone else,
// such as a load generator that signs and sends them itself: the first
// webhook request with such a token asks resolve, and a known token then
// stands for an interaction answered at that moment (its token lives
// WebhookTokenLifetime from then), whose @original is a message the Server
// had not seen, known by its ID and channel only (no content) until the bot
// edits it. Follow-ups and edits are validated and logged as usual. This is
// the Server's thin mode: nothing else about the interaction is known, and
// its response is not checked.
func WithResolver(resolve Resolver) Option {
	return func(c *config) { c.resolve = resolve }
}

// WithOnMessage makes the Server call f with every message write it
// accepts (as Messages logs it), on the goroutine of the request that made
// it, before that request is answered and with the Server's lock held: f
// must be quick and must not call Server methods.
func WithOnMessage(f func(Message)) Option {
	return func(c *config) { c.onMessage = f }
}

// Response is an interaction response the Server received: the body of
// POST /interactions/{id}/{token}/callback, or the answer of an
// Interactions Endpoint URL to Deliver.
type Response struct {
	// InteractionID is the interaction answered: the {id} of the route,
	// which may be one the Server does not know.
	InteractionID string
	// Payload is the response's JSON as the bot sent it (payload_json of a
	// multipart body).
	Payload json.RawMessage
	// Err is nil when the Server accepted the response, and otherwise the
	// *APIError it answered (10062 for an unknown interaction, 40060 for a
	// second response, 50035 or 50006 for an invalid one, ...).
	Err error
}

// WithOnResponse makes the Server call f with every interaction response
// it receives (see Response), accepted or refused, once it has applied it
// (the message it creates or updates is stored, and WithOnMessage told)
// and before the request is answered, on the goroutine of that request,
// without the Server's lock: f may call Server methods, but it holds up
// the answer to the bot, so it should be quick. A load generator that
// dispatches interactions over the gateway learns from it when each is
// answered, without a WaitResponse per interaction.
func WithOnResponse(f func(Response)) Option {
	return func(c *config) { c.onResponse = f }
}

// WithoutLogs makes the Server keep no log of REST requests and message
// writes, for a load generator whose runs would otherwise fill memory
// with them: Requests, BotTokenCalls and Messages return nothing, and
// WaitRequest and WaitMessage wait until their context ends or the Server
// is closed. WithOnMessage and WithOnResponse still tell every write and
// response, and the current state of every message (Message,
// ChannelMessages) and interaction is kept as usual.
func WithoutLogs() Option {
	return func(c *config) { c.noLogs = true }
}

// WebhookTokenLifetime is how long an interaction token stays valid for
// follow-ups, gets, edits and deletes through /webhooks/{app}/{token}...,
// counted from when the interaction was dispatched (DispatchInteraction) or
// delivered (Deliver), on the Server's clock (WithClock). Later requests get
// 401 {"message": "Invalid Webhook Token", "code": 50027}, as on Discord.
// The 3 seconds Discord allows for the interaction callback itself are not
// enforced.
const WebhookTokenLifetime = limits.TokenLifetime

// privilegedIntents are the intents Discord requires to be enabled for the
// application before a bot may identify with them.
const privilegedIntents = discordgo.IntentGuildMembers | discordgo.IntentGuildPresences | discordgo.IntentMessageContent

// Server is a fake Discord REST API and gateway. Its methods are safe for
// concurrent use.
type Server struct {
	cfg      config // immutable after New
	srv      *httptest.Server
	base     *http.Transport
	mux      *http.ServeMux
	upgrader websocket.Upgrader
	wsURL    string
	wg       sync.WaitGroup // gateway connection handlers

	idMu   sync.Mutex
	lastID int64

	latency atomic.Int64 // nanoseconds every REST answer is held back

	mu           sync.Mutex
	closed       bool
	changed      chan struct{} // closed and replaced on every change
	conns        map[*gatewayConn]struct{}
	sessions     map[string]bool
	identifies   [][]byte
	resumes      int                          // RESUMEs received, accepted or not
	interactions map[string]*interactionState // by interaction id
	byToken      map[string]*interactionState // by interaction token
	messages     map[string]*storedMessage    // by message id
	// nonces are the channel posts made with enforce_nonce, by their
	// author and nonce (channelMessageCreate).
	nonces     map[string]nonced
	files      map[string][]byte // uploaded files, by attachment id
	records    []messageRecord
	requests   []Request
	commands   map[string][]byte // by guild id, "" for global
	failures   []failure         // queued by FailNext and Inject, oldest first
	stopStalls chan struct{}     // closed by Close: stalled requests end

	// Channels, as far as the fake knows them (channels.go).
	keptOut      map[string]bool         // channel IDs the bot is not a member of
	denyThreads  map[string]bool         // channel IDs where the bot may not open threads
	dmChannels   map[string]bool         // DMs and group DMs of registered interactions
	channelGuild map[string]string       // guild of the channels of registered interactions
	threads      map[string]*threadState // by channel ID
	threadOrder  []string                // thread IDs, in the order they became known
}

// New starts a Server on a loopback port. Close it when done.
func New(opts ...Option) *Server {
	cfg := config{token: defaultToken, appID: defaultApplicationID}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	cfg.user = &discordgo.User{ID: cfg.appID, Username: defaultBotName, Discriminator: "0", Bot: true}

	s := &Server{
		cfg:          cfg,
		mux:          http.NewServeMux(),
		upgrader:     websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }},
		changed:      make(chan struct{}),
		conns:        make(map[*gatewayConn]struct{}),
		sessions:     make(map[string]bool),
		interactions: make(map[string]*interactionState),
		byToken:      make(map[string]*interactionState),
		messages:     make(map[string]*storedMessage),
		nonces:       make(map[string]nonced),
		files:        make(map[string][]byte),
		commands:     make(map[string][]byte),
		keptOut:      make(map[string]bool),
		denyThreads:  make(map[string]bool),
		dmChannels:   make(map[string]bool),
		channelGuild: make(map[string]string),
		threads:      make(map[string]*threadState),
		stopStalls:   make(chan struct{}),
	}
	s.routes()
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	if cfg.listener != nil {
		s.srv.Listener.Close()
		s.srv.Listener = cfg.listener
	}
	s.srv.Start()
	s.wsURL = "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/ws"
	s.base = &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
	}
	return s
}

// CloseIdleConnections closes the HTTP connections that are open to the
// Server and idle between requests (a client's keep-alive pool), as a
// server does when it shuts down, and goes on serving: a test that counts
// a client's goroutines at rest then sees none for its pooled
// connections. Requests in flight and gateway connections are left alone.
func (s *Server) CloseIdleConnections() {
	// http.Server closes its idle connections when keep-alives are turned
	// off; turned on again, the connections still busy are kept.
	s.srv.Config.SetKeepAlivesEnabled(false)
	s.srv.Config.SetKeepAlivesEnabled(true)
}

// Close closes all gateway connections (with close code 1001), waits for
// their handlers to finish, and shuts down the HTTP server. Close is
// idempotent. Close open discordgo sessions first, or they will try to
// reconnect forever.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stopStalls)
	conns := make([]*gatewayConn, 0, len(s.conns))
	for c := range s.conns {
		c.closing = true
		conns = append(conns, c)
	}
	s.notifyLocked()
	s.mu.Unlock()

	for _, c := range conns {
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseGoingAway, "server closing"),
			time.Now().Add(time.Second))
		_ = c.ws.Close()
	}
	s.wg.Wait()
	s.srv.Close()
	s.base.CloseIdleConnections()
}

// URL returns the base URL of the fake, such as "http://127.0.0.1:34567".
// The REST API is served under URL()+"/api/v9/" and the gateway at the
// ws:// URL returned by GET /gateway.
func (s *Server) URL() string { return s.srv.URL }

// Token returns the bot token the Server accepts, without "Bot ".
func (s *Server) Token() string { return s.cfg.token }

// ApplicationID returns the application id.
func (s *Server) ApplicationID() string { return s.cfg.appID }

// BotUser returns a copy of the bot user.
func (s *Server) BotUser() *discordgo.User {
	u := *s.cfg.user
	return &u
}

// Transport returns a RoundTripper that sends every request to the fake,
// whatever its scheme and host, keeping path and query. Set it as
// Session.Client.Transport to point a discordgo session at the fake.
func (s *Server) Transport() http.RoundTripper {
	return &rewriteTransport{host: s.srv.Listener.Addr().String(), base: s.base}
}

type rewriteTransport struct {
	host string
	base http.RoundTripper
}

// RoundTrip rewrites req's scheme and host to the fake and sends it.
func (t *rewriteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set(originalHostHeader, req.URL.Host)
	r.URL.Scheme = "http"
	r.URL.Host = t.host
	r.Host = ""
	return t.base.RoundTrip(r)
}

// NewSession returns discordgo.New("Bot "+token) (token may already start
// with "Bot "; an empty token gives a session without a bot token, which
// sends no Authorization header, as a bot that only answers HTTP
// interactions may run) with Client.Transport set to Transport(), a
// websocket Dialer that uses no proxy, and ShouldReconnectOnError set to
// false, so that a dropped gateway connection (the Server closing first,
// or discordgo's heartbeat racing Session.Close) cannot start discordgo's
// endless reconnect loop. Set it back to true to test reconnection.
// Everything else keeps discordgo's defaults. The error is the one of
// discordgo.New.
func (s *Server) NewSession(token string) (*discordgo.Session, error) {
	if token != "" && !strings.HasPrefix(token, "Bot ") {
		token = "Bot " + token
	}
	sess, err := discordgo.New(token)
	if err != nil {
		return nil, fmt.Errorf("discordtest: new session: %w", err)
	}
	sess.Client.Transport = s.Transport()
	sess.Dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	sess.ShouldReconnectOnError = false
	return sess, nil
}

// notifyLocked wakes every waiter. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// wait calls check with s.mu held until it returns true, the context is
// done, or the Server is closed.
func (s *Server) wait(ctx context.Context, what string, check func() bool) error {
	for {
		s.mu.Lock()
		ok := check()
		ch, closed := s.changed, s.closed
		s.mu.Unlock()
		if ok {
			return nil
		}
		if closed {
			return fmt.Errorf("waiting for %s: %w", what, ErrClosed)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("discordtest: waiting for %s: %w", what, ctx.Err())
		case <-ch:
		}
	}
}

// now returns the current time on the Server's clock.
func (s *Server) now() time.Time { return s.cfg.now() }

// newID returns a unique, increasing snowflake for the current time on the
// Server's clock (the Discord epoch for earlier times).
func (s *Server) newID() string {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	id := max(s.now().UnixMilli()-discordEpoch, 0) << 22
	if id <= s.lastID {
		id = s.lastID + 1
	}
	s.lastID = id
	return strconv.FormatInt(id, 10)
}

// newMessageID returns the ID of a new message: the next of WithMessageIDs,
// or a snowflake.
func (s *Server) newMessageID() string {
	if s.cfg.messageIDs != nil {
		s.idMu.Lock()
		defer s.idMu.Unlock()
		return s.cfg.messageIDs()
	}
	return s.newID()
}

// SetLatency holds back the answer to every REST request from now on by d
// (0, the default, answers at once), as a slow Discord would. It does not
// touch the gateway.
func (s *Server) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails, see crypto/rand
	return hex.EncodeToString(b)
}

// tokenOK reports whether tok, with or without "Bot ", is the bot token.
func (s *Server) tokenOK(tok string) bool {
	return tok != "" && strings.TrimPrefix(tok, "Bot ") == s.cfg.token
}

// mustJSON marshals v, which must be marshalable, as encoding/json does
// (through github.com/segmentio/encoding/json, at a fraction of the cost).
func mustJSON(v any) []byte {
	b, err := fastjson.Marshal(v)
	if err != nil {
		panic("discordtest: " + err.Error())
	}
	return b
}
