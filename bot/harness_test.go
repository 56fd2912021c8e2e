package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// Test identities, shaped like Discord snowflakes.
const (
	appID     = "1100000000000000001"
	guildID   = "1200000000000000001"
	channelID = "1300000000000000001"
	aliceID   = "1400000000000000001"
	bobID     = "1400000000000000002"
	carolID   = "1400000000000000003"
)

type user = discordtest.User

var (
	alice = user{ID: aliceID, Username: "alice", GlobalName: "Alice"}
	bob   = user{ID: bobID, Username: "bob", GlobalName: "Bob"}
	carol = user{ID: carolID, Username: "carol", GlobalName: "Carol"}
	robot = user{ID: "1400000000000000009", Username: "robot", Bot: true}
)

// userJSON returns u as Discord's user object, for tests that edit an
// interaction's JSON (an interaction in a DM carries user, not member).
func userJSON(u user) map[string]any {
	var i struct {
		Member struct {
			User map[string]any `json:"user"`
		} `json:"member"`
	}
	if err := json.Unmarshal(slash(u, "help"), &i); err != nil {
		panic(err)
	}
	return i.Member.User
}

var interactionSeq atomic.Int64

// from returns the envelope of a new interaction by u in the test channel:
// a fresh ID and token.
func from(u user) discordtest.Envelope {
	n := interactionSeq.Add(1)
	return discordtest.Envelope{
		ID: fmt.Sprintf("15%017d", n), Token: fmt.Sprintf("aW50ZXJhY3Rpb246%d", n),
		AppID: appID, GuildID: guildID, ChannelID: channelID, ChannelName: "games", From: u,
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// slash returns the JSON of `/connectn <sub>` typed by u, with options
// (name → value: int for INTEGER, string for STRING, user for USER), as
// Discord sends it: USER options resolved in data.resolved.users and
// data.resolved.members.
func slash(u user, sub string, options ...any) []byte {
	var args []discordtest.Arg
	for k := 0; k+1 < len(options); k += 2 {
		name := options[k].(string)
		switch v := options[k+1].(type) {
		case int:
			args = append(args, discordtest.IntArg(name, v))
		case string:
			args = append(args, discordtest.StringArg(name, v))
		case user:
			args = append(args, discordtest.UserArg(name, v))
		default:
			panic(fmt.Sprintf("option %s: %T", name, v))
		}
	}
	return discordtest.Slash(from(u), "connectn", sub, args...)
}

// slashChallenge returns `/connectn challenge opponent:<opp>` by u with
// extra integer options.
func slashChallenge(u, opp user, ints map[string]int) []byte {
	opts := []any{"opponent", opp}
	for _, name := range []string{"rows", "columns", "connect", "wins"} {
		if v, ok := ints[name]; ok {
			opts = append(opts, name, v)
		}
	}
	return slash(u, "challenge", opts...)
}

// componentClick returns the JSON of a click by u on the button customID
// of msg, as Discord sends it: data.custom_id and data.component_type, and
// the message the button is on.
func componentClick(u user, msg *discordgo.Message, customID string) []byte {
	return discordtest.Click(from(u), msg, customID)
}

// buttons returns every button of components, in order.
func buttons(components []discordgo.MessageComponent) []*discordgo.Button {
	return discordtest.Buttons(components)
}

// labels returns the labels of every button of components, space-separated.
func labels(components []discordgo.MessageComponent) string {
	var l []string
	for _, b := range buttons(components) {
		l = append(l, b.Label)
	}
	return strings.Join(l, " ")
}

func findButton(t *testing.T, components []discordgo.MessageComponent, label string) *discordgo.Button {
	t.Helper()
	b := discordtest.FindButton(components, label)
	if b == nil {
		t.Fatalf("no button %q on the message; buttons: %q", label, labels(components))
	}
	return b
}

// text returns everything a user reads in a response: content and embeds.
func text(resp *discordgo.InteractionResponse) string {
	if resp == nil || resp.Data == nil {
		return ""
	}
	return messageText(&discordgo.Message{Content: resp.Data.Content, Embeds: resp.Data.Embeds})
}

// messageText returns everything a user reads in a message.
func messageText(m *discordgo.Message) string {
	var sb strings.Builder
	sb.WriteString(m.Content)
	for _, e := range m.Embeds {
		sb.WriteString("\n" + e.Title + "\n" + e.Description)
		for _, f := range e.Fields {
			sb.WriteString("\n" + f.Name + "\n" + f.Value)
		}
		if e.Footer != nil {
			sb.WriteString("\n" + e.Footer.Text)
		}
	}
	return sb.String()
}

// mustPrivate fails unless resp is an render.Ephemeral message containing want.
func mustPrivate(t *testing.T, resp *discordgo.InteractionResponse, want string) {
	t.Helper()
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("got response type %d (%q), want a private message containing %q", resp.Type, text(resp), want)
	}
	if !strings.Contains(resp.Data.Content, want) {
		t.Fatalf("got private message %q, want it to contain %q", resp.Data.Content, want)
	}
	if am := resp.Data.AllowedMentions; am == nil || len(am.Parse) != 0 || len(am.Users) != 0 || len(am.Roles) != 0 {
		t.Fatalf("private message may mention someone: allowed_mentions %+v", am)
	}
}

// mustUpdate fails unless resp updates the message.
func mustUpdate(t *testing.T, resp *discordgo.InteractionResponse) {
	t.Helper()
	if resp.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("got response type %d (%q), want UPDATE_MESSAGE (7)", resp.Type, text(resp))
	}
}

