package discordtest_test

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestResolver: in thin mode, the webhook routes serve tokens the Server
// never saw, as the resolver says, and still check what the bot sends.
func TestResolver(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	var mu sync.Mutex
	var seen []discordtest.Message
	srv := newServer(t, discordtest.WithClock(clock.Now),
		discordtest.WithResolver(func(token string) (string, string, bool) {
			channel, ok := strings.CutPrefix(token, "lg-")
			return channel, "1700000000000000042", ok
		}),
		discordtest.WithOnMessage(func(m discordtest.Message) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, m)
		}))
	web := session(t, srv, "")
	i := &discordgo.Interaction{AppID: testApp, Token: "lg-21"}

	f, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "next board", Components: buttonRow("drop:1")})
	if err != nil || f.ChannelID != "21" || f.Content != "next board" {
		t.Fatalf("follow-up through a resolved token = %+v, %v", f, err)
	}
	if m, err := web.InteractionResponse(i); err != nil || m.ID != "1700000000000000042" || m.ChannelID != "21" {
		t.Errorf("GET @original = %+v, %v", m, err)
	}
	content := "record"
	if m, err := web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content}); err != nil || m.Content != "record" {
		t.Errorf("PATCH @original = %+v, %v", m, err)
	}
	_, err = web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: strings.Repeat("x", 2001)})
	if _, code := restCode(t, err); code != 50035 {
		t.Errorf("a follow-up of 2001 characters: code %d, want 50035", code)
	}
	_, err = web.FollowupMessageCreate(&discordgo.Interaction{AppID: testApp, Token: "other"}, true, &discordgo.WebhookParams{Content: "x"})
	if _, code := restCode(t, err); code != 10015 {
		t.Errorf("a token the resolver does not know: code %d, want 10015", code)
	}
	clock.Advance(discordtest.WebhookTokenLifetime)
	_, err = web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "late"})
	if _, code := restCode(t, err); code != 50027 {
		t.Errorf("15 minutes after the first use: code %d, want 50027", code)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0].Kind != discordtest.FollowupMessageCreate || seen[0].Message.ID != f.ID ||
		discordtest.FindButton(seen[0].Message.Components, "drop:1") == nil || seen[1].Kind != discordtest.WebhookMessageEdit {
		t.Errorf("WithOnMessage saw %+v", seen)
	}
}

// TestMessageIDsAndChannelMessages: WithMessageIDs numbers the messages
// in the order they are made; ChannelMessages lists a channel's
// non-ephemeral messages by ID, and Message reads any.
func TestMessageIDsAndChannelMessages(t *testing.T) {
	t.Parallel()
	n := 0
	srv := newServer(t, discordtest.WithMessageIDs(func() string { n++; return fmt.Sprint(900 + n) }))
	bot := session(t, srv, srv.Token())
	board, err := bot.ChannelMessageSendComplex(testChannel, &discordgo.MessageSend{Content: "board", Components: buttonRow("drop:1", "drop:2")})
	if err != nil || board.ID != "901" {
		t.Fatalf("first message = %+v, %v", board, err)
	}
	if _, err := bot.ChannelMessageSend("21", "elsewhere"); err != nil {
		t.Fatal(err)
	}
	i := answered(t, srv, answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "only you", Flags: discordgo.MessageFlagsEphemeral}}))
	followup, err := bot.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "for all"})
	if err != nil || followup.ID != "904" {
		t.Fatalf("follow-up = %+v, %v", followup, err)
	}
	if _, err := bot.ChannelMessageEdit(testChannel, board.ID, "board, moved"); err != nil {
		t.Fatal(err)
	}
	// A user's message, older than the rest, comes with a click on it.
	user := &discordgo.Message{ID: "555", ChannelID: testChannel, Content: "hi", Author: &discordgo.User{ID: "30"}}
	pub, priv := newKey(1)
	url, _ := startEndpoint(t, pub, message("ok"))
	if _, err := srv.DeliverJSON(waitCtx(t), url, priv, discordtest.Click(envelope(), user, "x")); err != nil {
		t.Fatal(err)
	}

	var ids []string
	got := srv.ChannelMessages(testChannel)
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, " ") != "555 901 904 905" {
		t.Fatalf("ChannelMessages = %v, want the user's, the board, the follow-up and the click's answer", ids)
	}
	if got[1].Content != "board, moved" || got[1].EditedTimestamp == nil || discordtest.FindButton(got[1].Components, "drop:2") == nil {
		t.Errorf("board = %+v", got[1])
	}
	if m := srv.Message("903"); m == nil || m.Content != "only you" || m.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("Message(903) = %+v, want the ephemeral answer", m)
	}
	if srv.Message("999") != nil || srv.ChannelMessages("22") != nil {
		t.Error("a message of nothing")
	}
}

