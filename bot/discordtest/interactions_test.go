package discordtest_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

func TestDeliver(t *testing.T) {
	t.Parallel()
	board := &discordgo.Message{ID: "1600000000000000042", ChannelID: testChannel, Content: "board", Components: buttonRow("drop:1", "drop:2")}
	command := func() []byte { return discordtest.Slash(envelope(), "play", "", discordtest.IntArg("column", 3)) }
	click := func() []byte { return discordtest.Click(envelope(), board, "drop:2") }
	tests := []struct {
		name     string
		body     func() []byte
		wrongKey bool // the endpoint verifies with another key
		answer   func(*discordgo.Interaction) (int, string)
		wantType discordgo.InteractionResponseType
		wantErr  string // substring of the error; "" for none
		wantCode int    // code of a wrapped *APIError
		// wantChannel lists the contents of ChannelMessages after.
		wantChannel []string
		wantFile    string // name of the one attachment of the message
	}{
		{name: "slash command answered with a board", body: command, answer: message("your move", "drop:1", "drop:2"),
			wantType: discordgo.InteractionResponseChannelMessageWithSource, wantChannel: []string{"your move"}},
		{name: "button click updates its message", body: click,
			answer: func(i *discordgo.Interaction) (int, string) {
				return answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
					Data: &discordgo.InteractionResponseData{Content: "dropped in " + i.MessageComponentData().CustomID}})(i)
			},
			wantType: discordgo.InteractionResponseUpdateMessage, wantChannel: []string{"dropped in drop:2"}},
		{name: "multipart answer with a file", body: command,
			answer: answerMultipart(discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "replay attached", Components: buttonRow("again")}}, "replay.txt", "4 4 5"),
			wantType: discordgo.InteractionResponseChannelMessageWithSource, wantChannel: []string{"replay attached"}, wantFile: "replay.txt"},
		{name: "ping answered with pong", body: func() []byte { return discordtest.Ping(envelope().ID, "ping-token", testApp) },
			answer: answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}), wantType: discordgo.InteractionResponsePong},
		{name: "signature checked with another key", body: command, wrongKey: true,
			answer: answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}), wantErr: "401 Unauthorized"},
		{name: "endpoint fails", body: command,
			answer:  func(*discordgo.Interaction) (int, string) { return http.StatusInternalServerError, `{"error":"boom"}` },
			wantErr: `500 Internal Server Error: "{\"error\":\"boom\"}"`},
		{name: "answer is not JSON", body: command,
			answer: func(*discordgo.Interaction) (int, string) { return http.StatusOK, "ok" }, wantErr: `answer "ok"`},
		{name: "empty message rejected", body: command, answer: message(""),
			wantType: discordgo.InteractionResponseChannelMessageWithSource, wantErr: "Cannot send an empty message", wantCode: 50006},
		{name: "update of a slash command rejected", body: command,
			answer: answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
				Data: &discordgo.InteractionResponseData{Content: "x"}}),
			wantType: discordgo.InteractionResponseUpdateMessage, wantErr: "Interaction response type 7 is not valid", wantCode: 50035},
		{name: "the fake knows no modal", body: command,
			answer: answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal,
				Data: &discordgo.InteractionResponseData{CustomID: "m", Title: "Name"}}),
			wantType: discordgo.InteractionResponseModal, wantErr: "Interaction response type 9 is not valid", wantCode: 50035},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			srv := newServer(t, discordtest.WithClock(clock.Now))
			pub, priv := newKey(0)
			if tt.wrongKey {
				pub, _ = newKey(1)
			}
			url, got := startEndpoint(t, pub, tt.answer)
			body := tt.body()
			i := interaction(t, body)

			resp, err := srv.DeliverJSON(waitCtx(t), url, priv, body)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("DeliverJSON: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("DeliverJSON: %v, want an error containing %q", err, tt.wantErr)
			}
			var apiErr *discordtest.APIError
			if errors.As(err, &apiErr) != (tt.wantCode != 0) || (apiErr != nil && (apiErr.Code != tt.wantCode || apiErr.Status != http.StatusBadRequest)) {
				t.Errorf("DeliverJSON error %v: APIError %+v, want code %d", err, apiErr, tt.wantCode)
			}
			if tt.wantType != 0 && (resp == nil || resp.Type != tt.wantType) {
				t.Errorf("response = %+v, want type %d", resp, tt.wantType)
			}
			// What the bot received: the body as built, signed at the
			// fake's clock.
			if !tt.wrongKey {
				d := recv(t, got, "delivery")
				if ts := d.header.Get("X-Signature-Timestamp"); ts != strconv.FormatInt(clock.Now().Unix(), 10) {
					t.Errorf("X-Signature-Timestamp = %q, want the fake clock's %d", ts, clock.Now().Unix())
				}
				if string(d.body) != string(body) || d.header.Get("Content-Type") != "application/json" {
					t.Errorf("delivered %s (%s), want the body as built", d.body, d.header.Get("Content-Type"))
				}
			}
			// The response is applied as the callback route applies it.
			var contents []string
			for _, m := range srv.ChannelMessages(testChannel) {
				contents = append(contents, m.Content)
				if tt.wantFile != "" {
					if len(m.Attachments) != 1 || m.Attachments[0].Filename != tt.wantFile || m.Attachments[0].Size != 5 {
						t.Errorf("message %q has attachments %+v, want %s of 5 bytes", m.Content, m.Attachments, tt.wantFile)
					} else if b, ok := srv.Attachment(m.Attachments[0].ID); !ok || string(b) != "4 4 5" {
						t.Errorf("Attachment = %q, %t", b, ok)
					}
				}
			}
			wantChannel := tt.wantChannel
			if wantChannel == nil && i.Message != nil {
				wantChannel = []string{"board"}
			}
			if strings.Join(contents, "|") != strings.Join(wantChannel, "|") {
				t.Errorf("ChannelMessages = %q, want %q", contents, wantChannel)
			}
			if tt.wantCode == 0 && tt.wantErr != "" {
				return // no answer to wait for
			}
			switch r, err := srv.WaitResponse(waitCtx(t), i.ID); {
			case tt.wantCode != 0 && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("WaitResponse after a rejected answer: %v", err)
			case tt.wantErr == "" && (err != nil || r.Type != tt.wantType):
				t.Errorf("WaitResponse = %+v, %v", r, err)
			}
		})
	}
}

