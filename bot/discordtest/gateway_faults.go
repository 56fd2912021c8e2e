package discordtest

import (
	"context"
	"strconv"
	"time"
)

// Gateway faults: what Discord's gateway does to a connected bot now and
// then (https://discord.com/developers/docs/topics/gateway#resuming and
// the close codes of opcodes-and-status-codes), injected on demand.

// opReconnect is Discord's RECONNECT opcode.
const opReconnect = 7

// WithHeartbeatInterval sets the heartbeat_interval that HELLO announces
// (rounded down to milliseconds, at least 1 ms) instead of Discord's usual
// 41.25 s: with a short one, a client notices unacknowledged heartbeats
// (StopHeartbeatACKs) quickly. discordgo gives up on a connection after 5
// intervals without an ACK.
func WithHeartbeatInterval(d time.Duration) Option {
	return func(c *config) { c.heartbeat = d }
}

// closeTexts are Discord's reasons for the close codes CloseGateway sends.
var closeTexts = map[int]string{
	1000: "",
	1001: "",
	4000: "Unknown error.",
	4007: "Invalid seq.",
	4008: "Rate limited.",
	4009: "Session timed out.",
}

// CloseGateway closes every identified gateway connection with code, as
// Discord does: 1000 and 1001 (a server going away), 4000 (an unknown
// error) and 4008 leave the session resumable; 4007 and 4009 (session
// timed out) end it, so that a RESUME of it is answered INVALID_SESSION
// (d false) and the client must identify again. It returns
// ErrNotConnected when no connection is identified.
func (s *Server) CloseGateway(code int) error {
	conns := s.identifiedConns()
	if len(conns) == 0 {
		return ErrNotConnected
	}
	text, ok := closeTexts[code]
	if !ok {
		text = "discordtest close " + strconv.Itoa(code)
	}
	for _, c := range conns {
		if code == 4007 || code == 4009 {
			s.mu.Lock()
			delete(s.sessions, c.sessionID)
			s.mu.Unlock()
		}
		s.closeConn(c, code, text)
	}
	return nil
}

// SendReconnect sends RECONNECT (op 7) on every identified gateway
// connection: the client is to close it and resume on a new one. It
// returns ErrNotConnected when no connection is identified.
func (s *Server) SendReconnect() error {
	conns := s.identifiedConns()
	if len(conns) == 0 {
		return ErrNotConnected
	}
	for _, c := range conns {
		_ = c.write(opReconnect, "", nil)
	}
	return nil
}

// SendInvalidSession sends INVALID_SESSION (op 9) with d resumable on
// every identified gateway connection. The connection is no longer
// identified: nothing is dispatched on it until the client sends IDENTIFY
// (which gets READY and a new session) or, when resumable, RESUME (which
// gets RESUMED). With resumable false the session is ended. It returns
// ErrNotConnected when no connection is identified.
func (s *Server) SendInvalidSession(resumable bool) error {
	conns := s.identifiedConns()
	if len(conns) == 0 {
		return ErrNotConnected
	}
	for _, c := range conns {
		c.wmu.Lock()
		s.mu.Lock()
		c.identified = false
		if !resumable {
			delete(s.sessions, c.sessionID)
		}
		s.notifyLocked()
		s.mu.Unlock()
		_ = c.writeLocked(opInvalidSession, "", resumable)
		c.wmu.Unlock()
	}
	return nil
}

// StopHeartbeatACKs makes the gateway connections open now stop
// acknowledging heartbeats (new connections acknowledge them), as a
// connection that died silently would. It returns how many connections
// it affects.
func (s *Server) StopHeartbeatACKs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if !c.closing {
			c.noACK = true
			n++
		}
	}
	return n
}

// Identifies returns how many IDENTIFY payloads the gateway has received,
// including refused ones.
func (s *Server) Identifies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.identifies)
}

// Resumes returns how many RESUME payloads the gateway has received,
// including refused ones.
func (s *Server) Resumes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resumes
}

// WaitGatewayCounts waits until the gateway has received at least
// identifies IDENTIFY and resumes RESUME payloads. It returns an error
// wrapping the context's error, or ErrClosed, if they do not come.
func (s *Server) WaitGatewayCounts(ctx context.Context, identifies, resumes int) error {
	what := strconv.Itoa(identifies) + " IDENTIFY and " + strconv.Itoa(resumes) + " RESUME"
	return s.wait(ctx, what, func() bool { return len(s.identifies) >= identifies && s.resumes >= resumes })
}

// identifiedConns returns the identified connections that are not
// closing.
func (s *Server) identifiedConns() []*gatewayConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	var conns []*gatewayConn
	for c := range s.conns {
		if c.identified && !c.closing {
			conns = append(conns, c)
		}
	}
	return conns
}