// TestLatency: SetLatency holds every REST answer back.
func TestLatency(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bot := session(t, srv, srv.Token())
	srv.SetLatency(100 * time.Millisecond)
	start := time.Now()
	if _, err := bot.ChannelMessageSend(testChannel, "slow"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("answered in %v with a latency of 100ms", took)
	}
	srv.SetLatency(0)
	start = time.Now()
	if _, err := bot.ChannelMessageSend(testChannel, "fast"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took >= 100*time.Millisecond {
		t.Errorf("answered in %v without latency", took)
	}
}

// TestListener: WithListener serves on the listener given.
func TestListener(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, discordtest.WithListener(ln))
	if srv.URL() != "http://"+ln.Addr().String() {
		t.Fatalf("URL %s, want the listener's %s", srv.URL(), ln.Addr())
	}
	if _, err := session(t, srv, srv.Token()).Application("@me"); err != nil {
		t.Fatal(err)
	}
}

// TestOnResponse: WithOnResponse sees every interaction response, the
// accepted (Deliver's answer, here) and the refused with the error
// answered, once the response is applied.
func TestOnResponse(t *testing.T) {
	t.Parallel()
	type sight struct {
		r        discordtest.Response
		messages int // messages logged when f ran
	}
	var mu sync.Mutex
	var seen []sight
	var server atomic.Pointer[discordtest.Server]
	srv := newServer(t, discordtest.WithOnResponse(func(r discordtest.Response) {
		n := len(server.Load().Messages()) // f may call Server methods
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, sight{r, n})
	}))
	server.Store(srv)
	i := answered(t, srv, message("hello"))
	bot := session(t, srv, "")
	again := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "again"}}
	if err := bot.InteractionRespond(i, again); err == nil {
		t.Fatal("a second response was accepted")
	}
	if err := bot.InteractionRespond(&discordgo.Interaction{ID: "99", Token: "unknown"}, again); err == nil {
		t.Fatal("a response to an unknown interaction was accepted")
	}

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("WithOnResponse saw %d responses, want 3: %+v", len(seen), seen)
	}
	if r := seen[0]; r.r.InteractionID != i.ID || r.r.Err != nil || !strings.Contains(string(r.r.Payload), `"hello"`) || r.messages != 1 {
		t.Errorf("the accepted response: %+v, %s, with %d messages logged; want %s, no error, the message logged", r.r, r.r.Payload, r.messages, i.ID)
	}
	for k, want := range []struct {
		id   string
		code int
	}{{i.ID, 40060}, {"99", 10062}} {
		r := seen[k+1].r
		var e *discordtest.APIError
		if r.InteractionID != want.id || !errors.As(r.Err, &e) || e.Code != want.code || !strings.Contains(string(r.Payload), `"again"`) {
			t.Errorf("refused response %d: %+v (%s), want interaction %s refused with code %d", k+1, r, r.Payload, want.id, want.code)
		}
	}
}

// TestWithoutLogs: WithoutLogs keeps no request or message log, while the
// hooks still tell and the messages keep their state.
func TestWithoutLogs(t *testing.T) {
	t.Parallel()
	var told atomic.Int64
	srv := newServer(t, discordtest.WithoutLogs(), discordtest.WithOnMessage(func(discordtest.Message) { told.Add(1) }))
	bot := session(t, srv, srv.Token())
	m, err := bot.ChannelMessageSend(testChannel, "board")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bot.ChannelMessageEdit(testChannel, m.ID, "board, moved"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Message(m.ID); got == nil || got.Content != "board, moved" {
		t.Errorf("Message = %+v, want the edited board", got)
	}
	if n := told.Load(); n != 2 {
		t.Errorf("WithOnMessage told %d writes, want 2", n)
	}
	if r, w, c := srv.Requests(), srv.Messages(), srv.BotTokenCalls(testChannel); len(r)+len(w)+len(c) != 0 {
		t.Errorf("logs kept: %d requests, %d writes, %d bot-token calls", len(r), len(w), len(c))
	}
}
