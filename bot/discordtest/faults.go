package discordtest

import (
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"time"
)

// failure is one fault queued by FailNext or Inject.
type failure struct {
	match      func(Request) bool
	fault      Fault // FaultNone: an error answer (FailNext)
	status     int
	code       int
	retryAfter time.Duration
}

// Fault is a way the fake misbehaves for one REST request beyond an error
// answer (FailNext), as Discord and the networks in front of it do.
type Fault int

// The faults Inject knows. A stalled or reset request is logged in
// Requests with Status 0 and its Fault; a lost one with the status and
// body the fake meant to send, and its Fault.
const (
	// FaultNone is no fault: the zero value, never injected.
	FaultNone Fault = iota
	// FaultGlobalRateLimit answers 429 with the global limit's shape:
	// X-RateLimit-Global: true, X-RateLimit-Scope: global, Retry-After
	// (whole seconds, rounded up) and the body {"message": "You are being
	// rate limited.", "retry_after": <seconds>, "global": true}, without
	// the per-route bucket headers, as Discord documents it
	// (https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit).
	FaultGlobalRateLimit
	// FaultStall answers nothing: the request is held until the client
	// gives up (its context ends or it closes the connection) or the
	// Server closes. Nothing is applied.
	FaultStall
	// FaultReset closes the connection without an answer (TCP reset).
	// Nothing is applied.
	FaultReset
	// FaultLostStall applies the request (a message is created, edited or
	// deleted) and then stalls as FaultStall instead of answering.
	FaultLostStall
	// FaultLostReset applies the request and then resets the connection
	// as FaultReset instead of answering.
	FaultLostReset
)

// String names f as Request.Fault does.
func (f Fault) String() string {
	switch f {
	case FaultNone:
		return ""
	case FaultGlobalRateLimit:
		return "global-429"
	case FaultStall:
		return "stall"
	case FaultReset:
		return "reset"
	case FaultLostStall:
		return "lost-stall"
	case FaultLostReset:
		return "lost-reset"
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Inject makes the fake misbehave as f for the next REST request for which
// match returns true, with the same queue and matching rules as FailNext
// (the two share one queue, oldest first). retryAfter is the wait of
// FaultGlobalRateLimit (keep it to milliseconds in tests) and is ignored
// otherwise. Inject panics if match is nil, f is not one of the faults
// above or retryAfter is negative.
func (s *Server) Inject(match func(Request) bool, f Fault, retryAfter time.Duration) {
	if match == nil || f <= FaultNone || f > FaultLostReset || retryAfter < 0 {
		panic(fmt.Sprintf("discordtest: Inject(match nil: %t, fault %v, retryAfter %v): need a match, a fault and retryAfter >= 0",
			match == nil, f, retryAfter))
	}
	status := 0
	if f == FaultGlobalRateLimit {
		status = http.StatusTooManyRequests
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, failure{match: match, fault: f, status: status, retryAfter: retryAfter})
}

// Injection is a fault chosen for one REST request by the function given
// to WithFaults. The zero Injection is no fault. Either Fault is set (one
// of the faults Inject knows, RetryAfter being FaultGlobalRateLimit's
// wait), or Status is an HTTP error status from 400 to 599 answered as
// FailNext answers it (Code the JSON error code, 0 for none; for 429 the
// per-route rate-limit shape with RetryAfter).
type Injection struct {
	Fault      Fault
	Status     int
	Code       int
	RetryAfter time.Duration
}

// WithFaults makes the Server ask choose about every REST request that no
// queued failure (FailNext, Inject) takes, and misbehave as the Injection
// it returns: a load generator's way to fail a share of all requests at
// random. choose sees the request as FailNext's match does, is called on
// the request's goroutine without the Server's lock (it must be safe for
// concurrent use and must not call Server methods), and applies to the
// public routes too but not to the gateway websocket. An Injection that is
// neither zero nor valid (a Fault out of range, a Status outside 400 to
// 599, both set, or a negative RetryAfter) makes the Server panic in the
// request's handler, as Inject and FailNext panic: a mistake in the caller.
func WithFaults(choose func(Request) Injection) Option {
	return func(c *config) { c.faults = choose }
}

// failureOf returns the failure inj describes, nil for the zero Injection.
func failureOf(inj Injection) *failure {
	switch {
	case inj == Injection{}:
		return nil
	case inj.RetryAfter < 0 || (inj.Fault != FaultNone && inj.Status != 0):
	case inj.Fault > FaultNone && inj.Fault <= FaultLostReset:
		f := failure{fault: inj.Fault, retryAfter: inj.RetryAfter}
		if inj.Fault == FaultGlobalRateLimit {
			f.status = http.StatusTooManyRequests
		}
		return &f
	case inj.Fault == FaultNone && inj.Status >= 400 && inj.Status <= 599:
		return &failure{status: inj.Status, code: inj.Code, retryAfter: inj.RetryAfter}
	}
	panic(fmt.Sprintf("discordtest: WithFaults chose %+v: want the zero Injection, a Fault or an error Status from 400 to 599, and RetryAfter >= 0", inj))
}

// answers reports whether f is answered through write (an error answer);
// the other faults are carried out by serveREST.
func (f *failure) answers() bool { return f.fault == FaultNone || f.fault == FaultGlobalRateLimit }

// applies reports whether the request that f fails is served first.
func (f *failure) applies() bool { return f.fault == FaultLostStall || f.fault == FaultLostReset }

// stalls reports whether f holds the request instead of answering.
func (f *failure) stalls() bool { return f.fault == FaultStall || f.fault == FaultLostStall }

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
	if f.fault == FaultGlobalRateLimit {
		secs := f.retryAfter.Seconds()
		h := w.Header()
		h.Set("Date", now.UTC().Format(http.TimeFormat))
		h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(secs)), 10))
		h.Set("X-RateLimit-Global", "true")
		h.Set("X-RateLimit-Scope", "global")
		writeJSON(w, f.status, map[string]any{"message": "You are being rate limited.", "retry_after": secs, "global": true})
		return
	}
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
