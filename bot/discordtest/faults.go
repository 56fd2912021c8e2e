package discordtest

import (
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"time"
)

// failure is one error queued by FailNext.
type failure struct {
	match      func(Request) bool
	status     int
	code       int
	retryAfter time.Duration
}

// knownErrors gives Discord's message for the JSON error codes the fake
// knows, so that an injected error reads like a real one.
var knownErrors = func() map[int]string {
	m := map[int]string{
		10004:  "Unknown Guild",
		50035:  "Invalid Form Body",
		130000: "API resource is currently overloaded. Try again a little later.",
	}
	for _, e := range []*APIError{
		errInvalidJSON, errMissingAccess, errUnknownApplication, errUnknownMessage,
		errUnknownWebhook, errUnknownInteraction, errAlreadyAcknowledged, errEmptyMessage,
		errEditOthers, errInvalidWebhookToken, errUnknownChannel, errMissingPermissions, errDMChannel,
		errChannelType, errThreadArchived, errMaxFollowups,
	} {
		m[e.Code] = e.Message
	}
	return m
}()

// FailNext makes the fake answer the next REST request for which match
// returns true with a Discord-shaped error instead of serving it: HTTP
// status (such as 403, 500 or 429) with the JSON body {"message": ...,
// "code": code}, the message being Discord's for a code the fake knows
// (such as 50013 "Missing Permissions") and "<status>: <status text>"
// otherwise. match sees the request as Requests will log it (Method, Path
// without the /api/vN prefix, Query, Host, Header and Body; no Status or
// Response yet) and must not call Server methods. Each call fails one
// request: several calls queue several failures, and a request takes the
// oldest queued failure it matches. Failures apply to every REST request,
// including the public routes and unknown paths, before the token is
// checked, but not to the gateway websocket. The failed request is logged
// in Requests with its status and error body; a failure that never
// matches stays queued.
//
// For status 429 (Too Many Requests) the body is Discord's rate-limit shape
// {"message": "You are being rate limited.", "retry_after": <retryAfter in
// seconds, a float>, "global": false}, with "code" added when code is not
// 0, and the response carries the headers Discord sends with it:
// Retry-After (whole seconds, rounded up), X-RateLimit-Limit,
// X-RateLimit-Remaining (0), X-RateLimit-Reset (Unix seconds on the
// Server's clock, as is the Date header), X-RateLimit-Reset-After
// (seconds), X-RateLimit-Bucket and X-RateLimit-Scope ("user"). discordgo, with ShouldRetryOnRateLimit
// (its default), then sleeps retryAfter for real and retries the request,
// so keep retryAfter to a few milliseconds in tests; discordgo reads it at
// millisecond precision. retryAfter is ignored for other statuses. Note
// that discordgo also retries a 502 by itself, up to MaxRestRetries times.
//
// FailNext panics if match is nil, status is not an HTTP error status
// (400 to 599) or retryAfter is negative: those are mistakes in the test.
func (s *Server) FailNext(match func(Request) bool, status, code int, retryAfter time.Duration) {
	if match == nil || status < 400 || status > 599 || retryAfter < 0 {
		panic(fmt.Sprintf("discordtest: FailNext(match nil: %t, status %d, code %d, retryAfter %v): need a match, a status from 400 to 599 and retryAfter >= 0",
			match == nil, status, code, retryAfter))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, failure{match: match, status: status, code: code, retryAfter: retryAfter})
}

// takeFailureLocked removes and returns the oldest queued failure that
// matches r, or nil. s.mu must be held.
func (s *Server) takeFailureLocked(r Request) *failure {
	for i, f := range s.failures {
		if f.match(copyRequest(r)) {
			s.failures = append(s.failures[:i:i], s.failures[i+1:]...)
			return &f
		}
	}
	return nil
}

// write answers the request that f fails.
func (f *failure) write(w http.ResponseWriter, r Request, now time.Time) {
	if f.status != http.StatusTooManyRequests {
		msg, ok := knownErrors[f.code]
		if !ok {
			msg = fmt.Sprintf("%d: %s", f.status, http.StatusText(f.status))
		}
		writeAPIError(w, newAPIError(f.status, f.code, msg))
		return
	}
	secs := f.retryAfter.Seconds()
	body := map[string]any{"message": "You are being rate limited.", "retry_after": secs, "global": false}
	if f.code != 0 {
		body["code"] = f.code
	}
	bucket := fnv.New64a()
	_, _ = bucket.Write([]byte(r.Method + " " + r.Path))
	h := w.Header()
	// Date is on the same clock as X-RateLimit-Reset, which clients that
	// ignore X-RateLimit-Reset-After read relative to it.
	h.Set("Date", now.UTC().Format(http.TimeFormat))
	h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(secs)), 10))
	h.Set("X-RateLimit-Limit", "5")
	h.Set("X-RateLimit-Remaining", "0")
	reset := float64(now.Add(f.retryAfter).UnixMilli()) / 1000
	h.Set("X-RateLimit-Reset", strconv.FormatFloat(reset, 'f', 3, 64))
	h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(secs, 'f', 3, 64))
	h.Set("X-RateLimit-Bucket", strconv.FormatUint(bucket.Sum64(), 16))
	h.Set("X-RateLimit-Scope", "user")
	writeJSON(w, f.status, body)
}
