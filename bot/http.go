package bot

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
	Handler *Handler
	// PublicKey is the application's Ed25519 public key.
	PublicKey ed25519.PublicKey
	// Ready reports whether the bot can serve (the store is open); nil
	// means always ready.
	Ready func(ctx context.Context) error
	// Log receives failures; slog.Default() when nil.
	Log *slog.Logger
	// Window is how far X-Signature-Timestamp may be from Now, either way;
	// 0 means DefaultSignatureWindow.
	Window time.Duration
	// Now is the server's clock; nil means time.Now.
	Now func() time.Time

	muxOnce sync.Once
	mux     *http.ServeMux
}

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
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	// The signed message is the timestamp followed by the body: the body
	// is read in after the timestamp, into one buffer of the declared
	// length, so that verifying copies nothing.
	ts := r.Header.Get("X-Signature-Timestamp")
	signed, err := wire.ReadBody(http.MaxBytesReader(w, r.Body, wire.MaxBodyBytes), ts, r.ContentLength)
	body := signed[len(ts):]
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	window, now := h.Window, time.Now
	if window <= 0 {
		window = DefaultSignatureWindow
	}
	if h.Now != nil {
		now = h.Now
	}
	if !wire.Verify(h.PublicKey, r.Header, ts, signed, now(), window) {
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	i, err := wire.DecodeInteraction(body)
	if err != nil {
		http.Error(w, "malformed interaction: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), handleTimeout)
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

// responseBuffers holds the buffers responses are encoded into, kept for
// the next request once written (a board's response is 2–6 KB).
var responseBuffers = sync.Pool{New: func() any { return new([]byte) }}
