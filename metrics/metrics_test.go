package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/metrics"
)

func TestRoute(t *testing.T) {
	const token = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OTpGbGFrZVRva2VuZm9yVGVzdHM"
	tests := []struct {
		name, path, want string
	}{
		{"interaction callback", "/api/v9/interactions/1500000000000000001/" + token + "/callback", "/interactions/{id}/{token}/callback"},
		{"follow-up", "/api/v9/webhooks/1100000000000000001/" + token, "/webhooks/{id}/{token}"},
		{"edit original", "/api/v9/webhooks/1100000000000000001/" + token + "/messages/@original", "/webhooks/{id}/{token}/messages/@original"},
		{"edit follow-up", "/api/v9/webhooks/1100000000000000001/" + token + "/messages/1700000000000000001", "/webhooks/{id}/{token}/messages/{id}"},
		{"lowercase token", "/api/v9/webhooks/1/abcdef/messages/@original", "/webhooks/{id}/{token}/messages/@original"},
		{"channel message", "/api/v9/channels/1300000000000000001/messages/1700000000000000001", "/channels/{id}/messages/{id}"},
		{"guild commands", "/api/v9/applications/1100000000000000001/guilds/1200000000000000001/commands", "/applications/{id}/guilds/{id}/commands"},
		{"me", "/api/v9/users/@me", "/users/@me"},
		{"gateway", "/api/v9/gateway/bot", "/gateway/bot"},
		{"other version", "/api/v10/gateway", "/gateway"},
		{"no prefix", "/channels/1/messages", "/channels/{id}/messages"},
		{"double slash", "/api/v9//voice/regions", "/voice/regions"},
		{"reaction emoji", "/api/v9/channels/1/messages/2/reactions/%F0%9F%94%B4/@me", "/channels/{id}/messages/{id}/reactions/{param}/@me"},
		{"unknown words", "/api/v9/secretstuff/Xy.Zz", "/{param}/{param}"},
		{"empty", "", "/"},
		{"root", "/api/v9/", "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := metrics.Route(tt.path)
			if got != tt.want {
				t.Fatalf("Route(%q): got %q, want %q", tt.path, got, tt.want)
			}
			if strings.Contains(got, token) || strings.Contains(got, "150000") {
				t.Fatalf("Route(%q) = %q keeps an id or token", tt.path, got)
			}
		})
	}
}

// scrape returns the text exposition of m's /metrics.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func TestRecordAndScrape(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "1.2.3", ActiveMatches: func(context.Context) (int, error) { return 3, nil }})
	m.Interaction("command/challenge", "ok", 20*time.Millisecond)
	m.Interaction("button/drop", "refused", time.Millisecond)
	m.Interaction("button/drop", "refused", time.Millisecond)
	m.DeadlineFired("turn")
	m.AIMove("hard", 300*time.Millisecond)
	m.StoreError("update")
	m.RESTRetry("429")
	m.RESTRetry("lost")
	m.RESTRetry("anything else")
	m.RESTGiveUp("timeout")
	m.RefusedInteraction("bad_signature")
	m.RefusedInteraction("bad_signature")

	body := scrape(t, m)
	for _, want := range []string{
		`connectn_discord_retries_total{cause="429"} 1`,
		`connectn_discord_retries_total{cause="lost"} 1`,
		`connectn_discord_retries_total{cause="other"} 1`,
		`connectn_discord_give_ups_total{cause="timeout"} 1`,
		`connectn_interactions_total{kind="command/challenge",outcome="ok"} 1`,
		`connectn_interactions_total{kind="button/drop",outcome="refused"} 2`,
		`connectn_interaction_duration_seconds_count{kind="button/drop"} 2`,
		`connectn_interaction_duration_seconds_bucket{kind="command/challenge",le="0.025"} 1`,
		`connectn_interaction_duration_seconds_bucket{kind="command/challenge",le="0.01"} 0`,
		`connectn_deadlines_fired_total{kind="turn"} 1`,
		`connectn_ai_move_duration_seconds_count{level="hard"} 1`,
		`connectn_store_errors_total{op="update"} 1`,
		`connectn_interactions_refused_total{reason="bad_signature"} 2`,
		`connectn_active_matches 3`,
		`connectn_build_info{goversion="go`,
		`version="1.2.3"} 1`,
		"go_goroutines ",
		"go_gc_heap_live_bytes ",
		"go_gc_gomemlimit_bytes ",
		"process_start_time_seconds ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestActiveMatchesError(t *testing.T) {
	m := metrics.New(metrics.Options{ActiveMatches: func(context.Context) (int, error) { return 0, errors.New("database is locked") }})
	body := scrape(t, m)
	if strings.Contains(body, "connectn_active_matches ") {
		t.Errorf("a failed count was exported:\n%s", body)
	}
	// The error is counted during the scrape, so the next scrape shows it.
	if !strings.Contains(scrape(t, m), `connectn_store_errors_total{op="count_active"} `) {
		t.Errorf("the failed count was not counted as a store error")
	}
	if m := metrics.New(metrics.Options{}); strings.Contains(scrape(t, m), "connectn_active_matches") {
		t.Errorf("active_matches exported with no ActiveMatches func")
	}
}

func TestTransport(t *testing.T) {
	discord := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/callback") {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, `{"message": "Unknown Message", "code": 10008}`, http.StatusNotFound)
	}))
	defer discord.Close()
	m := metrics.New(metrics.Options{})
	client := &http.Client{Transport: m.Transport(nil)}
	const token = "c2VjcmV0LXRva2VuLXZhbHVl"
	for _, req := range []struct{ method, path string }{
		{http.MethodPost, "/api/v9/interactions/1500000000000000001/" + token + "/callback"},
		{http.MethodPost, "/api/v9/interactions/1500000000000000002/" + token + "x/callback"},
		{http.MethodPatch, "/api/v9/channels/1300000000000000001/messages/1700000000000000001"},
	} {
		r, _ := http.NewRequest(req.method, discord.URL+req.path, nil)
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// A request that gets no response at all.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if resp, err := client.Get(dead.URL + "/api/v9/gateway"); err == nil {
		resp.Body.Close()
		t.Fatal("a closed server answered")
	}

	body := scrape(t, m)
	for _, want := range []string{
		`connectn_discord_requests_total{method="POST",route="/interactions/{id}/{token}/callback",status="204"} 2`,
		`connectn_discord_requests_total{method="PATCH",route="/channels/{id}/messages/{id}",status="404"} 1`,
		`connectn_discord_requests_total{method="GET",route="/gateway",status="error"} 1`,
		`connectn_discord_request_duration_seconds_count{method="POST",route="/interactions/{id}/{token}/callback"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(body, token) {
		t.Errorf("a token reached a label:\n%s", body)
	}
}
