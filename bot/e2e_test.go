package bot_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// fakeWorld is the bot answering a fake Discord (bot/discordtest) over
// the gateway or over signed HTTP, with the fake's clock and the bot's the
// same test clock.
type fakeWorld struct {
	t       *testing.T
	clock   *clock
	fake    *discordtest.Server
	store   *sqlite.Store
	path    string
	h       *bot.Handler
	deliver func(i *discordgo.Interaction) *discordgo.InteractionResponse
	restart func()
}

func (w *fakeWorld) send(body []byte) *discordgo.InteractionResponse {
	w.t.Helper()
	var i discordgo.Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		w.t.Fatalf("decode interaction: %v", err)
	}
	resp := w.deliver(&i)
	w.idle()
	return resp
}

func (w *fakeWorld) idle() {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.h.WaitIdle(ctx); err != nil {
		w.t.Fatal(err)
	}
}

func (w *fakeWorld) public() []*discordgo.Message { return w.fake.ChannelMessages(channelID) }

func (w *fakeWorld) runDue() int {
	w.t.Helper()
	n, err := w.h.RunDue(context.Background())
	if err != nil {
		w.t.Fatalf("RunDue: %v", err)
	}
	w.idle()
	return n
}

const gatewayToken = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhJkLm.Z2F0ZXdheS10ZXN0LXRva2Vu"

func newFake(c *clock) *discordtest.Server {
	return discordtest.New(discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID), discordtest.WithClock(c.Now))
}