// TestDeliverThenWebhook plays HTTP interactions mode: no gateway, no bot
// token; the bot defers, then edits and follows up through the webhook
// until its token expires.
func TestDeliverThenWebhook(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := newServer(t, discordtest.WithClock(clock.Now))
	web := session(t, srv, "")
	start := clock.Now()
	i := answered(t, srv, answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}))
	if m := srv.ChannelMessages(testChannel); len(m) != 1 || m[0].Flags&discordgo.MessageFlagsLoading == 0 || !m[0].Timestamp.Equal(start) {
		t.Fatalf("after deferring: %+v, want one loading message of the clock's time", m)
	}
	// The bot already answered in the body: the callback route refuses.
	err := web.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong})
	if _, code := restCode(t, err); code != 40060 {
		t.Errorf("callback after the answered delivery: code %d, want 40060", code)
	}

	clock.Advance(time.Minute)
	content := "board"
	edited, err := web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content})
	if err != nil || edited.Content != "board" || edited.Flags&discordgo.MessageFlagsLoading != 0 ||
		edited.EditedTimestamp == nil || !edited.EditedTimestamp.Equal(clock.Now()) || !edited.Timestamp.Equal(start) {
		t.Fatalf("edit of the deferred @original = %+v, %v", edited, err)
	}
	long := strings.Repeat("x", 2001)
	_, err = web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &long})
	if _, code := restCode(t, err); code != 50035 {
		t.Errorf("edit to 2001 characters: code %d, want 50035", code)
	}

	// The token lives WebhookTokenLifetime: usable until the last instant.
	clock.Advance(discordtest.WebhookTokenLifetime - time.Minute - time.Nanosecond)
	f, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "last call"})
	if err != nil {
		t.Fatalf("follow-up just before the token expires: %v", err)
	}
	clock.Advance(time.Nanosecond)
	for name, call := range map[string]func() error{
		"follow-up": func() error {
			_, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "too late"})
			return err
		},
		"GET @original": func() error { _, err := web.InteractionResponse(i); return err },
		"PATCH a follow-up": func() error {
			_, err := web.FollowupMessageEdit(i, f.ID, &discordgo.WebhookEdit{Content: &content})
			return err
		},
	} {
		if status, code := restCode(t, call()); status != http.StatusUnauthorized || code != 50027 {
			t.Errorf("%s after %v: %d %d, want 401 Invalid Webhook Token (50027)", name, discordtest.WebhookTokenLifetime, status, code)
		}
	}
	// The bot token still edits the message through the channel.
	bot := session(t, srv, srv.Token())
	if m, err := bot.ChannelMessageEdit(testChannel, edited.ID, "edited by the bot"); err != nil || !m.EditedTimestamp.Equal(clock.Now()) {
		t.Errorf("channel edit after expiry = %+v, %v", m, err)
	}
}