// mustNextBoard fails unless resp is the answer to a click that ended a
// round: the next round's board as a new message everyone sees, with its
// column buttons.
func mustNextBoard(t *testing.T, resp *discordgo.InteractionResponse) {
	t.Helper()
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("got response type %d (%q), want the next round's board as a new public message (4)", resp.Type, text(resp))
	}
	for _, b := range buttons(resp.Data.Components) {
		if strings.HasPrefix(b.CustomID, "cn:drop:") {
			return
		}
	}
	t.Fatalf("the new message %q has no column button: not a board", text(resp))
}

// mustMove fails unless resp answers a disc dropped: the message updated,
// or for a disc that ended a round, the next round's board (mustNextBoard).
func mustMove(t *testing.T, resp *discordgo.InteractionResponse) {
	t.Helper()
	if resp.Type == discordgo.InteractionResponseUpdateMessage {
		return
	}
	mustNextBoard(t, resp)
}

// mustContain fails unless s contains every one of wants.
func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// mustOpenStore opens a store in a fresh temporary folder, closed when the
// test ends.
func mustOpenStore(t *testing.T, c clock.Clock) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "connectn.db")
	store, err := sqlite.Open(context.Background(), path, sessions.WithClock(c))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store, path
}

// decodeResponse reads an interaction response as Discord receives it.
func decodeResponse(t *testing.T, b []byte) *discordgo.InteractionResponse {
	t.Helper()
	resp, err := discordtest.DecodeResponse(b)
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return resp
}

// gatewayToken is the bot token the fake Discord accepts.
const gatewayToken = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhJkLm.Z2F0ZXdheS10ZXN0LXRva2Vu"

// newFake starts a fake Discord on clock c. Its messages are numbered
// 1700000000000000001, 1700000000000000002, ... in the order they are
// created, as the recorded session (testdata/replay) has them.
func newFake(t *testing.T, c clock.Clock, opts ...discordtest.Option) *discordtest.Server {
	t.Helper()
	var n atomic.Int64
	fake := discordtest.New(append([]discordtest.Option{discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID),
		discordtest.WithClock(c.Now), discordtest.WithMessageIDs(func() string { return fmt.Sprintf("17%017d", n.Add(1)) })}, opts...)...)
	t.Cleanup(fake.Close)
	return fake
}

// env is one server with the bot in it: a clock, a store, a handler, and
// the fake Discord (bot/discordtest) it answers, on the same clock. Over
// HTTP (newEnv), interactions are delivered, signed, to the bot's
// Interactions Endpoint (transport.HTTPServer), and the bot reaches the fake's
// REST API through a messenger without a bot token, as `connectn serve`
// without DISCORD_TOKEN does (withBotToken gives it one). Over the gateway
// (newGatewayEnv), they are dispatched to transport.Gateway, whose session (with
// the token) the messenger shares.
type env struct {
	t     *testing.T
	clock *clocktest.Fake // the fake clock; nil on the system clock (newRealEnv)
	// faults, when set, moves the clock for the tries after a response
	// while the test waits for them (newFaultEnv).
	faults *faultClock
	clk    clock.Clock // the clock the bot, the store and the fake Discord run on
	path   string
	store  *sqlite.Store
	fake   *discordtest.Server
	rest   *discordgo.Session // the messenger's session
	h      *bot.Handler
	srv    *httptest.Server // the bot's Interactions Endpoint; nil over the gateway
	log    *slog.Logger
	opts   []bot.Option
	// puzzles gives the handler its store as the puzzles' too
	// (bot.WithPuzzles), at every start (newPuzzleEnv).
	puzzles bool
	// deliver sends an interaction to the bot through the fake and
	// returns the response.
	deliver func(body []byte) *discordgo.InteractionResponse
	// last is the latest response to an interaction.
	last *discordgo.InteractionResponse
}