// newGatewayWorld runs the bot's gateway transport against a fake Discord,
// with a messenger on the same (token-bearing) session, and waits until it
// has registered its commands.
func newGatewayWorld(t *testing.T, guild string) *fakeWorld {
	t.Helper()
	c := newClock()
	fake := newFake(c)
	t.Cleanup(fake.Close)
	store, path := mustOpenStore(t, c.Now)
	s, err := fake.NewSession(gatewayToken)
	if err != nil {
		t.Fatal(err)
	}
	h := bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(c.Now), bot.WithMessenger(bot.NewDiscordMessenger(s)), bot.WithSeed(1))
	w := &fakeWorld{t: t, clock: c, fake: fake, store: store, path: path, h: h}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	g := &bot.Gateway{Session: s, Handler: h, GuildID: guild, Log: slog.New(slog.DiscardHandler)}
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
		h.Close(context.Background())
	})
	w.deliver = func(i *discordgo.Interaction) *discordgo.InteractionResponse {
		t.Helper()
		if err := fake.DispatchInteraction(i); err != nil {
			t.Fatalf("dispatch: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.WaitResponse(ctx, i.ID)
		if err != nil {
			t.Fatalf("wait for the response to %s: %v", i.ID, err)
		}
		return resp
	}
	return w
}

// newHTTPWorld serves the bot's HTTP interactions endpoint, which the fake
// Discord calls with signed requests; the bot reaches the fake's REST API
// through a messenger with no bot token, as `connectn serve` without
// DISCORD_TOKEN does. restart replaces the server, the handler and the
// store (reopened on the same file) with new ones.
func newHTTPWorld(t *testing.T, opts ...bot.Option) *fakeWorld {
	t.Helper()
	c := newClock()
	fake := newFake(c)
	t.Cleanup(fake.Close)
	store, path := mustOpenStore(t, c.Now)
	w := &fakeWorld{t: t, clock: c, fake: fake, store: store, path: path}
	var srv *httptest.Server
	start := func() {
		rest, err := discordgo.New("")
		if err != nil {
			t.Fatal(err)
		}
		rest.Client.Transport = fake.Transport()
		w.h = bot.NewHandler(w.store, slog.New(slog.DiscardHandler),
			append([]bot.Option{bot.WithClock(c.Now), bot.WithMessenger(bot.NewDiscordMessenger(rest)), bot.WithSeed(1)}, opts...)...)
		srv = httptest.NewServer(&bot.HTTPServer{Handler: w.h, PublicKey: testPublic, Ready: w.store.Ping, Now: c.Now})
	}
	start()
	t.Cleanup(func() { srv.Close() })
	w.restart = func() {
		srv.Close()
		if err := w.h.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := w.store.Close(); err != nil {
			t.Fatal(err)
		}
		reopened, err := sqlite.Open(context.Background(), path, sessions.WithClock(c.Now))
		if err != nil {
			t.Fatalf("reopen store: %v", err)
		}
		t.Cleanup(func() { reopened.Close() })
		w.store = reopened
		start()
	}
	w.deliver = func(i *discordgo.Interaction) *discordgo.InteractionResponse {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.Deliver(ctx, srv.URL+"/interactions", testPrivate, i)
		if err != nil {
			t.Fatalf("deliver: %v", err)
		}
		return resp
	}
	return w
}

// playStory plays what a server sees over an evening, in w: a match of
// three rounds (each round's message kept as its record, each new round
// posted below), a rematch that ends when a turn runs out, a challenge that
// expires, and the stats and leaderboard that follow.
func playStory(t *testing.T, w *fakeWorld) {
	playCompleteMatch(t, w, w.restart)

	// Anyone may ask for a picture of the final board: it comes privately.
	finished := newest(t, w)
	resp := click(t, w, carol, finished, "Picture")
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("Picture answered type %d, want a deferred private message", resp.Type)
	}
	var pic *discordgo.Message
	for _, m := range w.fake.Messages() {
		if m.Kind == discordtest.WebhookMessageEdit && len(m.Message.Attachments) == 1 {
			pic = m.Message
		}
	}
	if pic == nil || pic.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.HasSuffix(pic.Attachments[0].Filename, ".png") {
		t.Fatalf("no private message with the board picture: %+v", pic)
	}

	// Rematch: Bob, who did not open round 1, opens; then he lets his turn
	// run out.
	resp = click(t, w, bob, finished, "Rematch")
	mustContain(t, "rematched message", text(resp), "A rematch started in a new message below")
	rematch := newest(t, w)
	if rematch.ID == finished.ID {
		t.Fatal("the rematch board was not posted")
	}
	mustContain(t, "rematch board", messageText(rematch), "Connect 4 · Round 1", "🟡 **Bob** to play", "🔴 **Alice** 0 – 0 **Bob** 🟡")
	play(t, w, bob, alice, "4", "4")
	w.clock.Advance(bot.DefaultTurnTimeout)
	if n := w.runDue(); n != 1 {
		t.Fatalf("RunDue after the turn ran out settled %d, want 1", n)
	}
	timedOut := w.public()[len(w.public())-1]
	mustContain(t, "timed-out rematch", messageText(timedOut), "⌛ 🟡 **Bob** did not play in time and forfeits the match.",
		"🏆 🔴 **Alice** wins the match 1 – 0!", "Alice **2** – **0** Bob")

	// A challenge nobody answers.
	w.send(slashChallenge(carol, bob, nil))
	challenge := newest(t, w)
	w.clock.Advance(bot.DefaultChallengeTimeout)
	if n := w.runDue(); n != 1 {
		t.Fatalf("RunDue after the challenge ran out settled %d, want 1", n)
	}
	var expired *discordgo.Message
	for _, m := range w.public() {
		if m.ID == challenge.ID {
			expired = m
		}
	}
	mustContain(t, "expired challenge", messageText(expired), "⌛ The challenge from <@"+carolID+"> to <@"+bobID+"> expired")
	if len(expired.Components) != 0 {
		t.Errorf("the expired challenge keeps buttons %q", labels(expired.Components))
	}

	resp = w.send(slash(carol, "stats", "user", alice))
	mustContain(t, "Alice's stats", text(resp), "**Matches:** 2", "**Wins:** 2", "**Win rate:** 100%", "**Current streak:** 2 matches won")
	resp = w.send(slash(bob, "leaderboard"))
	mustContain(t, "leaderboard", text(resp), "🥇 <@"+aliceID+"> · **Wins:** 2", "🥈 <@"+bobID+"> · **Wins:** 0")
	if strings.Contains(text(resp), carolID) {
		t.Errorf("Carol, who never finished a match, is on the leaderboard")
	}
}

func TestStoryOverTheGateway(t *testing.T) {
	w := newGatewayWorld(t, guildID)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := w.fake.WaitIdentify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Intents != 0 {
		t.Errorf("IDENTIFY asked for intents %d, want none", id.Intents)
	}
	cmds := w.fake.Commands(guildID)
	if len(cmds) != 1 || cmds[0].Name != "connectn" {
		t.Fatalf("guild commands: got %+v, want one named connectn", cmds)
	}
	if global := w.fake.Commands(""); len(global) != 0 {
		t.Errorf("with a guild set, %d commands were registered globally", len(global))
	}
	playStory(t, w)
}

