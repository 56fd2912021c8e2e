package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Transport returns an http.RoundTripper that sends each request through
// next (http.DefaultTransport when nil) and counts it in
// connectn_discord_requests_total and connectn_discord_request_duration_seconds,
// labelled by method, Route(path) and status. Put it on the http.Client of a
// discordgo session before any rewriting of the URL, so that routes read
// as Discord's.
func (m *Metrics) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{m: m, next: next}
}

type transport struct {
	m    *Metrics
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	method, route := methodLabel(req.Method), Route(req.URL.EscapedPath())
	status := "error"
	if err == nil {
		status = strconv.Itoa(resp.StatusCode)
	}
	t.m.reqLatency.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
	t.m.requests.WithLabelValues(method, route, status).Inc() // last: a test that sees the count sees the latency too
	return resp, err
}

// methodLabel bounds the method label to the standard methods.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead:
		return m
	}
	return "OTHER"
}

// routeWords are the fixed words of Discord's REST routes
// (https://discord.com/developers/docs/reference). Route keeps them; any
// other segment becomes a placeholder, so the set of routes stays bounded.
var routeWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		@me @original active answers application-role-connection applications archived
		audit-logs auto-moderation bans bot bulk-ban bulk-delete callback channels commands
		connections crosspost emojis entitlements expire followers gateway guilds integrations
		interactions invites member-verification members messages metadata nick oauth2 onboarding
		permissions pins polls preview private prune public reactions recipients regions
		role-connections roles rules scheduled-events search skus slack github soundboard-sounds
		stage-instances sticker-packs stickers subscriptions templates thread-members threads
		typing users vanity-url voice voice-states webhooks welcome-screen widget widget.json
		widget.png`) {
		routeWords[w] = true
	}
}

// Route returns the route of a Discord REST path, with the "/api/vN"
// prefix removed, every numeric segment (a snowflake) replaced by {id},
// the token after /webhooks/{id}/ or /interactions/{id}/ replaced by
// {token}, and any other segment that is not a fixed word of Discord's
// routes replaced by {param}. Empty segments are dropped. The result never
// contains an ID or a token, so it can label a metric:
//
//	/api/v9/interactions/1234/aW50.../callback -> /interactions/{id}/{token}/callback
//	/api/v9/channels/1234/messages/5678        -> /channels/{id}/messages/{id}
func Route(path string) string {
	segs := strings.Split(path, "/")
	var b strings.Builder
	start := 0
	for start < len(segs) && segs[start] == "" {
		start++
	}
	if start+1 < len(segs) && segs[start] == "api" && isAPIVersion(segs[start+1]) {
		start += 2
	}
	var prev2, prev string // the two segments kept before this one
	for _, s := range segs[start:] {
		if s == "" {
			continue
		}
		var out string
		switch {
		case (prev2 == "webhooks" || prev2 == "interactions") && prev == "{id}":
			out = "{token}"
		case isDigits(s):
			out = "{id}"
		case routeWords[s]:
			out = s
		default:
			out = "{param}"
		}
		b.WriteByte('/')
		b.WriteString(out)
		prev2, prev = prev, out
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// isAPIVersion reports whether s is "v" followed by digits.
func isAPIVersion(s string) bool {
	return len(s) > 1 && s[0] == 'v' && isDigits(s[1:])
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
