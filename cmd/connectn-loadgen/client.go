package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// Snowflake bases of the IDs the load generator makes up: every ID is a
// base plus a counter, so IDs stay unique, numeric and 19 digits long as
// Discord's are.
const (
	appID = "1100000000000000001"
	// botToken is the spawned server's DISCORD_TOKEN, which the fake
	// REST API accepts: well-formed (its first part is appID in base64),
	// and no secret.
	botToken  = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhJkLm.bG9hZGdlbi1sb2FkZ2VuLWxvYWRnZW4tbG9hZGdlbg"
	guildID   = "1200000000000000001"
	userBase  = 1400000000000000000
	interBase = 1500000000000000000
	// originalBase numbers the @original messages: base + interaction
	// sequence. It is below the IDs the fake gives the bot's follow-ups
	// (snowflakes of the current time, about 1.57e18 in 2026), so that a
	// channel's latest messages, which Discord lists by ID, show the
	// boards posted last first: with a base above them, the made-up
	// @original messages crowded the boards out of the latest 25, and the
	// bot's look for a board whose answer was lost missed it and posted it
	// again.
	originalBase = 1000000000000000000
	followBase   = 1800000000000000000 // follow-ups: base + their own counter
)

// client signs interactions as Discord does and POSTs them to the bot's
// Interactions Endpoint URL.
type client struct {
	endpoints []string // one per replica; requests take them in turn
	turn      atomic.Uint64
	route     string // -route: see endpoint
	rngMu     sync.Mutex
	rng       *rand.Rand     // -route random's choices
	byReplica []atomic.Int64 // requests sent to each endpoint
	key       ed25519.PrivateKey
	http      *http.Client
	seq       atomic.Int64 // interaction sequence: IDs and tokens
	now       func() time.Time

	// work is how long the load generator keeps a processor busy before
	// each request (-client-work), as a heavier generator on the same
	// cores would.
	work time.Duration

	// via, when set, sends every interaction instead of the HTTP POST: the
	// gateway mode's dispatch over the fake gateway (see gatewayDiscord).
	via func(ctx context.Context, body []byte) exchange

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
func newClient(endpoints []string, key ed25519.PrivateKey, conns int, route string, seed uint64) *client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns + 16,
		MaxIdleConnsPerHost: conns + 16,
		IdleConnTimeout:     90 * time.Second,
	}
	return &client{endpoints: endpoints, byReplica: make([]atomic.Int64, len(endpoints)), key: key, now: time.Now,
		http: &http.Client{Transport: tr, Timeout: 10 * time.Second}, route: route, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// next returns a fresh interaction sequence number and the envelope of an
// interaction by from in channel: its ID and its token, which names the
// channel (see token).
func (c *client) next(channel string, from discordtest.User) (int64, discordtest.Envelope) {
	seq := c.seq.Add(1)
	return seq, discordtest.Envelope{ID: strconv.FormatInt(interBase+seq, 10), Token: token(channel, seq), AppID: appID,
		GuildID: guildID, ChannelID: channel, ChannelName: "load-" + channel[len(channel)-4:], From: from}
}

// exchange is the outcome of one request: the HTTP status, the decoded
// response (nil unless 200 with a JSON body), how long it took, and the
// transport error if any.
type exchange struct {
	status  int
	resp    *discordgo.InteractionResponse
	took    time.Duration
	err     error
	errKind string // "" when the request got a 200 and a JSON response
}

// send signs body with the client's key, a timestamp now and POSTs it, as
// Discord does, to the next replica in turn (or hands it to via).
func (c *client) send(ctx context.Context, body []byte) exchange { return c.sendVia(ctx, nil, body) }

// sendVia is send with the turn of a match's own (see endpoint).
func (c *client) sendVia(ctx context.Context, own *uint64, body []byte) exchange {
	if c.via != nil {
		return c.via(ctx, body)
	}
	if c.work > 0 {
		busy(c.work)
	}
	k := c.endpoint(own)
	c.byReplica[k].Add(1)
	req, err := discordtest.SignedRequest(ctx, c.endpoints[k], c.key, c.now(), body)
	if err != nil {
		return exchange{err: err, errKind: "request: " + err.Error()}
	}
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
	resp, err := discordtest.DecodeResponse(raw)
	if err != nil {
		return exchange{status: 200, took: took, err: err, errKind: "undecodable response"}
	}
	return exchange{status: 200, resp: resp, took: took}
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

// player returns the made-up member id.
func player(id int64) discordtest.User {
	s := strconv.FormatInt(id, 10)
	return discordtest.User{ID: s, Username: "lg" + s[len(s)-6:], GlobalName: "Player " + s[len(s)-6:]}
}

// ping returns a PING interaction, as Discord sends to check the endpoint.
func (c *client) ping() []byte {
	seq := c.seq.Add(1)
	return discordtest.Ping(strconv.FormatInt(interBase+seq, 10), token("0", seq), appID)
}

// matchSettings are the options of /connectn challenge.
type matchSettings struct {
	Rows, Columns, Connect, Wins int
}

// challenge returns /connectn challenge typed by from against opponent with
// settings s in channel, and its sequence (the ID of its @original message
// follows from it).
func (c *client) challenge(channel string, from, opponent discordtest.User, s matchSettings) ([]byte, int64) {
	seq, e := c.next(channel, from)
	args := []discordtest.Arg{discordtest.UserArg("opponent", opponent)}
	for _, o := range []struct {
		name string
		v    int
	}{{"rows", s.Rows}, {"columns", s.Columns}, {"connect", s.Connect}, {"wins", s.Wins}} {
		if o.v > 0 {
			args = append(args, discordtest.IntArg(o.name, o.v))
		}
	}
	return discordtest.Slash(e, "connectn", "challenge", args...), seq
}

// command returns /connectn <sub> without options, typed by from.
func (c *client) command(channel string, from discordtest.User, sub string) ([]byte, int64) {
	seq, e := c.next(channel, from)
	return discordtest.Slash(e, "connectn", sub), seq
}

// click returns a click by from on the button customID of board (sent as
// Discord sends the message).
func (c *client) click(channel string, from discordtest.User, board *discordgo.Message, customID string) []byte {
	body, _ := c.clickSeq(channel, from, board, customID)
	return body
}

// clickSeq is click, with the interaction's sequence (the ID of the message
// its response makes, when it makes one, follows from it).
func (c *client) clickSeq(channel string, from discordtest.User, board *discordgo.Message, customID string) ([]byte, int64) {
	seq, e := c.next(channel, from)
	return discordtest.Click(e, board, customID), seq
}

// busySink keeps busy's work from being optimised away.
var busySink atomic.Uint64

// busy keeps the processor busy for d (wall time: on a loaded machine,
// less of its own CPU).
func busy(d time.Duration) {
	x := uint64(1)
	for start := time.Now(); time.Since(start) < d; {
		for range 256 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	busySink.Add(x)
}
