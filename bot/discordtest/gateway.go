package discordtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Gateway opcodes used by the fake.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opResume         = 6
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11
)

// gatewayPayload is the envelope of every gateway message.
type gatewayPayload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s"`
	T  *string         `json:"t"`
}

// gatewayConn is one client websocket connection.
type gatewayConn struct {
	ws *websocket.Conn

	wmu sync.Mutex // serializes writes and guards seq
	seq int64

	// Guarded by Server.mu.
	identified bool
	heartbeat  bool // sent at least one heartbeat
	noACK      bool // heartbeats go unacknowledged (StopHeartbeatACKs)
	closing    bool
	sessionID  string
	shard      [2]int // the shard pair of IDENTIFY, [0, 1] when none was sent
}

// writeLocked sends one payload, whose d is marshaled unless it is a
// json.RawMessage, which is sent as it is. c.wmu must be held.
func (c *gatewayConn) writeLocked(op int, event string, d any) error {
	raw, ok := d.(json.RawMessage)
	if !ok || len(raw) == 0 {
		raw = mustJSON(d)
	}
	// The envelope of gatewayPayload, written by hand: a dispatch's d is
	// the bulk of it, and marshaling it again would compact and check it
	// once more.
	b := make([]byte, 0, len(raw)+64)
	b = append(b, `{"op":`...)
	b = strconv.AppendInt(b, int64(op), 10)
	b = append(b, `,"d":`...)
	b = append(b, raw...)
	if op == opDispatch {
		c.seq++
		b = append(b, `,"s":`...)
		b = strconv.AppendInt(b, c.seq, 10)
		b = append(b, `,"t":`...)
		b = strconv.AppendQuote(b, event)
	} else {
		b = append(b, `,"s":null,"t":null`...)
	}
	b = append(b, '}')
	if err := c.ws.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return err
	}
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

// write sends one payload.
func (c *gatewayConn) write(op int, event string, d any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeLocked(op, event, d)
}

// serveGateway upgrades to a websocket and runs the gateway protocol until
// the connection ends.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		writeAPIError(w, &APIError{Status: http.StatusBadRequest, Message: "400: Bad Request"})
		return
	}
	q := r.URL.Query()
	if enc := q.Get("encoding"); enc != "" && enc != "json" {
		writeAPIError(w, &APIError{Status: http.StatusBadRequest, Message: "discordtest: only encoding=json is supported"})
		return
	}
	if q.Get("compress") != "" {
		writeAPIError(w, &APIError{Status: http.StatusBadRequest, Message: "discordtest: transport compression is not supported"})
		return
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeAPIError(w, &APIError{Status: http.StatusServiceUnavailable, Message: "503: Service Unavailable"})
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	c := &gatewayConn{ws: ws}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = ws.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		_ = ws.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.notifyLocked()
		s.mu.Unlock()
	}()

	interval := int64(heartbeatInterval)
	if s.cfg.heartbeat > 0 {
		interval = max(s.cfg.heartbeat.Milliseconds(), 1)
	}
	if err := c.write(opHello, "", map[string]int64{"heartbeat_interval": interval}); err != nil {
		return
	}
	s.readLoop(c)
}

// readLoop handles client payloads until the connection fails.
func (s *Server) readLoop(c *gatewayConn) {
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			// A client that closes with 1000 or 1001 ends its session, as on
			// Discord; other codes (discordgo's 1012 after RECONNECT) keep
			// it resumable. A close in answer to the fake's own does not
			// count.
			var ce *websocket.CloseError
			s.mu.Lock()
			if errors.As(err, &ce) && (ce.Code == websocket.CloseNormalClosure || ce.Code == websocket.CloseGoingAway) && !c.closing && c.sessionID != "" {
				delete(s.sessions, c.sessionID)
			}
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		closing := c.closing
		s.mu.Unlock()
		if closing {
			continue // drain until the client closes
		}
		var p gatewayPayload
		if err := json.Unmarshal(data, &p); err != nil {
			s.closeConn(c, 4002, "Error while decoding payload.")
			continue
		}
		switch p.Op {
		case opHeartbeat:
			s.mu.Lock()
			ack := !c.noACK
			s.mu.Unlock()
			if ack {
				_ = c.write(opHeartbeatACK, "", nil)
			}
			s.mu.Lock()
			if !c.heartbeat {
				c.heartbeat = true
				s.notifyLocked()
			}
			s.mu.Unlock()
		case opIdentify:
			s.identify(c, p.D)
		case opResume:
			s.resume(c, p.D)
		default:
			s.closeConn(c, 4001, "Unknown opcode.")
		}
	}
}