func TestStoryOverHTTP(t *testing.T) {
	w := newHTTPWorld(t)
	playStory(t, w)
	for _, r := range w.fake.Requests() {
		if r.Header.Get("Authorization") != "" {
			t.Fatalf("%s %s carried a token: the bot has none in this test", r.Method, r.Path)
		}
	}
}

// TestRateLimitedFollowUp: Discord answers the next round's follow-up with
// a 429; discordgo waits retry_after and tries again, and the board
// arrives.
func TestRateLimitedFollowUp(t *testing.T) {
	w := newHTTPWorld(t)
	w.send(slashChallenge(alice, bob, map[string]int{"rows": 4, "columns": 4, "connect": 3}))
	click(t, w, bob, newest(t, w), "Accept")
	w.fake.FailNext(func(r discordtest.Request) bool {
		return r.Method == "POST" && strings.HasPrefix(r.Path, "/webhooks/")
	}, 429, 0, 20*time.Millisecond)
	play(t, w, alice, bob, "1", "2", "1", "2", "1")
	msgs := w.public()
	if len(msgs) != 2 {
		t.Fatalf("%d messages after a rate-limited follow-up, want 2", len(msgs))
	}
	mustContain(t, "round 2 board", messageText(msgs[1]), "Round 2")
	limited := 0
	for _, r := range w.fake.Requests() {
		if r.Status == 429 {
			limited++
		}
	}
	if limited != 1 {
		t.Errorf("%d requests answered 429, want 1", limited)
	}
}

func TestGatewayRegistersGlobally(t *testing.T) {
	w := newGatewayWorld(t, "")
	if got := w.fake.Commands(""); len(got) != 1 || got[0].Name != "connectn" {
		t.Fatalf("global commands: got %+v, want connectn", got)
	}
}

func TestGatewayBadToken(t *testing.T) {
	fake := discordtest.New(discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID))
	defer fake.Close()
	store, _ := mustOpenStore(t, fixedClock)
	s, err := fake.NewSession("MTE.wrong.token")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := &bot.Gateway{Session: s, Handler: bot.NewHandler(store, slog.New(slog.DiscardHandler)), Log: slog.New(slog.DiscardHandler)}
	if err := g.Run(ctx); err == nil {
		t.Fatal("Run with a wrong token: got nil error")
	}
}

// TestPlayTheBotOverHTTP plays a match against the real engine through the
// HTTP transport: every click's answer already holds the bot's reply, and
// the finished match offers Analysis.
func TestPlayTheBotOverHTTP(t *testing.T) {
	w := newHTTPWorld(t, bot.WithAI(ai.NewEngine(ai.Options{TableMB: 8, Workers: 2, Seed: 3})))
	resp := w.send(slash(alice, "challenge", "rows", 5, "columns", 6, "connect", 4, "wins", 1, "level", "perfect"))
	mustContain(t, "board", text(resp), "**ConnectN**", "against the bot (perfect)")
	for k := 0; k < 15; k++ {
		s, err := w.store.Get(context.Background(), channelID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Phase != sessions.PhasePlaying {
			break
		}
		before := s.Match.Plies()
		b := newest(t, w)
		var col string
		for _, btn := range buttons(b.Components) {
			if !btn.Disabled && btn.Label != "Forfeit match" {
				col = btn.Label
				break
			}
		}
		resp := click(t, w, alice, b, col)
		mustUpdate(t, resp)
		s, _ = w.store.Get(context.Background(), channelID)
		if s.Phase == sessions.PhasePlaying && s.Match.Plies() != before+2 {
			t.Fatalf("move %d: %d plies after one click from %d, want the bot's reply in the same response", k, s.Match.Plies(), before)
		}
	}
	final := newest(t, w)
	if got := labels(final.Components); got != "Rematch Picture Analysis" {
		t.Fatalf("the match did not end with the bot's win on the board: buttons %q\n%s", got, messageText(final))
	}
	mustContain(t, "final", messageText(final), "ConnectN** wins the match")
}
