package discordtest_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/internal/clock/clocktest"
)

const waitTimeout = 5 * time.Second

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newServer starts a Server that is closed when the test ends.
func newServer(t *testing.T, opts ...discordtest.Option) *discordtest.Server {
	t.Helper()
	srv := discordtest.New(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// openSession opens a gateway session with the server's token; it is
// closed before the server when the test ends. setup runs before Open, to
// add handlers.
func openSession(t *testing.T, srv *discordtest.Server, setup func(*discordgo.Session)) *discordgo.Session {
	t.Helper()
	sess := session(t, srv, srv.Token())
	if setup != nil {
		setup(sess)
	}
	if err := sess.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Errorf("Session.Close: %v", err)
		}
	})
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	return sess
}

// session returns an unopened session with token ("" for none, as a bot
// that only answers HTTP interactions has).
func session(t *testing.T, srv *discordtest.Server, token string) *discordgo.Session {
	t.Helper()
	sess, err := srv.NewSession(token)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// recv receives from ch or fails the test after waitTimeout.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// restCode returns the HTTP status and Discord code of err, a
// *discordgo.RESTError.
func restCode(t *testing.T, err error) (status, code int) {
	t.Helper()
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T) is not a *discordgo.RESTError", err, err)
	}
	if re.Message == nil {
		t.Fatalf("RESTError without a decoded message: %s", re.ResponseBody)
	}
	return re.Response.StatusCode, re.Message.Code
}

// newFakeClock returns the fake clock of a test (WithClock takes its Now).
func newFakeClock() *clocktest.Fake {
	return clocktest.At(time.Date(2030, 1, 2, 3, 4, 5, 600_000_000, time.UTC))
}

func buttonRow(ids ...string) []discordgo.MessageComponent {
	var buttons []discordgo.MessageComponent
	for _, id := range ids {
		buttons = append(buttons, discordgo.Button{Label: id, CustomID: id})
	}
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: buttons}}
}

// The application, guild, channel and member of the tests' interactions.
const (
	testApp     = "1187654321098765432" // the Server's default
	testGuild   = "10"
	testChannel = "20"
)

var (
	alice = discordtest.User{ID: "30", Username: "alice", GlobalName: "Alice"}
	seq   atomic.Int64
)

// envelope returns the envelope of a new interaction by alice in the test
// channel.
func envelope() discordtest.Envelope {
	n := seq.Add(1)
	return discordtest.Envelope{ID: fmt.Sprint(1500000000000000000 + n), Token: fmt.Sprint("token-", n),
		AppID: testApp, GuildID: testGuild, ChannelID: testChannel, From: alice}
}

// interaction decodes a built interaction, for the discordgo calls that
// take one.
func interaction(t *testing.T, body []byte) *discordgo.Interaction {
	t.Helper()
	var i discordgo.Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		t.Fatal(err)
	}
	return &i
}

// newKey returns a deterministic Ed25519 key pair.
func newKey(seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	priv := ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize)))
	return priv.Public().(ed25519.PublicKey), priv
}

// delivery is what the endpoint received.
type delivery struct {
	header http.Header
	body   []byte
}

// startEndpoint serves a bot's Interactions Endpoint URL: it verifies the
// signature with key as a bot must (401 on failure), records the request
// (the first 16) and writes answer's status and body (multipart when it starts with the
// boundary of answerMultipart); it is closed when the test ends.
func startEndpoint(t *testing.T, key ed25519.PublicKey, answer func(*discordgo.Interaction) (int, string)) (string, <-chan delivery) {
	t.Helper()
	got := make(chan delivery, 16)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !discordgo.VerifyInteraction(r, key) {
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		select {
		case got <- delivery{r.Header.Clone(), body}:
		default: // the test reads none, or not all
		}
		var i discordgo.Interaction
		if err := json.Unmarshal(body, &i); err != nil {
			t.Errorf("endpoint: decode interaction: %v", err) // not Fatal: another goroutine
		}
		status, out := answer(&i)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(out, "--"+multipartBoundary) {
			w.Header().Set("Content-Type", "multipart/form-data; boundary="+multipartBoundary)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, out)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/interactions", got
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

// message answers with a new message of content and buttons.
func message(content string, buttons ...string) func(*discordgo.Interaction) (int, string) {
	d := &discordgo.InteractionResponseData{Content: content}
	if len(buttons) > 0 {
		d.Components = buttonRow(buttons...)
	}
	return answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: d})
}

// answered delivers a new slash command of the test channel to an
// endpoint that answers with answer, and returns the interaction.
func answered(t *testing.T, srv *discordtest.Server, answer func(*discordgo.Interaction) (int, string)) *discordgo.Interaction {
	t.Helper()
	pub, priv := newKey(0)
	url, _ := startEndpoint(t, pub, answer)
	body := discordtest.Slash(envelope(), "play", "")
	if _, err := srv.DeliverJSON(waitCtx(t), url, priv, body); err != nil {
		t.Fatalf("DeliverJSON: %v", err)
	}
	return interaction(t, body)
}
