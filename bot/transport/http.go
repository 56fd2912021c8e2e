package transport

import (
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/connectn/connectn/bot/internal/wire"
	"github.com/connectn/connectn/internal/clock"
)

// DefaultSignatureWindow is how far, either way, the X-Signature-Timestamp
// of a request may be from the server's clock unless HTTPServer.Window
// says otherwise. Discord signs each request as it sends it, so an older
// timestamp means a recorded request played again.
const DefaultSignatureWindow = 5 * time.Minute

// ParsePublicKey decodes the application's public key as the Developer
// Portal shows it: 64 hexadecimal digits. It returns an error that says what
// is wrong with the value (never echoing it).
func ParsePublicKey(s string) (ed25519.PublicKey, error) { return wire.ParsePublicKey(s) }

// HTTPServer serves Discord's outgoing-webhook transport ("Interactions
// Endpoint URL"):
//
//	POST /interactions  Ed25519-verified interaction; the response is written
//	                    inline as JSON (PING gets {"type":1})
//	GET  /healthz       200 once Ready returns nil, 503 before
//
// A request whose X-Signature-Ed25519 / X-Signature-Timestamp headers are
// missing or do not verify against PublicKey over timestamp+body gets 401
// (Discord sends bad signatures on purpose to check this), and so does a
// correctly signed one whose timestamp (Unix seconds) is more than Window
// from Now either way: a request recorded and played again later. A body
// over 1 MiB (wire.MaxBodyBytes) gets 413, a verified body that is not an
// interaction 400. Anything that decodes as an interaction gets 200 and the
// handler's answer, a private message saying what is wrong when it makes
// no sense. Other paths get 404, other methods 405.
type HTTPServer struct {
	// Handler computes the responses.
	Handler Handler
	// PublicKey is the application's Ed25519 public key.
	PublicKey ed25519.PublicKey
	// Ready reports whether the bot can serve (the store is open); nil
	// means always ready.
	Ready func(ctx context.Context) error
	// Log receives failures; slog.Default() when nil.
	Log *slog.Logger
	// Window is how far X-Signature-Timestamp may be from the clock's
	// time, either way;
	// 0 means DefaultSignatureWindow.
	Window time.Duration
	// Clock is the server's clock (the signatures' window, the log's
	// pace, the handling's time); nil is the system clock.
	Clock clock.Clock
	// OnRefused, when set, is called with the reason of every request
	// refused before it reaches the handler, one of RefusedSignature
	// (401), RefusedMalformed (400) and RefusedTooLarge (413).
	OnRefused func(reason string)

	muxOnce sync.Once
	mux     *http.ServeMux

	refusedMu sync.Mutex
	refused   map[string]*refusedLog // by reason
}

// The reasons HTTPServer refuses a request for, as passed to OnRefused.
const (
	RefusedSignature = "bad_signature" // 401: signature missing, wrong, or its timestamp out of the window
	RefusedMalformed = "malformed"     // 400: a body that cannot be read or is not an interaction
	RefusedTooLarge  = "too_large"     // 413: a body over wire.MaxBodyBytes
)

// refusedLogEvery is the least time between two log lines about refused
// requests of one reason: anyone can send them, so that they do not flood
// the log.
const refusedLogEvery = time.Minute

// refusedLog is the log state of one reason of refusal.
type refusedLog struct {
	last       time.Time // when the last line was written
	suppressed int       // refusals since, not logged
}

// refuse answers a refused request with status and text, counts it
// through OnRefused, and logs it unless a line about reason was written
// less than refusedLogEvery ago; the next line says how many were not.
func (h *HTTPServer) refuse(w http.ResponseWriter, status int, reason, text string) {
	http.Error(w, text, status)
	if h.OnRefused != nil {
		h.OnRefused(reason)
	}
	now := h.now()
	h.refusedMu.Lock()
	if h.refused == nil {
		h.refused = make(map[string]*refusedLog)
	}
	st := h.refused[reason]
	if st == nil {
		st = &refusedLog{}
		h.refused[reason] = st
	}
	if !st.last.IsZero() && now.Sub(st.last) < refusedLogEvery && now.Sub(st.last) > -refusedLogEvery {
		st.suppressed++
		h.refusedMu.Unlock()
		return
	}
	suppressed := st.suppressed
	st.last, st.suppressed = now, 0
	h.refusedMu.Unlock()
	h.log().Warn("refused an interaction request", "reason", reason, "status", status, "detail", text,
		"not_logged_since_last", suppressed, "logged_at_most_every", refusedLogEvery)
}

