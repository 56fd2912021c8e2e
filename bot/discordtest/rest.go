package discordtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Request is one REST request received by the Server.
type Request struct {
	Method string
	// Path is the path without the /api/vN prefix, such as "/users/@me".
	Path string
	// Query is the raw query, without "?".
	Query string
	// Host is the host the client addressed, such as "discord.com", when the
	// request came through Transport; otherwise the fake's own host.
	Host   string
	Header http.Header
	Body   []byte
	// Status and Response are the fake's answer: for a request that
	// Fault lost, the answer it meant to send; Status 0 for a request that
	// was stalled or reset before it was served.
	Status   int
	Response []byte
	// At is when the fake received the request, by the machine's real
	// clock (not WithClock's), so that tests can tell what was sent
	// within a real wait such as a Retry-After.
	At time.Time
	// Fault names the fault Inject made of this request ("stall",
	// "reset", "lost-stall", "lost-reset", "global-429"), or "".
	Fault string
}

// APIError is a Discord-shaped JSON error, as the fake answers it: an HTTP
// status and a body {"code": Code, "message": Message, "errors": Errors}.
// Deliver and WaitResponse wrap one (a copy) when the fake rejects an
// interaction response, so that errors.As can read its Code.
type APIError struct {
	// Status is the HTTP status, such as 400 or 404.
	Status int `json:"-"`
	// Code is Discord's JSON error code, such as 50035 (Invalid Form Body),
	// or 0 for a bare HTTP error.
	Code int `json:"code"`
	// Message is Discord's error message, such as "Unknown Message".
	Message string `json:"message"`
	// Errors holds the field errors of a 50035 error, nested by field path
	// with "_errors" lists at the leaves, as Discord sends them; nil otherwise.
	Errors map[string]any `json:"errors,omitempty"`
	fields []fieldError
}

// Error renders the status, message, code and field errors.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s (code %d)", e.Status, e.Message, e.Code)
	for _, f := range e.fields {
		path := f.path
		if path == "" {
			path = "(body)"
		}
		fmt.Fprintf(&b, "; %s: %s", path, f.msg)
	}
	return b.String()
}

// clone returns a copy of e that a caller may keep and change without
// touching the fake's shared errors.
func (e *APIError) clone() *APIError {
	cp := *e
	cp.fields = slices.Clone(e.fields)
	return &cp
}

func newAPIError(status, code int, msg string) *APIError {
	return &APIError{Status: status, Code: code, Message: msg}
}

var (
	errUnauthorized        = newAPIError(http.StatusUnauthorized, 0, "401: Unauthorized")
	errNotFound            = newAPIError(http.StatusNotFound, 0, "404: Not Found")
	errMethodNotAllowed    = newAPIError(http.StatusMethodNotAllowed, 0, "405: Method Not Allowed")
	errInvalidJSON         = newAPIError(http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
	errMissingAccess       = newAPIError(http.StatusForbidden, 50001, "Missing Access")
	errUnknownApplication  = newAPIError(http.StatusNotFound, 10002, "Unknown Application")
	errUnknownMessage      = newAPIError(http.StatusNotFound, 10008, "Unknown Message")
	errUnknownWebhook      = newAPIError(http.StatusNotFound, 10015, "Unknown Webhook")
	errUnknownInteraction  = newAPIError(http.StatusNotFound, 10062, "Unknown interaction")
	errAlreadyAcknowledged = newAPIError(http.StatusBadRequest, 40060, "Interaction has already been acknowledged.")
	errEmptyMessage        = newAPIError(http.StatusBadRequest, 50006, "Cannot send an empty message")
	errEditOthers          = newAPIError(http.StatusForbidden, 50005, "Cannot edit a message authored by another user")
	errInvalidWebhookToken = newAPIError(http.StatusUnauthorized, 50027, "Invalid Webhook Token")
	errUnknownChannel      = newAPIError(http.StatusNotFound, 10003, "Unknown Channel")
	errMissingPermissions  = newAPIError(http.StatusForbidden, 50013, "Missing Permissions")
	errDMChannel           = newAPIError(http.StatusBadRequest, 50003, "Cannot execute action on a DM channel")
	errChannelType         = newAPIError(http.StatusBadRequest, 50024, "Cannot execute action on this channel type")
	errThreadArchived      = newAPIError(http.StatusBadRequest, 50083, "Thread is archived")
	errMaxFollowups        = newAPIError(http.StatusBadRequest, 40094, "This interaction has hit the maximum number of follow up messages")
)

// fieldError is one entry of an Invalid Form Body error.
type fieldError struct {
	path string // dotted, such as "data.components.0.custom_id"; "" is the body
	code string
	msg  string
}

// formError builds Discord's 50035 Invalid Form Body error.
func formError(errs []fieldError) *APIError {
	root := map[string]any{}
	for _, e := range errs {
		node := root
		if e.path != "" {
			for _, seg := range strings.Split(e.path, ".") {
				child, ok := node[seg].(map[string]any)
				if !ok {
					child = map[string]any{}
					node[seg] = child
				}
				node = child
			}
		}
		list, _ := node["_errors"].([]any)
		node["_errors"] = append(list, map[string]string{"code": e.code, "message": e.msg})
	}
	return &APIError{Status: http.StatusBadRequest, Code: 50035, Message: "Invalid Form Body", Errors: root, fields: errs}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(mustJSON(v))
}

func writeAPIError(w http.ResponseWriter, e *APIError) {
	writeJSON(w, e.Status, e)
}

// apiPrefix matches the API prefix discordgo puts before every route.
var apiPrefix = regexp.MustCompile(`^/api(/v[0-9]+)?/`)

// serveHTTP serves the gateway websocket and the REST API.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ws" || r.URL.Path == "/ws/" {
		s.serveGateway(w, r)
		return
	}
	s.serveREST(w, r)
}

