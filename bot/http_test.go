package bot_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// testKey is a fixed Ed25519 key pair, standing in for Discord's.
var testPublic, testPrivate = func() (ed25519.PublicKey, ed25519.PrivateKey) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	return priv.Public().(ed25519.PublicKey), priv
}()

// signed returns a POST /interactions request signed as Discord signs:
// Ed25519 over timestamp + body, hex in X-Signature-Ed25519.
func signed(t *testing.T, url string, body []byte) *http.Request {
	t.Helper()
	return signedAt(t, url, body, clocktest.Start)
}

func newHTTPServer(t *testing.T, store *sqlite.Store) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(&transport.HTTPServer{
		Handler:   bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(clocktest.New())),
		PublicKey: testPublic,
		Ready:     store.Ping,
		Clock:     clocktest.New(),
	})
	t.Cleanup(srv.Close)
	return srv
}

// testClient gives up after 10 seconds, so that a server that never
// answers fails the test instead of hanging the package.
var testClient = &http.Client{Timeout: 10 * time.Second}

func do(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	res, err := testClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

func TestHTTPSignatures(t *testing.T) {
	store, _ := mustOpenStore(t, clocktest.New())
	srv := newHTTPServer(t, store)
	ping := []byte(`{"id":"1500000000000000001","application_id":"` + appID + `","type":1,"token":"dG9rZW4","version":1}`)
	otherKey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))

	tests := []struct {
		name   string
		req    func() *http.Request
		status int
		body   string
	}{
		{"good signature on PING", func() *http.Request { return signed(t, srv.URL, ping) }, 200, `{"type":1}`},
		{"missing signature", func() *http.Request {
			r := signed(t, srv.URL, ping)
			r.Header.Del("X-Signature-Ed25519")
			return r
		}, 401, ""},
		{"missing timestamp", func() *http.Request {
			r := signed(t, srv.URL, ping)
			r.Header.Del("X-Signature-Timestamp")
			return r
		}, 401, ""},
		{"both headers missing", func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, srv.URL+"/interactions", bytes.NewReader(ping))
			return r
		}, 401, ""},
		{"signature not hex", func() *http.Request {
			r := signed(t, srv.URL, ping)
			r.Header.Set("X-Signature-Ed25519", "zz"+r.Header.Get("X-Signature-Ed25519")[2:])
			return r
		}, 401, ""},
		{"signature by another key", func() *http.Request {
			r := signed(t, srv.URL, ping)
			ts := r.Header.Get("X-Signature-Timestamp")
			r.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(otherKey, append([]byte(ts), ping...))))
			return r
		}, 401, ""},
		{"tampered body", func() *http.Request {
			r := signed(t, srv.URL, ping)
			tampered := bytes.Replace(ping, []byte(`"type":1`), []byte(`"type":2`), 1)
			r.Body = io.NopCloser(bytes.NewReader(tampered))
			r.ContentLength = int64(len(tampered))
			return r
		}, 401, ""},
		{"tampered timestamp", func() *http.Request {
			r := signed(t, srv.URL, ping)
			r.Header.Set("X-Signature-Timestamp", r.Header.Get("X-Signature-Timestamp")+"1")
			return r
		}, 401, ""},
		{"signed malformed JSON", func() *http.Request { return signed(t, srv.URL, []byte(`{"type":`)) }, 400, ""},
		{"signed JSON without a type", func() *http.Request { return signed(t, srv.URL, []byte(`{"id":"1"}`)) }, 400, ""},
		{"GET /interactions", func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, srv.URL+"/interactions", nil)
			return r
		}, 405, ""},
		{"health", func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
			return r
		}, 200, "ok\n"},
		{"unknown path", func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, srv.URL+"/nope", nil)
			return r
		}, 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := do(t, tt.req())
			if status != tt.status {
				t.Fatalf("got status %d (%s), want %d", status, body, tt.status)
			}
			if tt.body != "" && string(body) != tt.body {
				t.Fatalf("got body %q, want %q", body, tt.body)
			}
		})
	}
}

func TestHTTPBadRequestsChangeNothing(t *testing.T) {
	store, _ := mustOpenStore(t, clocktest.New())
	srv := newHTTPServer(t, store)
	body := slashChallenge(alice, bob, nil)
	r := signed(t, srv.URL, body)
	r.Header.Set("X-Signature-Ed25519", strings.Repeat("00", ed25519.SignatureSize))
	if status, _ := do(t, r); status != 401 {
		t.Fatalf("badly signed challenge: status %d, want 401", status)
	}
	if _, err := store.Get(context.Background(), channelID); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("after a badly signed challenge, Get: got %v, want ErrNotFound", err)
	}
}