func (h *HTTPServer) now() time.Time { return clock.OrReal(h.Clock).Now() }

// ServeHTTP routes the two endpoints with the method patterns of
// http.ServeMux (GET also answers HEAD).
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.muxOnce.Do(func() {
		h.mux = http.NewServeMux()
		h.mux.HandleFunc("POST /interactions", h.interactions)
		h.mux.HandleFunc("GET /healthz", h.healthz)
	})
	h.mux.ServeHTTP(w, r)
}

func (h *HTTPServer) healthz(w http.ResponseWriter, r *http.Request) {
	if h.Ready != nil {
		if err := h.Ready(r.Context()); err != nil {
			h.log().Warn("health check failed", "err", err)
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

func (h *HTTPServer) log() *slog.Logger {
	if h.Log == nil {
		return slog.Default()
	}
	return h.Log
}

func (h *HTTPServer) interactions(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > wire.MaxBodyBytes {
		h.refuse(w, http.StatusRequestEntityTooLarge, RefusedTooLarge, "request body too large")
		return
	}
	// The signed message is the timestamp followed by the body: the body
	// is read in after the timestamp, into one buffer of the declared
	// length, so that verifying copies nothing.
	// The buffer is an earlier request's (DecodeInteraction keeps no view
	// of it), given back when this request has been answered.
	ts := r.Header.Get("X-Signature-Timestamp")
	in := bodyBuffers.Get().(*[]byte)
	signed, err := wire.ReadBody(*in, http.MaxBytesReader(w, r.Body, wire.MaxBodyBytes), ts, r.ContentLength)
	defer putBody(in, signed)
	body := signed[len(ts):]
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.refuse(w, http.StatusRequestEntityTooLarge, RefusedTooLarge, "request body too large")
			return
		}
		h.refuse(w, http.StatusBadRequest, RefusedMalformed, "cannot read body")
		return
	}
	window := h.Window
	if window <= 0 {
		window = DefaultSignatureWindow
	}
	if !wire.Verify(h.PublicKey, r.Header, ts, signed, h.now(), window) {
		h.refuse(w, http.StatusUnauthorized, RefusedSignature, "invalid request signature")
		return
	}
	i, err := wire.DecodeInteraction(body)
	if err != nil {
		h.refuse(w, http.StatusBadRequest, RefusedMalformed, "malformed interaction: "+err.Error())
		return
	}
	ctx, cancel := clock.WithTimeout(r.Context(), clock.OrReal(h.Clock), handleTimeout)
	defer cancel()
	resp, err := h.Handler.Handle(ctx, i)
	if err != nil {
		h.log().Error("handle interaction", "interaction", i.ID, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	buf := responseBuffers.Get().(*[]byte)
	defer responseBuffers.Put(buf)
	out, err := wire.AppendResponse((*buf)[:0], resp)
	*buf = out
	if err != nil {
		h.log().Error("encode response", "interaction", i.ID, "err", err)
		h.Handler.Undelivered(i)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// A declared length keeps the flushed response from being chunked:
	// one write to the connection instead of two.
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	if _, err := w.Write(out); err != nil {
		h.Handler.Undelivered(i)
		return
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	h.Handler.Delivered(i)
}

// bodyBuffers holds the buffers requests are read into (a click's body is
// about 3 KB), kept for the next request once decoded; maxPooledBody
// bounds what is kept, so that a rare large body is not held.
var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBody = 64 << 10

// putBody keeps b, read into the buffer of p, for the next request.
func putBody(p *[]byte, b []byte) {
	if cap(b) <= maxPooledBody {
		*p = b[:0]
		bodyBuffers.Put(p)
	}
}

// responseBuffers holds the buffers responses are encoded into, kept for
// the next request once written (a board's response is 2–6 KB).
var responseBuffers = sync.Pool{New: func() any { return new([]byte) }}