// TestDiscordRulesEnforced: what the fake refuses of a bot's requests, as
// Discord does.
func TestDiscordRulesEnforced(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	web := session(t, srv, "")
	bot := session(t, srv, srv.Token())

	// Follow-ups and @original need an answered interaction: here the bot
	// answers through the callback, from its endpoint, after trying a
	// follow-up first.
	pub, priv := newKey(0)
	url, _ := startEndpoint(t, pub, func(i *discordgo.Interaction) (int, string) {
		_, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "too early"})
		if _, code := restCode(t, err); code != 10015 {
			t.Errorf("follow-up before the response: code %d, want 10015", code)
		}
		if err := web.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "through the callback"}}); err != nil {
			t.Errorf("callback from the endpoint: %v", err)
		}
		// Answering twice: once through the callback, then in the body.
		return http.StatusOK, `{"type":4,"data":{"content":"in the body"}}`
	})
	_, err := srv.DeliverJSON(waitCtx(t), url, priv, discordtest.Slash(envelope(), "play", ""))
	var apiErr *discordtest.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 40060 {
		t.Fatalf("DeliverJSON: %v, want code 40060", err)
	}
	if m := srv.ChannelMessages(testChannel); len(m) != 1 || m[0].Content != "through the callback" {
		t.Errorf("channel = %+v, want only the callback's message", m)
	}

	// An unknown interaction, a token that is not the interaction's, an
	// unknown webhook.
	i := answered(t, srv, message("board"))
	for _, j := range []*discordgo.Interaction{{ID: "1", Token: "nope"}, {ID: i.ID, Token: "nope"}} {
		err = web.InteractionRespond(j, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource})
		if _, code := restCode(t, err); code != 10062 {
			t.Errorf("callback of %s/%s: code %d, want 10062", j.ID, j.Token, code)
		}
	}
	_, err = web.FollowupMessageCreate(&discordgo.Interaction{AppID: testApp, Token: "nope"}, true, &discordgo.WebhookParams{Content: "x"})
	if _, code := restCode(t, err); code != 10015 {
		t.Errorf("unknown webhook token: code %d, want 10015", code)
	}
	_, err = web.FollowupMessageCreate(&discordgo.Interaction{AppID: "1", Token: i.Token}, true, &discordgo.WebhookParams{Content: "x"})
	if _, code := restCode(t, err); code != 10015 {
		t.Errorf("another application's webhook: code %d, want 10015", code)
	}

	// The bot cannot edit messages it does not know or did not write, and
	// a follow-up is edited only through its own interaction's webhook.
	user := &discordgo.Message{ID: "555", ChannelID: testChannel, Content: "hi", Author: &discordgo.User{ID: "30"}}
	pub2, priv2 := newKey(2)
	url2, _ := startEndpoint(t, pub2, message("ok"))
	if _, err := srv.DeliverJSON(waitCtx(t), url2, priv2, discordtest.Click(envelope(), user, "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.ChannelMessageEdit(testChannel, "555", "mine now"); err == nil {
		t.Error("edited another user's message")
	} else if _, code := restCode(t, err); code != 50005 {
		t.Errorf("edit of another user's message: code %d, want 50005", code)
	}
	if _, err := bot.ChannelMessageEdit(testChannel, "556", "x"); err == nil {
		t.Error("edited an unknown message")
	} else if _, code := restCode(t, err); code != 10008 {
		t.Errorf("edit of an unknown message: code %d, want 10008", code)
	}
	f, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "follow-up"})
	if err != nil {
		t.Fatal(err)
	}
	other := answered(t, srv, message("other"))
	content := "x"
	if _, err := web.FollowupMessageEdit(other, f.ID, &discordgo.WebhookEdit{Content: &content}); err == nil {
		t.Error("edited a follow-up through another interaction's webhook")
	} else if _, code := restCode(t, err); code != 10008 {
		t.Errorf("edit of another interaction's follow-up: code %d, want 10008", code)
	}
	// Channel messages need the bot token; webhooks and callbacks do not.
	_, err = web.ChannelMessageSend(testChannel, "hello")
	if status, _ := restCode(t, err); status != http.StatusUnauthorized {
		t.Errorf("channel message without a bot token: status %d, want 401", status)
	}
	for _, r := range srv.Requests() {
		if (strings.HasPrefix(r.Path, "/webhooks/") || strings.HasPrefix(r.Path, "/interactions/")) && r.Header.Get("Authorization") != "" {
			t.Errorf("%s %s carried Authorization", r.Method, r.Path)
		}
	}
}

