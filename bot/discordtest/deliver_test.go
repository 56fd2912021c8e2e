package discordtest_test

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// newKey returns a deterministic Ed25519 key pair.
func newKey(seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	priv := ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize)))
	return priv.Public().(ed25519.PublicKey), priv
}

// delivery is what the endpoint received.
type delivery struct {
	header      http.Header
	interaction discordgo.Interaction
}

// endpoint is a bot's Interactions Endpoint URL: it verifies the signature
// like a bot must (401 on failure), decodes the interaction, records it
// and writes answer's status and body as JSON.
type endpoint struct {
	t      *testing.T
	key    ed25519.PublicKey
	answer func(*discordgo.Interaction) (int, string)
	got    chan delivery
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !discordgo.VerifyInteraction(r, e.key) {
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	var d delivery
	d.header = r.Header.Clone()
	if err := json.NewDecoder(r.Body).Decode(&d.interaction); err != nil {
		e.t.Errorf("endpoint: decode interaction: %v", err) // not Fatal: another goroutine
		http.Error(w, "bad interaction", http.StatusBadRequest)
		return
	}
	select {
	case e.got <- d:
	default:
		e.t.Errorf("endpoint: more than one delivery")
	}
	status, body := e.answer(&d.interaction)
	w.Header().Set("Content-Type", "application/json")
	if strings.HasPrefix(body, "--"+multipartBoundary) {
		w.Header().Set("Content-Type", "multipart/form-data; boundary="+multipartBoundary)
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// startEndpoint serves an endpoint that verifies with key and answers with
// answer; it is closed when the test ends.
func startEndpoint(t *testing.T, key ed25519.PublicKey, answer func(*discordgo.Interaction) (int, string)) (string, <-chan delivery) {
	t.Helper()
	e := &endpoint{t: t, key: key, answer: answer, got: make(chan delivery, 1)}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return ts.URL + "/interactions", e.got
}

// multipartBoundary marks the answers the endpoint sends as multipart.
const multipartBoundary = "discordtest-boundary"

// answerMultipart answers 200 with v as payload_json and one file, in a
// multipart body, as a bot that attaches a file answers.
func answerMultipart(v any, filename, content string) func(*discordgo.Interaction) (int, string) {
	var b strings.Builder
	mw := multipart.NewWriter(&b)
	if err := mw.SetBoundary(multipartBoundary); err != nil {
		panic(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	_ = mw.WriteField("payload_json", string(raw))
	fw, _ := mw.CreateFormFile("files[0]", filename)
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	return func(*discordgo.Interaction) (int, string) { return http.StatusOK, b.String() }
}

// answerJSON answers 200 with v as JSON.
func answerJSON(v any) func(*discordgo.Interaction) (int, string) {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return func(*discordgo.Interaction) (int, string) { return http.StatusOK, string(raw) }
}

func TestDeliver(t *testing.T) {
	t.Parallel()
	board := func() *discordgo.Message {
		return &discordgo.Message{ChannelID: "20", Content: "board", Components: buttonRow("drop:1", "drop:2")}
	}
	command := func() *discordgo.Interaction {
		return &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: "20",
			Member: &discordgo.Member{User: &discordgo.User{ID: "30", Username: "alice"}},
			Data:   discordgo.ApplicationCommandInteractionData{Name: "play"}}
	}
	click := func() *discordgo.Interaction {
		return &discordgo.Interaction{Type: discordgo.InteractionMessageComponent, ChannelID: "20", Message: board(),
			Member: &discordgo.Member{User: &discordgo.User{ID: "30", Username: "alice"}},
			Data:   discordgo.MessageComponentInteractionData{CustomID: "drop:2", ComponentType: discordgo.ButtonComponent}}
	}

	tests := []struct {
		name        string
		interaction func() *discordgo.Interaction
		wrongKey    bool // the endpoint verifies with another key
		answer      func(*discordgo.Interaction) (int, string)
		wantType    discordgo.InteractionResponseType
		wantErr     string // substring of the error; "" for none
		wantCode    int    // code of a wrapped *APIError
		// wantChannel lists the contents of ChannelMessages("20") after.
		wantChannel []string
		wantFile    string // name of the one attachment of the message
	}{
		{
			name:        "slash command answered with a board",
			interaction: command,
			answer: answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "your move", Components: buttonRow("drop:1", "drop:2")}}),
			wantType:    discordgo.InteractionResponseChannelMessageWithSource,
			wantChannel: []string{"your move"},
		},
		{
			name:        "button click updates its message",
			interaction: click,
			answer: func(i *discordgo.Interaction) (int, string) {
				return answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
					Data: &discordgo.InteractionResponseData{Content: "dropped in " + i.MessageComponentData().CustomID}})(i)
			},
			wantType:    discordgo.InteractionResponseUpdateMessage,
			wantChannel: []string{"dropped in drop:2"},
		},
		{
			name:        "multipart answer with a file",
			interaction: command,
			answer: answerMultipart(discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "replay attached", Components: buttonRow("again")}}, "replay.txt", "4 4 5"),
			wantType:    discordgo.InteractionResponseChannelMessageWithSource,
			wantChannel: []string{"replay attached"},
			wantFile:    "replay.txt",
		},
		{
			name:        "ping answered with pong",
			interaction: func() *discordgo.Interaction { return &discordgo.Interaction{Type: discordgo.InteractionPing} },
			answer:      answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}),
			wantType:    discordgo.InteractionResponsePong,
		},
		{
			name:        "signature checked with another key",
			interaction: command,
			wrongKey:    true,
			answer:      answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}),
			wantErr:     "401 Unauthorized",
		},
		{
			name:        "endpoint fails",
			interaction: command,
			answer:      func(*discordgo.Interaction) (int, string) { return http.StatusInternalServerError, `{"error":"boom"}` },
			wantErr:     `500 Internal Server Error: "{\"error\":\"boom\"}"`,
		},
		{
			name:        "answer is not JSON",
			interaction: command,
			answer:      func(*discordgo.Interaction) (int, string) { return http.StatusOK, "ok" },
			wantErr:     `answer "ok"`,
		},
		{
			name:        "empty message rejected",
			interaction: command,
			answer: answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{}}),
			wantType: discordgo.InteractionResponseChannelMessageWithSource,
			wantErr:  "Cannot send an empty message",
			wantCode: 50006,
		},
		{
			name:        "update of a slash command rejected",
			interaction: command,
			answer: answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
				Data: &discordgo.InteractionResponseData{Content: "x"}}),
			wantType: discordgo.InteractionResponseUpdateMessage,
			wantErr:  "Interaction response type 7 is not valid",
			wantCode: 50035,
		},
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
			i := tt.interaction()

			resp, err := srv.Deliver(waitCtx(t), url, priv, i)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Deliver: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Deliver: %v, want an error containing %q", err, tt.wantErr)
			}
			var apiErr *discordtest.APIError
			if errors.As(err, &apiErr) != (tt.wantCode != 0) || (apiErr != nil && (apiErr.Code != tt.wantCode || apiErr.Status != http.StatusBadRequest)) {
				t.Errorf("Deliver error %v: APIError %+v, want code %d", err, apiErr, tt.wantCode)
			}
			if tt.wantType != 0 && (resp == nil || resp.Type != tt.wantType) {
				t.Errorf("response = %+v, want type %d", resp, tt.wantType)
			}
			if i.ID == "" || i.Token == "" || i.AppID != srv.ApplicationID() || i.Version != 1 {
				t.Errorf("Deliver did not fill the interaction: %+v", i)
			}

			// What the bot received: signed at the fake's clock, the
			// interaction with its message's components.
			if !tt.wrongKey {
				d := recv(t, got, "delivery")
				if ts := d.header.Get("X-Signature-Timestamp"); ts != strconv.FormatInt(clock.Now().Unix(), 10) {
					t.Errorf("X-Signature-Timestamp = %q, want the fake clock's %d", ts, clock.Now().Unix())
				}
				if ct := d.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
				if d.interaction.ID != i.ID || d.interaction.Token != i.Token || d.interaction.Type != i.Type {
					t.Errorf("delivered %s/%s type %d, want %s/%s type %d", d.interaction.ID, d.interaction.Token, d.interaction.Type, i.ID, i.Token, i.Type)
				}
				if i.Message != nil && (d.interaction.Message == nil || len(d.interaction.Message.Components) != 1) {
					t.Errorf("delivered message lost its components: %+v", d.interaction.Message)
				}
			}

			// The response is applied as the callback route applies it.
			var contents []string
			for _, m := range srv.ChannelMessages("20") {
				contents = append(contents, m.Content)
				if tt.wantFile != "" && (len(m.Attachments) != 1 || m.Attachments[0].Filename != tt.wantFile || m.Attachments[0].Size != 5) {
					t.Errorf("message %q has attachments %+v, want %s of 5 bytes", m.Content, m.Attachments, tt.wantFile)
				}
				if len(m.Components) != 1 {
					t.Errorf("message %q has %d component rows, want 1", m.Content, len(m.Components))
				}
			}
			wantChannel := tt.wantChannel
			if wantChannel == nil && i.Message != nil {
				wantChannel = []string{"board"}
			}
			if strings.Join(contents, "|") != strings.Join(wantChannel, "|") {
				t.Errorf("ChannelMessages(20) = %q, want %q", contents, wantChannel)
			}
			if tt.wantChannel != nil {
				m, err := srv.WaitMessage(waitCtx(t), func(m discordtest.Message) bool { return m.InteractionID == i.ID })
				if err != nil || m.Kind != discordtest.InteractionResponseMessage {
					t.Errorf("recorded message = %+v, %v", m, err)
				}
			}
			switch {
			case tt.wantCode != 0:
				if _, err := srv.WaitResponse(waitCtx(t), i.ID); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("WaitResponse after a rejected answer: %v", err)
				}
			case tt.wantErr == "":
				if r, err := srv.WaitResponse(waitCtx(t), i.ID); err != nil || r.Type != tt.wantType {
					t.Errorf("WaitResponse = %+v, %v", r, err)
				}
			}
		})
	}
}

