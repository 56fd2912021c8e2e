package bot_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/internal/wire"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/internal/clock/clocktest"
)

// TestHTTPRefusedCountedAndLogged sends requests the endpoint refuses
// (bad signature, malformed, too large): each is counted by reason, and
// each reason is logged once a minute at most, the next line saying how
// many were not logged. Without the rate limit, every refusal would log.
func TestHTTPRefusedCountedAndLogged(t *testing.T) {
	store, _ := mustOpenStore(t, clocktest.New())
	var (
		mu     sync.Mutex
		clk    = clocktest.New()
		counts = map[string]int{}
	)
	var log syncBuffer
	srv := httptest.NewServer(&transport.HTTPServer{
		Handler:   bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(clocktest.New())),
		PublicKey: testPublic,
		Log:       slog.New(slog.NewTextHandler(&log, nil)),
		Clock:     clk,
		Window:    1000 * time.Hour,
		OnRefused: func(reason string) {
			mu.Lock()
			counts[reason]++
			mu.Unlock()
		},
	})
	defer srv.Close()
	url := srv.URL
	badSignature := func() *http.Request {
		req := signed(t, url, []byte(`{"type":1}`))
		req.Header.Set("X-Signature-Ed25519", strings.Repeat("00", 64))
		return req
	}
	malformed := func() *http.Request { return signed(t, url, []byte(`{"type":`)) }
	tooLarge := func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, url+"/interactions", bytes.NewReader(make([]byte, wire.MaxBodyBytes+1)))
		return req
	}
	send := func(n int, req func() *http.Request, want int) {
		t.Helper()
		for range n {
			if got, _ := do(t, req()); got != want {
				t.Fatalf("got %d, want %d", got, want)
			}
		}
	}
	send(5, badSignature, http.StatusUnauthorized)
	send(3, malformed, http.StatusBadRequest)
	send(2, tooLarge, http.StatusRequestEntityTooLarge)
	lines := func(reason string) []string {
		var out []string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "refused an interaction request") && strings.Contains(l, "reason="+reason+" ") {
				out = append(out, l)
			}
		}
		return out
	}
	for _, reason := range []string{transport.RefusedSignature, transport.RefusedMalformed, transport.RefusedTooLarge} {
		if got := len(lines(reason)); got != 1 {
			t.Errorf("%s: %d log lines in the first minute, want 1:\n%s", reason, got, log.String())
		}
	}
	mu.Lock()
	if want := map[string]int{transport.RefusedSignature: 5, transport.RefusedMalformed: 3, transport.RefusedTooLarge: 2}; !equalCounts(counts, want) {
		t.Errorf("counts = %v, want %v", counts, want)
	}
	mu.Unlock()
	clk.Advance(59 * time.Second)
	send(1, badSignature, http.StatusUnauthorized)
	if got := len(lines(transport.RefusedSignature)); got != 1 {
		t.Errorf("%d lines about bad signatures within a minute, want 1", got)
	}
	clk.Advance(time.Second)
	send(1, badSignature, http.StatusUnauthorized)
	l := lines(transport.RefusedSignature)
	if len(l) != 2 || !strings.Contains(l[1], "not_logged_since_last=5") || !strings.Contains(l[1], "status=401") {
		t.Errorf("a minute later: lines %q, want a second one saying 5 were not logged", l)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
