package bot

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"
	"github.com/tidwall/gjson"
)

// MaxBodyBytes bounds the body of one interaction request, in bytes.
// Discord's interactions are a few kilobytes; a longer body gets 413
// without being read past the limit.
const MaxBodyBytes = 1 << 20

// DefaultSignatureWindow is how far, either way, the X-Signature-Timestamp
// of a request may be from the server's clock unless HTTPServer.Window
// says otherwise. Discord signs each request as it sends it, so an older
// timestamp means a recorded request played again.
const DefaultSignatureWindow = 5 * time.Minute

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
// (Discord sends bad signatures on purpose to check this), and so does a
// correctly signed one whose timestamp (Unix seconds) is more than Window
// from Now either way: a request recorded and played again later. A body
// over MaxBodyBytes gets 413, a verified body that is not an interaction
// 400. Anything that decodes as an interaction gets 200 and the handler's
// answer, a private message saying what is wrong when it makes no sense.
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
	if r.ContentLength > MaxBodyBytes {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	// The signed message is the timestamp followed by the body: the body
	// is read in after the timestamp, into one buffer of the declared
	// length, so that verifying copies nothing.
	ts := r.Header.Get("X-Signature-Timestamp")
	signed, err := readBody(http.MaxBytesReader(w, r.Body, MaxBodyBytes), ts, r.ContentLength)
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
	if !h.verify(r.Header, ts, signed) {
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	i, err := decodeInteraction(body)
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
	out, err := appendResponse((*buf)[:0], resp)
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

// readBody returns prefix followed by everything r reads, in one buffer
// of prefix's length and size (the declared Content-Length; -1 when
// unknown) when the size is right, growing it otherwise, as io.ReadAll
// does.
func readBody(r io.Reader, prefix string, size int64) ([]byte, error) {
	n := 512
	if size >= 0 && size <= MaxBodyBytes {
		n = int(size) + 1 // the read that meets the end needs room
	}
	b := append(make([]byte, 0, len(prefix)+n), prefix...)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		k, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+k]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// verify reports whether header's X-Signature-Ed25519 is PublicKey's
// signature of signed, the X-Signature-Timestamp ts followed by the body,
// as Discord signs (the check discordgo.VerifyInteraction makes, on the
// body already read), and the timestamp is within Window of Now.
func (h *HTTPServer) verify(header http.Header, ts string, signed []byte) bool {
	if len(h.PublicKey) != ed25519.PublicKeySize {
		return false
	}
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	window, now := h.Window, time.Now
	if window <= 0 {
		window = DefaultSignatureWindow
	}
	if h.Now != nil {
		now = h.Now
	}
	if skew := now().Sub(time.Unix(sent, 0)); skew > window || skew < -window {
		return false
	}
	sig, err := hex.DecodeString(header.Get("X-Signature-Ed25519"))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(h.PublicKey, signed, sig)
}

// interactionFields is discordgo.Interaction without its methods, to
// decode it field by field.
type interactionFields discordgo.Interaction

// messageRef is the part of the message a component was clicked on that
// the handler reads: which message it was.
type messageRef struct {
	ID        string `json:"id"`
	ChannelID string `json:"channel_id"`
}

// userRef is the part of the user who used an interaction that the
// handler reads: who it is and the name to show.
type userRef struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name"`
}

// memberRef is the part of the member who used an interaction (in a
// server) that the handler reads: the user and their nickname there.
type memberRef struct {
	User *userRef `json:"user"`
	Nick string   `json:"nick"`
}

func (u *userRef) user() *discordgo.User {
	if u == nil {
		return nil
	}
	return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName}
}

// wireInteraction is an interaction as decodeInteraction reads it.
type wireInteraction struct {
	interactionFields
	Data    json.RawMessage `json:"data"`
	Message *messageRef     `json:"message"`
	Member  *memberRef      `json:"member"`
	User    *userRef        `json:"user"`
}