// serveREST routes a REST request (or fails it, see FailNext), logs it with
// its answer, then answers.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	if d := s.latency.Load(); d > 0 {
		time.Sleep(time.Duration(d))
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeAPIError(w, newAPIError(http.StatusBadRequest, 0, "400: Bad Request"))
		return
	}
	host := r.Header.Get(originalHostHeader)
	if host == "" {
		host = r.Host
	}
	loc := apiPrefix.FindStringIndex(r.URL.Path)
	req := Request{
		Method: r.Method,
		Path:   strings.TrimSuffix(r.URL.Path, "/"),
		Query:  r.URL.RawQuery,
		Host:   host,
		Header: r.Header.Clone(),
		Body:   body,
		At:     at,
	}
	if loc != nil {
		req.Path = r.URL.Path[loc[1]-1:]
	}

	s.mu.Lock()
	fail := s.takeFailureLocked(req)
	s.mu.Unlock()
	if fail == nil && s.cfg.faults != nil {
		fail = failureOf(s.cfg.faults(copyRequest(req)))
	}

	if fail != nil && !fail.answers() && !fail.applies() {
		req.Fault = fail.fault.String()
		s.logRequest(req)
		s.misbehave(w, r, fail)
		return
	}

	rec := httptest.NewRecorder()
	switch {
	case fail != nil && fail.answers():
		req.Fault = fail.fault.String()
		fail.write(rec, req, s.now())
	case loc == nil:
		writeAPIError(rec, errNotFound)
	case s.refuseStranger(rec, r, req.Path):
	default:
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = req.Path, ""
		r2.Body = io.NopCloser(bytes.NewReader(body))
		if _, pattern := s.mux.Handler(r2); pattern == "" {
			// Let the mux tell 404 from 405, then answer like Discord.
			probe := httptest.NewRecorder()
			s.mux.ServeHTTP(probe, r2)
			if probe.Code == http.StatusMethodNotAllowed {
				writeAPIError(rec, errMethodNotAllowed)
			} else {
				writeAPIError(rec, errNotFound)
			}
		} else {
			s.mux.ServeHTTP(rec, r2)
		}
	}

	req.Status = rec.Code
	req.Response = bytes.Clone(rec.Body.Bytes())
	if fail != nil && fail.applies() {
		req.Fault = fail.fault.String()
		s.logRequest(req)
		s.misbehave(w, r, fail)
		return
	}
	s.logRequest(req)

	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// logRequest appends req to the request log and wakes waiters.
