package bot

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// maxBodyBytes bounds the body of one interaction request. Discord's
// interactions are a few kilobytes.
const maxBodyBytes = 1 << 20

// ParsePublicKey decodes the application's public key as the Developer
// Portal shows it: 64 hexadecimal digits. It returns an error that says what
// is wrong with the value (never echoing it).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("not hexadecimal")
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%d bytes, want %d (64 hex digits)", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// HTTPServer serves Discord's outgoing-webhook transport ("Interactions
// Endpoint URL"):
//
//	POST /interactions  Ed25519-verified interaction; the response is written
//	                    inline as JSON (PING gets {"type":1})
//	GET  /healthz       200 once Ready returns nil, 503 before
//
// A request whose X-Signature-Ed25519 / X-Signature-Timestamp headers are
// missing or do not verify against PublicKey over timestamp+body gets 401
// (Discord sends bad signatures on purpose to check this); a verified body
// that is not an interaction gets 400.
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
}

// ServeHTTP routes the two endpoints; anything else is 404 or 405.
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/interactions":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.interactions(w, r)
	case "/healthz":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if h.Ready != nil {
			if err := h.Ready(r.Context()); err != nil {
				h.log().Warn("health check failed", "err", err)
				http.Error(w, "not ready", http.StatusServiceUnavailable)
				return
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	default:
		http.NotFound(w, r)
	}
}

func (h *HTTPServer) log() *slog.Logger {
	if h.Log == nil {
		return slog.Default()
	}
	return h.Log
}

func (h *HTTPServer) interactions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if len(h.PublicKey) != ed25519.PublicKeySize || !discordgo.VerifyInteraction(r, h.PublicKey) {
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	var i discordgo.Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		http.Error(w, "malformed interaction", http.StatusBadRequest)
		return
	}
	if i.Type == 0 {
		http.Error(w, "malformed interaction: no type", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), handleTimeout)
	defer cancel()
	resp, err := h.Handler.Handle(ctx, &i)
	if err != nil {
		h.log().Error("handle interaction", "interaction", i.ID, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	out, err := json.Marshal(resp)
	if err != nil {
		h.log().Error("encode response", "interaction", i.ID, "err", err)
		h.Handler.Undelivered(&i)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if _, err := w.Write(out); err != nil {
		h.Handler.Undelivered(&i)
		return
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	h.Handler.Delivered(&i)
}