// newEnv starts a bot over HTTP on a fresh database, with the given
// handler options after the harness's own (clock, messenger, seed).
func newEnv(t *testing.T, opts ...bot.Option) *env {
	t.Helper()
	return newEnvLog(t, slog.New(slog.DiscardHandler), opts...)
}

// newEnvLog is newEnv with the bot logging to log.
func newEnvLog(t *testing.T, log *slog.Logger, opts ...bot.Option) *env {
	t.Helper()
	c := clocktest.New()
	e := newEnvOn(t, c, log, opts...)
	e.clock = c
	return e
}

// newRealEnv is newEnv on the system clock: for the tests of faults, whose
// tries and waits meet a real connection's stalls and resets, which only
// the time that really passes cuts short. Its clock is nil: such a test
// does not move time.
func newRealEnv(t *testing.T, opts ...bot.Option) *env {
	t.Helper()
	return newEnvOn(t, clock.Real(), slog.New(slog.DiscardHandler), opts...)
}

// newEnvOn is newEnv on clock c.
func newEnvOn(t *testing.T, c clock.Clock, log *slog.Logger, opts ...bot.Option) *env {
	t.Helper()
	return newEnvWith(t, c, log, false, opts...)
}

// newEnvWith is newEnvOn, with the puzzles when puzzles is set.
func newEnvWith(t *testing.T, c clock.Clock, log *slog.Logger, puzzles bool, opts ...bot.Option) *env {
	t.Helper()
	store, path := mustOpenStore(t, c)
	fake := newFake(t, c)
	rest, err := fake.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, clk: c, path: path, store: store, fake: fake, rest: rest, log: log, opts: opts, puzzles: puzzles}
	e.start()
	e.deliver = func(body []byte) *discordgo.InteractionResponse {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.DeliverJSON(ctx, e.srv.URL+"/interactions", testPrivate, body)
		if err != nil {
			t.Fatalf("deliver: %v", err)
		}
		return resp
	}
	return e
}

// start starts a handler on e.store and its Interactions Endpoint.
func (e *env) start() {
	opts := append([]bot.Option{bot.WithClock(e.clk), bot.WithMessenger(bot.NewDiscordMessenger(e.rest)), bot.WithSeed(1)}, e.opts...)
	if e.puzzles {
		opts = append(opts, bot.WithPuzzles(e.store))
	}
	e.h = bot.NewHandler(e.store, e.log, opts...)
	e.srv = httptest.NewServer(&transport.HTTPServer{Handler: e.h, PublicKey: testPublic, Ready: e.store.Ping, Clock: e.clk, Log: e.log})
	h, srv := e.h, e.srv
	e.t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.Close(ctx)
	})
}

// withBotToken gives the messenger the bot token (or takes it away), as
// DISCORD_TOKEN does; call it before the bot does anything.
func (e *env) withBotToken(on bool) {
	e.rest.Token = ""
	if on {
		e.rest.Token = "Bot " + gatewayToken
	}
}