func TestHealthzNotReady(t *testing.T) {
	srv := httptest.NewServer(&transport.HTTPServer{
		PublicKey: testPublic,
		Ready:     func(context.Context) error { return errors.New("store closed") },
	})
	defer srv.Close()
	r, _ := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
	if status, _ := do(t, r); status != http.StatusServiceUnavailable {
		t.Fatalf("got %d, want 503", status)
	}
}

// signedAt is signed with the timestamp at.
func signedAt(t *testing.T, url string, body []byte, at time.Time) *http.Request {
	t.Helper()
	req, err := discordtest.SignedRequest(context.Background(), url+"/interactions", testPrivate, at, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestHTTPSignatureWindow: a correctly signed request whose timestamp is
// more than the window away from the server's clock, either way, is a
// request recorded and played again: 401. The edges are tested on both
// sides, with the default window and a shorter one.
func TestHTTPSignatureWindow(t *testing.T) {
	store, _ := mustOpenStore(t, clocktest.New())
	h := bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(clocktest.New()))
	ping := []byte(`{"id":"1500000000000000001","application_id":"` + appID + `","type":1,"token":"dG9rZW4","version":1}`)
	now := clocktest.Start
	tests := []struct {
		name   string
		window time.Duration
		at     time.Time
		status int
	}{
		{"now", 0, now, 200},
		{"5 minutes old", 0, now.Add(-5 * time.Minute), 200},
		{"5 minutes and 1 second old", 0, now.Add(-5*time.Minute - time.Second), 401},
		{"a day old", 0, now.Add(-24 * time.Hour), 401},
		{"5 minutes ahead", 0, now.Add(5 * time.Minute), 200},
		{"5 minutes and 1 second ahead", 0, now.Add(5*time.Minute + time.Second), 401},
		{"epoch", 0, time.Unix(0, 0), 401},
		{"30s window, 30s old", 30 * time.Second, now.Add(-30 * time.Second), 200},
		{"30s window, 31s old", 30 * time.Second, now.Add(-31 * time.Second), 401},
		{"30s window, 31s ahead", 30 * time.Second, now.Add(31 * time.Second), 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&transport.HTTPServer{Handler: h, PublicKey: testPublic, Clock: clocktest.New(), Window: tt.window})
			defer srv.Close()
			status, body := do(t, signedAt(t, srv.URL, ping, tt.at))
			if status != tt.status {
				t.Fatalf("got status %d (%s), want %d", status, body, tt.status)
			}
		})
	}
	t.Run("timestamp not a number", func(t *testing.T) {
		srv := httptest.NewServer(&transport.HTTPServer{Handler: h, PublicKey: testPublic, Clock: clocktest.New()})
		defer srv.Close()
		for _, ts := range []string{"", "soon", "1.5e9", strconv.FormatInt(now.Unix(), 10) + " ", "-" + strconv.FormatInt(now.Unix(), 10)} {
			r := signed(t, srv.URL, ping)
			r.Header.Set("X-Signature-Timestamp", ts)
			r.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(testPrivate, append([]byte(ts), ping...))))
			if status, _ := do(t, r); status != 401 {
				t.Errorf("timestamp %q: got status %d, want 401", ts, status)
			}
		}
	})
}

// countingReader yields zero bytes forever, counting them.
type countingReader struct{ n atomic.Int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	clear(p)
	c.n.Add(int64(len(p)))
	return len(p), nil
}

