package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Snowflake bases of the IDs the load generator makes up: every ID is a
// base plus a counter, so IDs stay unique, numeric and 19 digits long as
// Discord's are.
const (
	appID        = "1100000000000000001"
	guildID      = "1200000000000000001"
	userBase     = 1400000000000000000
	interBase    = 1500000000000000000
	commandID    = "1600000000000000001"
	originalBase = 1700000000000000000 // @original messages: base + interaction sequence
	followBase   = 1800000000000000000 // follow-ups: base + their own counter
	joinedAt     = "2024-05-01T12:00:00.000000+00:00"
	memberPerms  = "2248473465835073"
)

// client signs interactions as Discord does and POSTs them to the bot's
// Interactions Endpoint URL.
type client struct {
	endpoints []string // one per replica; requests take them in turn
	turn      atomic.Uint64
	byReplica []atomic.Int64 // requests sent to each endpoint
	key       ed25519.PrivateKey
	http      *http.Client
	seq       atomic.Int64 // interaction sequence: IDs and tokens
	now       func() time.Time

	// With track set, pending holds the requests sent and not answered
	// (no HTTP response read), by send order.
	track   bool
	mu      sync.Mutex
	sent    int64
	pending map[int64]bool
}

// unanswered returns the requests sent and not answered so far (with
// track set).
func (c *client) unanswered() map[int64]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[int64]bool, len(c.pending))
	for k := range c.pending {
		out[k] = true
	}
	return out
}

// newClient returns a client for endpoints (one per replica of the
// server; successive requests go to each in turn, so the two clicks of one
// match meet different replicas) that keeps up to conns connections open
// to each, as Discord keeps connections to a busy endpoint.
func newClient(endpoints []string, key ed25519.PrivateKey, conns int) *client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns + 16,
		MaxIdleConnsPerHost: conns + 16,
		IdleConnTimeout:     90 * time.Second,
	}
	return &client{endpoints: endpoints, byReplica: make([]atomic.Int64, len(endpoints)), key: key, now: time.Now,
		http: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// next returns a fresh interaction sequence number, the interaction's ID
// and its token. The token names the slot (the channel) it belongs to, so
// the fake REST API knows where a follow-up goes without a table.
func (c *client) next(slot int) (seq int64, id, token string) {
	seq = c.seq.Add(1)
	return seq, strconv.FormatInt(interBase+seq, 10), fmt.Sprintf("lgtoken%dx%d", slot, seq)
}

// exchange is the outcome of one request: the HTTP status, the decoded
// response (nil unless 200 with a JSON body), how long it took, and the
// transport error if any.
type exchange struct {
	status  int
	resp    *wireResponse
	took    time.Duration
	err     error
	errKind string // "" when the request got a 200 and a JSON response
}

// send signs body with the client's key, a timestamp now and POSTs it.
func (c *client) send(ctx context.Context, body []byte) exchange {
	ts := strconv.FormatInt(c.now().Unix(), 10)
	msg := make([]byte, 0, len(ts)+len(body))
	msg = append(append(msg, ts...), body...)
	sig := ed25519.Sign(c.key, msg)
	k := (c.turn.Add(1) - 1) % uint64(len(c.endpoints))
	c.byReplica[k].Add(1)
	endpoint := c.endpoints[k]
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return exchange{err: err, errKind: "request: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
	req.Header.Set("X-Signature-Timestamp", ts)
	var n int64
	if c.track {
		c.mu.Lock()
		c.sent++
		n = c.sent
		c.pending[n] = true
		c.mu.Unlock()
	}
	start := time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		return exchange{took: time.Since(start), err: err, errKind: transportKind(err)}
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	res.Body.Close()
	took := time.Since(start)
	if c.track && err == nil {
		c.mu.Lock()
		delete(c.pending, n)
		c.mu.Unlock()
	}
	if err != nil {
		// A response cut short is no answer: status 0, like a request
		// that got none.
		return exchange{took: took, err: err, errKind: transportKind(err)}
	}
	if res.StatusCode != http.StatusOK {
		return exchange{status: res.StatusCode, took: took, err: fmt.Errorf("HTTP %d: %.200s", res.StatusCode, raw),
			errKind: "HTTP " + strconv.Itoa(res.StatusCode)}
	}
	var resp wireResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return exchange{status: 200, took: took, err: err, errKind: "undecodable response"}
	}
	return exchange{status: 200, resp: &resp, took: took}
}

// transportKind names a transport failure in a few words, for the table of
// errors by kind.
func transportKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "transport: " + err.Error()
}