// decodeInteraction reads an interaction as Discord sends it to the
// endpoint, as discordgo's Interaction.UnmarshalJSON does (data decoded by
// the interaction's type) but with the message a component was clicked on
// reduced to its ID and channel, and the member or user who used it to
// their ID and names: the handler works from the store, never from what a
// message shows, and a member's roles, permissions and dates are never
// read. The message is skimmed (skimMessage), not decoded: its emoji and
// escaped lines were most of the time a click took to decode. The
// interaction's strings point into body (or into a copy of it), which must
// not change afterwards. It returns an error for a body that is not a JSON
// object of the interaction's shape, or that has no type.
func decodeInteraction(body []byte) (*discordgo.Interaction, error) {
	var raw wireInteraction
	rest, msg, skimmed := skimMessage(body)
	if skimmed {
		if err := unmarshal(rest, &raw); err != nil {
			return nil, err
		}
		if raw.Message != nil {
			// A message the skim did not see: read the body whole.
			raw, skimmed = wireInteraction{}, false
		} else {
			raw.Message = msg
		}
	}
	if !skimmed {
		if err := unmarshal(body, &raw); err != nil {
			return nil, err
		}
	}
	if raw.Type == 0 {
		return nil, errors.New("no type")
	}
	i := discordgo.Interaction(raw.interactionFields)
	if raw.Message != nil {
		i.Message = &discordgo.Message{ID: raw.Message.ID, ChannelID: raw.Message.ChannelID}
	}
	if raw.Member != nil {
		i.Member = &discordgo.Member{User: raw.Member.User.user(), Nick: raw.Member.Nick}
	}
	i.User = raw.User.user()
	var err error
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		var d discordgo.ApplicationCommandInteractionData
		err = unmarshalData(raw.Data, &d)
		i.Data = d
	case discordgo.InteractionMessageComponent:
		var d discordgo.MessageComponentInteractionData
		err = unmarshalData(raw.Data, &d)
		i.Data = d
	case discordgo.InteractionModalSubmit:
		var d discordgo.ModalSubmitInteractionData
		err = unmarshalData(raw.Data, &d)
		i.Data = d
	}
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return &i, nil
}

// skimMessage finds the members named "message" (as encoding/json matches
// names: without regard to case) at the top level of the JSON object body,
// without decoding their values, and returns body with each of their values
// replaced by null, and the message the last of them names (discordgo's
// Message.UnmarshalJSON replaces a message whole): nil for null, else its
// "id" and "channel_id". It reports false, for the body to be decoded whole, when body
// is not an object or has no message, when a name in it is escaped (the
// skim compares names as they are written), when a message is not an
// object or null, or when an ID does not decode as a string.
//
// The skim is gjson's iteration, which passes over a value by finding its
// end (strings by their closing quote) where a decoder reads every byte of
// every string; it assumes the JSON is valid, which the decoding of what
// is left of the body then checks but for the inside of the message.
func skimMessage(body []byte) (rest []byte, msg *messageRef, ok bool) {
	if len(body) == 0 {
		return nil, nil, false
	}
	// A view of body, not a copy: body is not changed while the results,
	// which point into it, are read.
	top := gjson.Parse(unsafe.String(unsafe.SliceData(body), len(body)))
	if !top.IsObject() {
		return nil, nil, false
	}
	type span struct{ start, end int }
	var spans []span
	ok = true
	top.ForEach(func(k, v gjson.Result) bool {
		if strings.IndexByte(k.Raw, '\\') >= 0 {
			ok = false
			return false
		}
		if !strings.EqualFold(k.Str, "message") {
			return true
		}
		if v.Index <= 0 || v.Index+len(v.Raw) > len(body) {
			ok = false
			return false
		}
		spans = append(spans, span{v.Index, v.Index + len(v.Raw)})
		switch {
		case v.Raw == "null":
			msg = nil
		case v.IsObject():
			msg = new(messageRef)
			v.ForEach(func(k, v gjson.Result) bool {
				var into *string
				switch {
				case strings.IndexByte(k.Raw, '\\') >= 0:
					ok = false
				case strings.EqualFold(k.Str, "id"):
					into = &msg.ID
				case strings.EqualFold(k.Str, "channel_id"):
					into = &msg.ChannelID
				}
				if into != nil && !decodeString(v.Raw, into) {
					ok = false
				}
				return ok
			})
		default:
			ok = false
		}
		return ok
	})
	if !ok || len(spans) == 0 {
		return nil, nil, false
	}
	size := len(body)
	for _, s := range spans {
		size -= s.end - s.start - len("null")
	}
	rest = make([]byte, 0, size)
	at := 0
	for _, s := range spans {
		rest = append(append(rest, body[at:s.start]...), "null"...)
		at = s.end
	}
	return append(rest, body[at:]...), msg, true
}

// decodeString decodes the JSON value v into *into as encoding/json decodes
// into a string (null leaves it as it was), and reports whether it could:
// an ID (digits in quotes) directly, anything else through the decoder.
func decodeString(v string, into *string) bool {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && strings.Trim(v[1:len(v)-1], "0123456789") == "" {
		*into = v[1 : len(v)-1] // points into the body, as unmarshal's strings do
		return true
	}
	return fastjson.Unmarshal([]byte(v), into) == nil
}

// unmarshalData decodes an interaction's data into v; absent data leaves v
// empty, as discordgo does with null.
func unmarshalData(data json.RawMessage, v any) error {
	if len(data) == 0 {
		return nil
	}
	return unmarshal(data, v)
}

// unmarshal decodes the JSON value b into v as fastjson.Unmarshal does but
// without copying: the strings decoded point into b, which must not change
// while they are in use. decodeInteraction decodes a request's own buffer,
// or its copy of it, and nothing writes to either afterwards.
func unmarshal(b []byte, v any) error {
	r, err := fastjson.Parse(b, v, fastjson.ZeroCopy)
	if err == nil && len(r) != 0 {
		return fmt.Errorf("invalid character %q after the JSON value", r[0])
	}
	return err
}