// closeConn sends a close frame and stops dispatching to c. The read loop
// keeps draining until the client closes or a deadline passes.
func (s *Server) closeConn(c *gatewayConn, code int, text string) {
	s.mu.Lock()
	c.closing = true
	s.notifyLocked()
	s.mu.Unlock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(writeTimeout))
	_ = c.ws.SetReadDeadline(time.Now().Add(writeTimeout))
}

// identify handles op 2.
func (s *Server) identify(c *gatewayConn, d json.RawMessage) {
	id, err := decodeIdentify(d)
	if err != nil {
		s.closeConn(c, 4002, "Error while decoding payload.")
		return
	}
	s.mu.Lock()
	s.identifies = append(s.identifies, append([]byte(nil), d...))
	already := c.identified
	s.notifyLocked()
	s.mu.Unlock()

	switch {
	case already:
		s.closeConn(c, 4005, "Already authenticated.")
		return
	case !s.tokenOK(id.Token):
		s.closeConn(c, 4004, "Authentication failed.")
		return
	case id.Intents&privilegedIntents&^s.cfg.privileged != 0:
		s.closeConn(c, 4014, "Disallowed intent(s).")
		return
	case id.Shard != nil && (id.Shard[1] < 1 || id.Shard[0] < 0 || id.Shard[0] >= id.Shard[1]):
		s.closeConn(c, 4010, "Invalid shard.")
		return
	}

	shard := [2]int{0, 1}
	if id.Shard != nil {
		shard = *id.Shard
	}
	sessionID := randomHex(16)
	apiVersion, _ := strconv.Atoi(discordgo.APIVersion)
	ready := map[string]any{
		"v":                  apiVersion,
		"user":               s.cfg.user,
		"guilds":             []any{},
		"private_channels":   []any{},
		"session_id":         sessionID,
		"session_type":       "normal",
		"resume_gateway_url": s.wsURL,
		"shard":              shard,
		"application":        map[string]any{"id": s.cfg.appID, "flags": 0},
	}

	// Mark the connection identified and send READY while holding the write
	// lock, so that any dispatch that sees it identified is sent after READY,
	// and so that a client that got READY finds itself identified.
	c.wmu.Lock()
	defer c.wmu.Unlock()
	s.mu.Lock()
	c.identified, c.sessionID, c.shard = true, sessionID, shard
	s.sessions[sessionID] = true
	s.notifyLocked()
	s.mu.Unlock()
	_ = c.writeLocked(opDispatch, "READY", ready)
}