// TestWebhookWaitsForDelivery: a follow-up the bot sends with its answer
// reaches the fake before Deliver has applied the answer; it waits for it
// instead of getting 10015.
func TestWebhookWaitsForDelivery(t *testing.T) {
	srv := newServer(t)
	web := session(t, srv, "")
	followed := make(chan error, 1)
	pub, priv := newKey(0)
	url, _ := startEndpoint(t, pub, func(i *discordgo.Interaction) (int, string) {
		go func() {
			_, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "next board"})
			followed <- err
		}()
		return message("round over")(i)
	})
	discordtest.SetBeforeApply(func(string) {
		// Time for the follow-up to reach the fake (and, if it did not
		// wait, to be answered) before the answer is applied.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, _ = srv.WaitRequest(ctx, func(r discordtest.Request) bool { return strings.HasPrefix(r.Path, "/webhooks/") })
	})
	defer discordtest.SetBeforeApply(nil)
	if _, err := srv.DeliverJSON(waitCtx(t), url, priv, discordtest.Slash(envelope(), "play", "")); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, followed, "the follow-up"); err != nil {
		t.Fatalf("the follow-up sent with the answer: %v", err)
	}
}

func TestDeliverArguments(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, priv := newKey(0)
	tests := []struct {
		name string
		key  ed25519.PrivateKey
		i    *discordgo.Interaction
		body []byte
		url  string
	}{
		{"nil interaction", priv, nil, nil, "http://127.0.0.1:1/"},
		{"no type", priv, &discordgo.Interaction{}, []byte(`{"id":"1","token":"t"}`), "http://127.0.0.1:1/"},
		{"no id", priv, nil, []byte(`{"type":1,"token":"t"}`), "http://127.0.0.1:1/"},
		{"not JSON", priv, nil, []byte(`{`), "http://127.0.0.1:1/"},
		{"no key", nil, &discordgo.Interaction{Type: discordgo.InteractionPing}, discordtest.Ping("2", "t2", testApp), "http://127.0.0.1:1/"},
		{"bad url", priv, &discordgo.Interaction{Type: discordgo.InteractionPing}, discordtest.Ping("3", "t3", testApp), "://nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.i != nil || tt.body == nil {
				if resp, err := srv.Deliver(waitCtx(t), tt.url, tt.key, tt.i); err == nil {
					t.Errorf("Deliver = %+v, want an error", resp)
				}
			}
			if tt.body != nil {
				if resp, err := srv.DeliverJSON(waitCtx(t), tt.url, tt.key, tt.body); err == nil {
					t.Errorf("DeliverJSON = %+v, want an error", resp)
				}
			}
		})
	}
}