// TestDeliverThenWebhook plays HTTP interactions mode end to end: no
// gateway, no bot token; the bot defers, then edits and follows up through
// the webhook until its token expires.
func TestDeliverThenWebhook(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := newServer(t, discordtest.WithClock(clock.Now))
	web := tokenless(t, srv)
	pub, priv := newKey(0)
	url, _ := startEndpoint(t, pub, answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}))

	i := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: "20", Data: discordgo.ApplicationCommandInteractionData{Name: "play"}}
	if _, err := srv.Deliver(waitCtx(t), url, priv, i); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Deliver(waitCtx(t), url, priv, i); err == nil {
		t.Error("delivering the same interaction twice succeeded")
	}
	if m := srv.ChannelMessages("20"); len(m) != 1 || m[0].Flags&discordgo.MessageFlagsLoading == 0 {
		t.Fatalf("after deferring: %+v, want one loading message", m)
	}

	clock.Advance(time.Minute)
	content := "board"
	if m, err := web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content}); err != nil || m.Content != "board" {
		t.Fatalf("edit of the deferred @original = %+v, %v", m, err)
	}
	// The bot already answered in the body: the callback route refuses.
	err := web.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong})
	if _, code := restCode(t, err); code != 40060 {
		t.Errorf("callback after the answered delivery: code %d, want 40060", code)
	}

	clock.Advance(discordtest.WebhookTokenLifetime - time.Minute)
	_, err = web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "too late"})
	if status, code := restCode(t, err); status != http.StatusUnauthorized || code != 50027 {
		t.Errorf("follow-up 15 minutes after delivery: %d %d, want 401 50027", status, code)
	}
}