// restart stops the bot and starts a new one on the same database file, as
// a host restarting the process would.
func (e *env) restart() {
	e.t.Helper()
	if e.srv == nil {
		e.t.Fatal("restart over the gateway")
	}
	e.srv.Close()
	if err := e.h.Close(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.Close(); err != nil {
		e.t.Fatal(err)
	}
	store, err := sqlite.Open(context.Background(), e.path, sessions.WithClock(e.clk))
	if err != nil {
		e.t.Fatalf("reopen store: %v", err)
	}
	e.t.Cleanup(func() { store.Close() })
	e.store = store
	e.start()
}

// newGatewayEnv runs the bot's gateway transport against a fake Discord,
// with a messenger on the same (token-bearing) session, and waits until it
// has registered its commands (in guild, or globally for "").
func newGatewayEnv(t *testing.T, guild string) *env {
	t.Helper()
	c := clocktest.New()
	fake := newFake(t, c)
	store, path := mustOpenStore(t, c)
	s, err := fake.NewSession(gatewayToken)
	if err != nil {
		t.Fatal(err)
	}
	h := bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(c), bot.WithMessenger(bot.NewDiscordMessenger(s)), bot.WithSeed(1))
	e := &env{t: t, clock: c, clk: c, fake: fake, store: store, path: path, rest: s, h: h}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	g := &transport.Gateway{Session: s, Handler: h, Commands: bot.Commands(), OnReady: h.SetBotUser, GuildID: guild, Log: slog.New(slog.DiscardHandler)}
	go func() { done <- g.Run(ctx) }()
	wait, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer waitCancel()
	if _, err := fake.WaitRequest(wait, func(r discordtest.Request) bool {
		return r.Method == "PUT" && strings.HasSuffix(r.Path, "/commands")
	}); err != nil {
		cancel()
		t.Fatalf("commands never registered: %v (Run: %v)", err, <-done)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Gateway.Run: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("Gateway.Run did not return within 15s of cancel")
		}
		closeCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		h.Close(closeCtx)
	})
	e.deliver = func(body []byte) *discordgo.InteractionResponse {
		t.Helper()
		if err := fake.DispatchInteractionJSON(body); err != nil {
			t.Fatalf("dispatch: %v", err)
		}
		var i struct {
			ID string `json:"id"`
		}
		json.Unmarshal(body, &i)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.WaitResponse(ctx, i.ID)
		if err != nil {
			t.Fatalf("wait for the response to %s: %v", i.ID, err)
		}
		return resp
	}
	return e
}

// send delivers one interaction as Discord would and returns the response
// once the bot's work after it (follow-ups, edits) is done.
func (e *env) send(body []byte) *discordgo.InteractionResponse {
	e.t.Helper()
	resp := e.deliver(body)
	e.idle()
	e.last = resp
	return resp
}