// TestHTTPBodyLimit: a body over 1 MiB gets 413 whether its length is
// declared or not, and the server stops reading it at the limit: an endless
// body gets its 413 within seconds, after at most a few MiB. The sizes are
// written out here, not taken from MaxBodyBytes, so raising the limit
// (even to a terabyte) fails this test.
func TestHTTPBodyLimit(t *testing.T) {
	store, _ := mustOpenStore(t, clocktest.New())
	srv := newHTTPServer(t, store)
	client := &http.Client{Timeout: 5 * time.Second}

	t.Run("1 MiB is accepted", func(t *testing.T) {
		// A signed PING padded with spaces to exactly 1 MiB.
		body := []byte(`{"id":"1","application_id":"` + appID + `","type":1,"token":"dG9rZW4","version":1}`)
		body = append(body, bytes.Repeat([]byte(" "), 1<<20-len(body))...)
		if status, resp := do(t, signed(t, srv.URL, body)); status != 200 {
			t.Fatalf("got status %d (%s), want 200", status, resp)
		}
	})
	t.Run("1 MiB and 1 byte, length declared", func(t *testing.T) {
		body := bytes.Repeat([]byte(" "), 1<<20+1)
		if status, _ := do(t, signed(t, srv.URL, body)); status != http.StatusRequestEntityTooLarge {
			t.Fatalf("got status %d, want 413", status)
		}
	})
	t.Run("1 MiB and 1 byte, chunked", func(t *testing.T) {
		r := signed(t, srv.URL, nil)
		r.Body = io.NopCloser(bytes.NewReader(bytes.Repeat([]byte(" "), 1<<20+1)))
		r.ContentLength = -1
		if status, _ := do(t, r); status != http.StatusRequestEntityTooLarge {
			t.Fatalf("got status %d, want 413", status)
		}
	})
	t.Run("endless, chunked", func(t *testing.T) {
		src := &countingReader{}
		r := signed(t, srv.URL, nil)
		r.Body, r.ContentLength = io.NopCloser(src), -1
		res, err := client.Do(r)
		if err != nil {
			t.Fatalf("no answer to an endless body (read %d bytes): %v", src.n.Load(), err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("got status %d, want 413", res.StatusCode)
		}
		if n := src.n.Load(); n > 8<<20 {
			t.Fatalf("%d bytes sent before the answer, want the server to stop near 1 MiB", n)
		}
	})
	t.Run("a terabyte declared, Expect: 100-continue", func(t *testing.T) {
		// The client sends no byte of the body before the server says to
		// go on, and it must not: the declared length is enough to refuse.
		src := &countingReader{}
		r := signed(t, srv.URL, nil)
		r.Body, r.ContentLength = io.NopCloser(io.LimitReader(src, 1<<40)), 1<<40
		r.Header.Set("Expect", "100-continue")
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}}
		res, err := c.Do(r)
		if err != nil {
			t.Fatalf("no answer (read %d bytes): %v", src.n.Load(), err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || src.n.Load() != 0 {
			t.Fatalf("got status %d after %d bytes of the body, want 413 before any", res.StatusCode, src.n.Load())
		}
	})
	t.Run("a terabyte declared", func(t *testing.T) {
		src := &countingReader{}
		r := signed(t, srv.URL, nil)
		r.Body, r.ContentLength = io.NopCloser(io.LimitReader(src, 1<<40)), 1<<40
		res, err := client.Do(r)
		if err != nil {
			t.Fatalf("no answer to a terabyte body (read %d bytes): %v", src.n.Load(), err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("got status %d, want 413", res.StatusCode)
		}
		if n := src.n.Load(); n > 8<<20 {
			t.Fatalf("%d bytes sent before the answer", n)
		}
	})
}

// TestHTTPAbsurdInteractions sends correctly signed JSON that is valid but
// makes no sense. Each gets a clear answer: a private message saying what
// is wrong when it decodes as an interaction, 400 when it does not; never
// a 5xx or a panic, nothing logged as an error, nothing stored.
func TestHTTPAbsurdInteractions(t *testing.T) {
	store, _ := mustOpenStore(t, clocktest.New())
	logs := &logRecorder{}
	srv := httptest.NewServer(&transport.HTTPServer{
		Handler:   bot.NewHandler(store, slog.New(logs), bot.WithClock(clocktest.New())),
		PublicKey: testPublic, Clock: clocktest.New(), Log: slog.New(logs),
	})
	defer srv.Close()
	with := func(body []byte, set func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		set(m)
		return mustJSON(m)
	}
	click := func(customID string) []byte {
		return componentClick(alice, &discordgo.Message{ID: "1700000000000000001"}, customID)
	}
	const (
		notUnderstood = "I couldn't understand that request"
		notMine       = "That button isn't one of mine"
	)
	tests := []struct {
		name   string
		body   []byte
		status int
		reply  string // the private message's text, for a 200
	}{
		{"unknown interaction type", with(click("cn:accept:1"), func(m map[string]any) { m["type"] = 99 }), 200, notUnderstood},
		{"modal submit", with(click("cn:accept:1"), func(m map[string]any) { m["type"] = 5 }), 200, notUnderstood},
		{"click without member or user", with(click("cn:drop:1:0:0:1"), func(m map[string]any) { delete(m, "member") }), 200, notUnderstood},
		{"command without member or user", with(slashChallenge(alice, bob, nil), func(m map[string]any) { delete(m, "member") }), 200, notUnderstood},
		{"member without user", with(click("cn:drop:1:0:0:1"), func(m map[string]any) { m["member"] = map[string]any{"nick": "x"} }), 200, notUnderstood},
		{"click in a channel never seen", click("cn:drop:1:0:0:1"), 200, "moved on"},
		{"accept in a channel never seen", click("cn:accept:77"), 200, "moved on"},
		{"custom_id of another application", click("poll:vote:3"), 200, notMine},
		{"custom_id of 10 KB", click("cn:drop:" + strings.Repeat("9", 10<<10)), 200, notMine},
		{"empty custom_id", click(""), 200, notMine},
		{"click without data", with(click("x"), func(m map[string]any) { delete(m, "data") }), 200, notMine},
		{"click with null data", with(click("x"), func(m map[string]any) { m["data"] = nil }), 200, notMine},
		{"unknown command", with(slash(alice, "help"), func(m map[string]any) { m["data"].(map[string]any)["name"] = "other" }), 200, "I don't know that command"},
		{"unknown subcommand", slash(alice, "explode"), 200, "I don't know that command"},
		{"command without subcommand", with(slash(alice, "help"), func(m map[string]any) { m["data"].(map[string]any)["options"] = []any{} }), 200, "I don't know that command"},
		{"a thread in a DM", with(slashChallenge(alice, bob, nil), func(m map[string]any) {
			delete(m, "guild_id")
			delete(m, "member")
			m["user"] = userJSON(alice)
			sub := m["data"].(map[string]any)["options"].([]any)[0].(map[string]any)
			sub["options"] = append(sub["options"].([]any), map[string]any{"name": "thread", "type": 5, "value": true})
		}), 200, "Threads can't be opened here"},
		{"opponent not resolved", with(slashChallenge(alice, bob, nil), func(m map[string]any) {
			delete(m["data"].(map[string]any), "resolved")
		}), 200, notUnderstood},
		{"rows of a billion", slashChallenge(alice, bob, map[string]int{"rows": 1e9}), 200, "`rows` must be a whole number from 4 to 12"},
		{"data of the wrong shape", with(click("x"), func(m map[string]any) { m["data"] = []any{1, 2} }), 400, ""},
		{"type as text", with(click("x"), func(m map[string]any) { m["type"] = "3" }), 400, ""},
		{"no type", with(click("x"), func(m map[string]any) { delete(m, "type") }), 400, ""},
		{"JSON null", []byte("null"), 400, ""},
		{"JSON array", []byte("[1,2,3]"), 400, ""},
		{"JSON number", []byte("42"), 400, ""},
		{"message of the wrong shape", with(click("cn:drop:1:0:0:1"), func(m map[string]any) { m["message"] = "hello" }), 400, ""},
		{"deeply nested", []byte(`{"type":3,"data":{"custom_id":"x","values":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`), 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := do(t, signed(t, srv.URL, tt.body))
			if status != tt.status {
				t.Fatalf("got status %d (%s), want %d", status, body, tt.status)
			}
			if status != 200 {
				if !strings.Contains(string(body), "malformed interaction") {
					t.Fatalf("got body %q, want it to say the interaction is malformed", body)
				}
				return
			}
			mustPrivate(t, decodeResponse(t, body), tt.reply)
		})
	}
	for _, r := range logs.records {
		if r.Level >= slog.LevelError {
			t.Errorf("logged at %v: %s", r.Level, r.Message)
		}
	}
	if _, err := store.Get(context.Background(), channelID); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("after the absurd requests, Get: got %v, want ErrNotFound", err)
	}
}

// TestHTTPResponseLength: the answer declares its length, so that the
// flush that lets the work after a response start does not turn it into a
// chunked response written in two pieces.
func TestHTTPResponseLength(t *testing.T) {
	store, _ := mustOpenStore(t, clocktest.New())
	srv := newHTTPServer(t, store)
	res, err := testClient.Do(signed(t, srv.URL, slash(alice, "help")))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.TransferEncoding) != 0 || res.ContentLength != int64(len(body)) || !strings.Contains(string(body), "How to play") {
		t.Fatalf("Transfer-Encoding %v, Content-Length %d for %d bytes: %.80s", res.TransferEncoding, res.ContentLength, len(body), body)
	}
}