// TestDeliverAfterCallback: a bot that answers through the callback route
// and then also in the body gets 40060 for the body.
func TestDeliverAfterCallback(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	web := tokenless(t, srv)
	pub, priv := newKey(0)
	url, _ := startEndpoint(t, pub, func(i *discordgo.Interaction) (int, string) {
		if err := web.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "through the callback"}}); err != nil {
			t.Errorf("callback from the endpoint: %v", err)
		}
		return http.StatusOK, `{"type":4,"data":{"content":"in the body"}}`
	})
	i := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: "20", Data: discordgo.ApplicationCommandInteractionData{Name: "play"}}
	_, err := srv.Deliver(waitCtx(t), url, priv, i)
	var apiErr *discordtest.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 40060 {
		t.Fatalf("Deliver: %v, want code 40060", err)
	}
	if m := srv.ChannelMessages("20"); len(m) != 1 || m[0].Content != "through the callback" {
		t.Errorf("channel = %+v, want only the callback's message", m)
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
		url  string
	}{
		{"nil interaction", priv, nil, "http://127.0.0.1:1/"},
		{"no type", priv, &discordgo.Interaction{}, "http://127.0.0.1:1/"},
		{"no key", nil, &discordgo.Interaction{Type: discordgo.InteractionPing}, "http://127.0.0.1:1/"},
		{"bad url", priv, &discordgo.Interaction{Type: discordgo.InteractionPing}, "://nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if resp, err := srv.Deliver(waitCtx(t), tt.url, tt.key, tt.i); err == nil {
				t.Errorf("Deliver = %+v, want an error", resp)
			}
		})
	}
}