// idle waits for the handler's background work.
func (e *env) idle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e.faults != nil {
		e.faults.settle(e.t, e, ctx)
		return
	}
	if err := e.h.WaitIdle(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// runDue runs the deadline scheduler once at the current clock.
func (e *env) runDue() int {
	e.t.Helper()
	n, err := e.h.RunDue(context.Background())
	if err != nil {
		e.t.Fatalf("RunDue: %v", err)
	}
	e.idle()
	return n
}

// public returns the channel's messages everyone sees, oldest first, as
// they read now.
func (e *env) public() []*discordgo.Message { return e.fake.ChannelMessages(channelID) }

// board returns the newest public message.
func (e *env) board() *discordgo.Message {
	e.t.Helper()
	msgs := e.public()
	if len(msgs) == 0 {
		e.t.Fatal("no message in the channel")
	}
	return msgs[len(msgs)-1]
}

// message returns the current state of message id.
func (e *env) message(id string) *discordgo.Message {
	e.t.Helper()
	m := e.fake.Message(id)
	if m == nil {
		e.t.Fatalf("no message %s", id)
	}
	return m
}

// lastPrivate returns the current state of the newest render.Ephemeral message.
func (e *env) lastPrivate() *discordgo.Message {
	e.t.Helper()
	newest := ""
	for _, m := range e.fake.Messages() {
		id := m.Message.ID // snowflakes: the longer, or the greater of two as long, is the newer
		if m.Message.Flags&discordgo.MessageFlagsEphemeral != 0 && (len(id) > len(newest) || len(id) == len(newest) && id > newest) {
			newest = m.Message.ID
		}
	}
	if newest == "" {
		e.t.Fatal("no private message")
	}
	return e.message(newest)
}

// attachment returns the bytes of the file attached as a.
func (e *env) attachment(a *discordgo.MessageAttachment) []byte {
	e.t.Helper()
	b, ok := e.fake.Attachment(a.ID)
	if !ok {
		e.t.Fatalf("no file for attachment %s (%s)", a.ID, a.Filename)
	}
	return b
}

// requests returns how many REST requests the bot made with method on a
// path for which match is true (the failed ones included).
func (e *env) requests(method string, match func(path string) bool) int {
	n := 0
	for _, r := range e.fake.Requests() {
		if r.Method == method && match(r.Path) {
			n++
		}
	}
	return n
}

// click clicks the button labelled label on msg as u, which must be
// enabled.
func (e *env) click(u user, msg *discordgo.Message, label string) *discordgo.InteractionResponse {
	e.t.Helper()
	b := findButton(e.t, msg.Components, label)
	if b.Disabled {
		e.t.Fatalf("button %q is disabled", label)
	}
	return e.send(componentClick(u, msg, b.CustomID))
}

// clickID clicks a button by its custom_id, which may be stale or crafted.
func (e *env) clickID(u user, msg *discordgo.Message, customID string) *discordgo.InteractionResponse {
	e.t.Helper()
	return e.send(componentClick(u, msg, customID))
}

// play drops discs in the columns on the newest message, first and second
// taking turns, checking each updates the message (or, ending a round,
// answers with the next round's board: mustMove); it returns the last
// response.
func (e *env) play(first, second user, columns ...string) *discordgo.InteractionResponse {
	e.t.Helper()
	var resp *discordgo.InteractionResponse
	for k, c := range columns {
		who := first
		if k%2 == 1 {
			who = second
		}
		resp = e.click(who, e.board(), c)
		mustMove(e.t, resp)
	}
	return resp
}

// session returns the channel's newest session.
func (e *env) session() *sessions.Session {
	e.t.Helper()
	s, err := e.store.Get(context.Background(), channelID)
	if err != nil {
		e.t.Fatalf("Get: %v", err)
	}
	return s
}

// startMatch challenges bob as alice with ints and has bob accept.
func (e *env) startMatch(ints map[string]int) {
	e.t.Helper()
	e.send(slashChallenge(alice, bob, ints))
	mustUpdate(e.t, e.click(bob, e.board(), "Accept"))
}

// newFaultEnv is newEnv with the REST calls after a response tried as
// bot.WithRetry(budget, attempt, base) says, on the fake clock, which the
// harness moves for them (faultClock): for the tests of faults that
// also move time themselves.
func newFaultEnv(t *testing.T, budget, attempt, base time.Duration, opts ...bot.Option) *env {
	t.Helper()
	c := clocktest.New()
	f := &faultClock{timed: &timedClock{Fake: c, waits: make(chan time.Duration, 1024)}, attempt: attempt}
	e := newEnvOn(t, c, slog.New(slog.DiscardHandler),
		append([]bot.Option{bot.WithRetry(budget, attempt, base), bot.WithClock(f.timed)}, opts...)...)
	e.clock = c
	e.faults = f
	return e
}

// faultClock moves the fake clock for the bot's tries after a response,
// in step with them: the bot's clock (timed) tells each wait it starts,
// and the clock moves past it; when a request stalls on the fake Discord,
// the clock moves past a try's time, which cuts the try (and a look
// within it) short.
type faultClock struct {
	timed   *timedClock
	attempt time.Duration
	stalls  int // the stalled requests already moved past
}

// timedClock is the fake clock, telling each timer it makes on waits:
// a wait the bot starts (clock.Sleep), not a context's deadline.
type timedClock struct {
	*clocktest.Fake
	waits chan time.Duration
}

func (c *timedClock) NewTimer(d time.Duration) clock.Timer {
	t := c.Fake.NewTimer(d)
	c.waits <- d
	return t
}

// settle waits, moving the clock, until the bot's work is done.
func (f *faultClock) settle(t *testing.T, e *env, ctx context.Context) {
	t.Helper()
	idle := make(chan error, 1)
	go func() { idle <- e.h.WaitIdle(ctx) }()
	for {
		stalled := make(chan struct{})
		lookCtx, stopLooking := context.WithCancel(ctx)
		go func(seen int) {
			n := 0
			if _, err := e.fake.WaitRequest(lookCtx, func(r discordtest.Request) bool {
				if r.Fault == "stall" || r.Fault == "lost-stall" {
					n++
				}
				return n > seen
			}); err == nil {
				close(stalled)
			}
		}(f.stalls)
		select {
		case err := <-idle:
			stopLooking()
			if err != nil {
				t.Fatal(err)
			}
			return
		case d := <-f.timed.waits:
			e.clock.Advance(d)
		case <-stalled:
			f.stalls++
			e.clock.Advance(f.attempt)
		}
		stopLooking()
	}
}