func (s *Server) logRequest(req Request) {
	s.mu.Lock()
	if !s.cfg.noLogs {
		s.requests = append(s.requests, req)
	}
	s.notifyLocked()
	s.mu.Unlock()
}

// misbehave carries out a stall or a reset instead of an answer.
func (s *Server) misbehave(w http.ResponseWriter, r *http.Request, f *failure) {
	if f.stalls() {
		// Until the client gives up (the server cancels r's context when
		// the client closes the connection) or the Server closes.
		select {
		case <-r.Context().Done():
		case <-s.stopStalls:
		}
		return
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic("discordtest: hijack for a reset: " + err.Error())
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close with RST, not FIN
	}
	_ = conn.Close()
}

// handle registers a route. Unless public, it requires the bot token.
func (s *Server) handle(pattern string, public bool, h func(http.ResponseWriter, *http.Request)) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if !public && r.Header.Get("Authorization") != "Bot "+s.cfg.token {
			writeAPIError(w, errUnauthorized)
			return
		}
		h(w, r)
	})
}

// routes registers every REST route.
func (s *Server) routes() {
	s.handle("GET /gateway", true, s.getGateway)
	s.handle("GET /gateway/bot", false, s.getGatewayBot)
	s.handle("GET /oauth2/applications/{app}", false, s.getApplication)
	s.handle("GET /applications/{app}/commands", false, s.getCommands)
	s.handle("PUT /applications/{app}/commands", false, s.putCommands)
	s.handle("GET /applications/{app}/guilds/{guild}/commands", false, s.getCommands)
	s.handle("PUT /applications/{app}/guilds/{guild}/commands", false, s.putCommands)
	s.handle("POST /interactions/{id}/{token}/callback", true, s.interactionCallback)
	// The interaction token authenticates the webhook routes, as on Discord.
	s.handle("POST /webhooks/{app}/{token}", true, s.followupCreate)
	s.handle("GET /webhooks/{app}/{token}/messages/{msg}", true, s.webhookMessageGet)
	s.handle("PATCH /webhooks/{app}/{token}/messages/{msg}", true, s.webhookMessageEdit)
	s.handle("DELETE /webhooks/{app}/{token}/messages/{msg}", true, s.webhookMessageDelete)
	s.handle("GET /channels/{channel}/messages", false, s.channelMessageList)
	s.handle("POST /channels/{channel}/messages", false, s.channelMessageCreate)
	s.handle("PATCH /channels/{channel}/messages/{msg}", false, s.channelMessageEdit)
	s.handle("POST /channels/{channel}/threads", false, s.threadCreate)
	s.handle("PATCH /channels/{channel}", false, s.channelEdit)
}

func (s *Server) getGateway(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"url": s.wsURL})
}

func (s *Server) getGatewayBot(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"url":    s.wsURL,
		"shards": max(s.cfg.shards, 1),
		"session_start_limit": map[string]int{
			"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1,
		},
	})
}

func (s *Server) getApplication(w http.ResponseWriter, r *http.Request) {
	if app := r.PathValue("app"); app != "@me" && app != s.cfg.appID {
		writeAPIError(w, errUnknownApplication)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":                     s.cfg.appID,
		"name":                   s.cfg.user.Username,
		"description":            "",
		"bot_public":             false,
		"bot_require_code_grant": false,
		"flags":                  0,
		"verify_key":             "",
		"summary":                "",
		"bot":                    s.cfg.user,
	})
}

// Requests returns a copy of every REST request received so far, oldest
// first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = copyRequest(r)
	}
	return out
}

// WaitRequest waits for a REST request for which match returns true,
// considering requests already received too, and returns a copy of the
// first one. match must not call Server methods. It returns an error
// wrapping the context's error, or ErrClosed, if none arrives.
func (s *Server) WaitRequest(ctx context.Context, match func(Request) bool) (Request, error) {
	var found Request
	next := 0
	err := s.wait(ctx, "request", func() bool {
		for ; next < len(s.requests); next++ {
			if r := copyRequest(s.requests[next]); match(r) {
				found = r
				return true
			}
		}
		return false
	})
	return found, err
}

func copyRequest(r Request) Request {
	r.Header = r.Header.Clone()
	r.Body = bytes.Clone(r.Body)
	r.Response = bytes.Clone(r.Response)
	return r
}