// resume handles op 6.
func (s *Server) resume(c *gatewayConn, d json.RawMessage) {
	var rp struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if err := json.Unmarshal(d, &rp); err != nil {
		s.closeConn(c, 4002, "Error while decoding payload.")
		return
	}
	s.mu.Lock()
	already, known := c.identified, s.sessions[rp.SessionID]
	s.resumes++
	s.notifyLocked()
	s.mu.Unlock()
	switch {
	case already:
		s.closeConn(c, 4005, "Already authenticated.")
		return
	case !s.tokenOK(rp.Token):
		s.closeConn(c, 4004, "Authentication failed.")
		return
	case !known:
		_ = c.write(opInvalidSession, "", false)
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	s.mu.Lock()
	c.identified, c.sessionID = true, rp.SessionID
	s.notifyLocked()
	s.mu.Unlock()
	c.seq = rp.Seq
	_ = c.writeLocked(opDispatch, "RESUMED", map[string]any{})
}

// dispatchGuild sends event to the connections of the shard that serves
// guildID, as Discord routes guild events: shard (guild_id >> 22) % count,
// and shard 0 for events outside a guild (guildID "").
func (s *Server) dispatchGuild(event string, data any, guildID string) error {
	g, _ := strconv.ParseUint(guildID, 10, 64)
	return s.dispatchTo(event, data, func(c *gatewayConn) bool {
		if c.shard[1] <= 1 {
			return true
		}
		if guildID == "" {
			return c.shard[0] == 0
		}
		return uint64(c.shard[0]) == (g>>22)%uint64(c.shard[1])
	})
}

// dispatchTo sends event to the identified connections that to accepts.
func (s *Server) dispatchTo(event string, data any, to func(*gatewayConn) bool) error {
	raw, ok := data.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(data); err != nil {
			return fmt.Errorf("discordtest: marshal %s: %w", event, err)
		}
	}
	s.mu.Lock()
	var conns []*gatewayConn
	for c := range s.conns {
		if c.identified && !c.closing && to(c) {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	if len(conns) == 0 {
		return ErrNotConnected
	}
	var errs []error
	for _, c := range conns {
		if err := c.write(opDispatch, event, json.RawMessage(raw)); err != nil {
			errs = append(errs, fmt.Errorf("discordtest: dispatch %s: %w", event, err))
		}
	}
	return errors.Join(errs...)
}

// connected reports whether some gateway connection is identified.
func (s *Server) connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.identified && !c.closing {
			return true
		}
	}
	return false
}

// WaitIdentify waits until some gateway connection has sent IDENTIFY and
// returns the latest IDENTIFY payload received, including ones the fake
// rejected (wrong token, disallowed intents). Its Token is as sent, usually
// "Bot <token>". It returns an error wrapping the context's error, or
// ErrClosed, if no IDENTIFY arrives.
func (s *Server) WaitIdentify(ctx context.Context) (discordgo.Identify, error) {
	var raw []byte
	err := s.wait(ctx, "IDENTIFY", func() bool {
		if n := len(s.identifies); n > 0 {
			raw = s.identifies[n-1]
			return true
		}
		return false
	})
	if err != nil {
		return discordgo.Identify{}, err
	}
	return decodeIdentify(raw)
}

// decodeIdentify decodes an IDENTIFY payload. discordgo's own IDENTIFY does
// not unmarshal into discordgo.Identify (its empty presence activity has a
// string created_at where Activity expects a number), so the presence is
// decoded on a best-effort basis.
func decodeIdentify(raw []byte) (discordgo.Identify, error) {
	type identify discordgo.Identify
	var v struct {
		identify
		Presence json.RawMessage `json:"presence"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return discordgo.Identify{}, fmt.Errorf("discordtest: decode IDENTIFY: %w", err)
	}
	id := discordgo.Identify(v.identify)
	if len(v.Presence) > 0 {
		var p discordgo.GatewayStatusUpdate
		if json.Unmarshal(v.Presence, &p) == nil {
			id.Presence = p
		}
	}
	return id, nil
}

// WaitConnections waits until exactly n gateway connections are identified
// (or resumed) and not closing, and each of them has sent its first
// heartbeat; n == 0 waits for every session to be gone. It returns an
// error wrapping the context's error, or ErrClosed.
//
// discordgo sends the first heartbeat right after Open returns. A session
// closed before that can have its heartbeat goroutine fail and, with
// ShouldReconnectOnError, reconnect on its own (a discordgo race), so a
// test that builds its own session should wait here before Session.Close.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.wait(ctx, strconv.Itoa(n)+" gateway connection(s)", func() bool {
		count, beat := 0, true
		for c := range s.conns {
			if c.identified && !c.closing {
				count++
				beat = beat && c.heartbeat
			}
		}
		return count == n && beat
	})
}