// user returns the user object of a made-up member.
func userObject(id int64) *wireUser {
	s := strconv.FormatInt(id, 10)
	return &wireUser{ID: s, Username: "lg" + s[len(s)-6:], Discriminator: "0", GlobalName: "Player " + s[len(s)-6:]}
}

func memberObject(u *wireUser) *wireMember {
	return &wireMember{User: u, Roles: []string{}, JoinedAt: joinedAt, Permissions: memberPerms}
}

// base returns an interaction of type typ from user in channel, with the
// fields every guild interaction carries.
func (c *client) base(slot int, typ int, channel string, from *wireUser) (*wireInteraction, int64) {
	seq, id, token := c.next(slot)
	return &wireInteraction{
		ID: id, ApplicationID: appID, Type: typ, Token: token, Version: 1,
		GuildID: guildID, ChannelID: channel,
		Channel: &wireChannel{ID: channel, Type: 0, GuildID: guildID, Name: "load-" + channel[len(channel)-4:]},
		Member:  memberObject(from),
		Locale:  "en-US", GuildLocale: "en-US", AppPermissions: "562949953421311",
		Entitlements: []any{}, Owners: map[string]string{"0": guildID},
	}, seq
}

// ping returns a PING interaction, as Discord sends to check the endpoint.
func (c *client) ping() []byte {
	_, id, token := c.next(0)
	b, _ := json.Marshal(&wireInteraction{ID: id, ApplicationID: appID, Type: typePing, Token: token, Version: 1,
		User:         &wireUser{ID: "643945264868098049", Username: "discord", Discriminator: "0000", PublicFlags: 1},
		Entitlements: []any{}})
	return b
}

// matchSettings are the options of /connectn challenge.
type matchSettings struct {
	Rows, Columns, Connect, Wins int
}

// challenge returns /connectn challenge typed by from against opponent with
// settings s, and its sequence (the ID of its @original message follows
// from it).
func (c *client) challenge(slot int, channel string, from, opponent *wireUser, s matchSettings) ([]byte, int64) {
	i, seq := c.base(slot, typeCommand, channel, from)
	opts := []wireOption{{Name: "opponent", Type: 6, Value: opponent.ID}}
	for _, o := range []struct {
		name string
		v    int
	}{{"rows", s.Rows}, {"columns", s.Columns}, {"connect", s.Connect}, {"wins", s.Wins}} {
		if o.v > 0 {
			opts = append(opts, wireOption{Name: o.name, Type: 4, Value: o.v})
		}
	}
	m := memberObject(nil)
	i.Data = &wireCommandData{ID: commandID, Name: "connectn", Type: 1, GuildID: guildID,
		Options:  []wireOption{{Name: "challenge", Type: 1, Options: opts}},
		Resolved: &wireResolved{Users: map[string]*wireUser{opponent.ID: opponent}, Members: map[string]*wireMember{opponent.ID: m}}}
	b, _ := json.Marshal(i)
	return b, seq
}

// command returns /connectn <sub> without options, typed by from.
func (c *client) command(slot int, channel string, from *wireUser, sub string) ([]byte, int64) {
	i, seq := c.base(slot, typeCommand, channel, from)
	i.Data = &wireCommandData{ID: commandID, Name: "connectn", Type: 1, GuildID: guildID,
		Options: []wireOption{{Name: sub, Type: 1}}}
	b, _ := json.Marshal(i)
	return b, seq
}

// click returns a click by from on the button customID of the message
// msgID, which shows data (sent back as Discord sends the message).
func (c *client) click(slot int, channel string, from *wireUser, msgID string, data *messageData, customID string) []byte {
	i, _ := c.base(slot, typeComponent, channel, from)
	i.Data = &wireComponentData{ComponentType: 2, CustomID: customID}
	m := &wireMessage{ID: msgID, ChannelID: channel, Type: 0,
		Author:    &wireUser{ID: appID, Username: "ConnectN", Discriminator: "0", Bot: true},
		Timestamp: "2026-01-01T00:00:00.000000+00:00", Attachments: []any{}, Mentions: []any{}}
	if data != nil {
		m.Content, m.Embeds, m.Components, m.Flags = data.Content, data.Embeds, data.Components, data.Flags
	}
	i.Message = m
	b, _ := json.Marshal(i)
	return b
}
