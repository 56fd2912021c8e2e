package bot_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/connectn/connectn/bot"
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
	ts := strconv.FormatInt(fixedClock().Unix(), 10)
	sig := ed25519.Sign(testPrivate, append([]byte(ts), body...))
	req, err := http.NewRequest(http.MethodPost, url+"/interactions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
	req.Header.Set("X-Signature-Timestamp", ts)
	return req
}

func newHTTPServer(t *testing.T, store *sqlite.Store) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(&bot.HTTPServer{
		Handler:   bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(fixedClock)),
		PublicKey: testPublic,
		Ready:     store.Ping,
	})
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
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
	store, _ := mustOpenStore(t, fixedClock)
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
	store, _ := mustOpenStore(t, fixedClock)
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
	srv := httptest.NewServer(&bot.HTTPServer{
		PublicKey: testPublic,
		Ready:     func(context.Context) error { return errors.New("store closed") },
	})
	defer srv.Close()
	r, _ := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
	if status, _ := do(t, r); status != http.StatusServiceUnavailable {
		t.Fatalf("got %d, want 503", status)
	}
}
