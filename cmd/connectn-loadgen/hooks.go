package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// followUp is a message the bot posted through an interaction webhook.
type followUp struct {
	id   string
	data *messageData
}

// hooks is the part of Discord's REST API that `connectn serve` calls back
// during a match: the interaction webhooks.
//
//	POST   .../webhooks/{app}/{token}[?wait=true]   a follow-up: returns the message, with its ID
//	GET    .../webhooks/{app}/{token}/messages/{id} a message ("@original": the response's)
//	PATCH  .../webhooks/{app}/{token}/messages/{id} an edit: returns the message
//	DELETE .../webhooks/{app}/{token}/messages/{id} 204
//
// Any prefix before /webhooks/ is accepted (CONNECTN_DISCORD_API sets
// it, e.g. http://127.0.0.1:8090/api/v10). A follow-up is handed to the
// slot named in its token (see client.next); anything else answers as
// Discord would answer an unknown route.
type hooks struct {
	srv  *http.Server
	addr string

	mu     sync.Mutex
	slots  map[int]chan followUp
	counts map[string]int // requests by route, for the report

	nextID atomic.Int64
	// delay holds back each follow-up's answer by that many nanoseconds,
	// as a slow Discord would.
	delay atomic.Int64
}

// listenHooks serves the fake webhooks on addr ("127.0.0.1:0" picks a
// port).
func listenHooks(addr string) (*hooks, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for the webhook routes on %s: %w", addr, err)
	}
	h := &hooks{addr: ln.Addr().String(), slots: map[int]chan followUp{}, counts: map[string]int{}}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go h.srv.Serve(ln)
	return h, nil
}

// apiBase is the value of CONNECTN_DISCORD_API that points a bot here.
func (h *hooks) apiBase() string { return "http://" + h.addr + "/api/v10" }

// close stops serving.
func (h *hooks) close() { h.srv.Close() }

// subscribe returns the channel on which slot receives its follow-ups.
func (h *hooks) subscribe(slot int) chan followUp {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := h.slots[slot]
	if ch == nil {
		ch = make(chan followUp, 16)
		h.slots[slot] = ch
	}
	return ch
}

// count returns the number of requests per route so far.
func (h *hooks) count() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]int, len(h.counts))
	for k, v := range h.counts {
		out[k] = v
	}
	return out
}

func (h *hooks) note(route string) {
	h.mu.Lock()
	h.counts[route]++
	h.mu.Unlock()
}

// slotOf reads the slot from a token made by client.next.
func slotOf(token string) (int, bool) {
	rest, ok := strings.CutPrefix(token, "lgtoken")
	if !ok {
		return 0, false
	}
	n, _, ok := strings.Cut(rest, "x")
	if !ok {
		return 0, false
	}
	slot, err := strconv.Atoi(n)
	return slot, err == nil
}

// originalID returns the ID of the message created by the response to the
// interaction with token: originalBase + its sequence.
func originalID(token string) string {
	_, seq, _ := strings.Cut(token, "x")
	n, err := strconv.ParseInt(seq, 10, 64)
	if err != nil {
		return "0"
	}
	return strconv.FormatInt(originalBase+n, 10)
}

func (h *hooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, rest, ok := strings.Cut(r.URL.Path, "/webhooks/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) < 2 || parts[0] != appID {
		h.note("unknown")
		discordError(w, http.StatusNotFound, 0, "404: Not Found")
		return
	}
	token := parts[1]
	slot, known := slotOf(token)
	if !known {
		h.note("unknown webhook")
		discordError(w, http.StatusNotFound, 10015, "Unknown Webhook")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		discordError(w, http.StatusBadRequest, 0, "cannot read body")
		return
	}
	switch {
	case len(parts) == 2 && r.Method == http.MethodPost:
		h.note("POST follow-up")
		time.Sleep(time.Duration(h.delay.Load()))
		var data messageData
		if err := json.Unmarshal(body, &data); err != nil {
			discordError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
			return
		}
		id := strconv.FormatInt(followBase+h.nextID.Add(1), 10)
		select {
		case h.subscribe(slot) <- followUp{id: id, data: &data}:
		default: // nobody reads: the slot has stopped
		}
		writeMessage(w, id, body)
	case len(parts) == 4 && parts[2] == "messages":
		id := parts[3]
		if id == "@original" {
			id = originalID(token)
		}
		switch r.Method {
		case http.MethodGet:
			h.note("GET message")
			writeMessage(w, id, nil)
		case http.MethodPatch:
			h.note("PATCH message")
			writeMessage(w, id, body)
		case http.MethodDelete:
			h.note("DELETE message")
			w.WriteHeader(http.StatusNoContent)
		default:
			discordError(w, http.StatusMethodNotAllowed, 0, "405: Method Not Allowed")
		}
	default:
		h.note("unknown")
		discordError(w, http.StatusNotFound, 0, "404: Not Found")
	}
}

// writeMessage answers with a message object: id, and the fields of body
// (the posted or patched message) when there is one.
func writeMessage(w http.ResponseWriter, id string, body []byte) {
	m := map[string]any{}
	if len(body) > 0 {
		_ = json.Unmarshal(body, &m)
	}
	m["id"], m["type"], m["channel_id"] = id, 0, "0"
	m["author"] = map[string]any{"id": appID, "username": "ConnectN", "discriminator": "0", "bot": true}
	m["timestamp"] = time.Now().UTC().Format("2006-01-02T15:04:05.000000+00:00")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(m)
}

// discordError answers as Discord's API does on an error.
func discordError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"message": %q, "code": %d}`, msg, code)
}
