// Package transport delivers Discord's interactions to the bot and sends
// its responses back, in either of Discord's two ways: the gateway
// websocket (Gateway) and the HTTP interactions endpoint (HTTPServer). A
// transport knows the bot only as a Handler: it hands over each
// interaction, sends the response, and says whether it was delivered.
package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/connectn/connectn/bot/internal/limits"
	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/internal/clock"
)

// handleTimeout bounds the work on one interaction: Discord drops a first
// response that arrives after 3 seconds.
const handleTimeout = limits.ResponseWindow - 500*time.Millisecond

// Handler is what a transport needs of the bot (*bot.Handler): the
// response to an interaction, then word of whether Discord got it, which
// starts (or drops) the work that waited for it.
type Handler interface {
	Handle(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, error)
	Delivered(i *discordgo.Interaction)
	Undelivered(i *discordgo.Interaction)
}

// RegisterCommands overwrites the application's commands with cmds (the
// bot's Commands()) in one bulk call: in the guild guildID, which Discord
// updates at once, or globally when guildID is empty. appID is the
// application's ID. It returns the REST error, if any.
func RegisterCommands(s *discordgo.Session, appID, guildID string, cmds []*discordgo.ApplicationCommand) error {
	if _, err := s.ApplicationCommandBulkOverwrite(appID, guildID, cmds); err != nil {
		where := "globally"
		if guildID != "" {
			where = "in guild " + guildID
		}
		return fmt.Errorf("register commands %s: %w", where, err)
	}
	return nil
}

// Gateway runs the bot over Discord's gateway websocket: it receives
// INTERACTION_CREATE events and answers each with InteractionRespond.
//
// Gateway keeps the connection up itself rather than leaving it to
// discordgo (it turns the session's ShouldReconnectOnError off): discordgo
// v0.29.0 waits up to 10 minutes between its attempts, cannot be stopped
// while it retries (Session.Close does not end its loop, which may open
// the connection again after it), and gives up on the first failure when
// ShouldReconnectOnError is off. What discordgo still does on its own, and
// how it differs from Discord's documentation
// (https://discord.com/developers/docs/topics/gateway#resuming):
//
//   - Every lost connection (a close frame of any code, RECONNECT, a
//     heartbeat not acknowledged within 5 intervals) is followed by a
//     RESUME when a session was established, whatever the close code:
//     after 4007 or 4009, which Discord documents as needing a new
//     session, the RESUME is answered INVALID_SESSION and then discordgo
//     identifies. discordgo ignores resume_gateway_url and resumes on the
//     URL it first connected to.
//   - A connection it drops itself (no heartbeat ACK, or a read error) is
//     closed with code 1000, which ends the session on Discord: the RESUME
//     that follows is refused and a new session identified.
//   - INVALID_SESSION is answered with an IDENTIFY at once, on the same
//     connection, whether d is true (Discord allows a RESUME) or false, and
//     without the 1 to 5 seconds' wait Discord asks for.
//   - Close codes that Discord documents as final (4004 authentication
//     failed, 4010 to 4014) are not told apart; Run stops on them when it
//     meets them while opening the connection.
type Gateway struct {
	// Session is an unopened discordgo session authenticated with the bot
	// token.
	Session *discordgo.Session
	// Handler computes the responses.
	Handler Handler
	// Commands are the commands shard 0 registers once connected (the
	// bot's Commands()); nil registers nothing (an empty list would
	// remove every command).
	Commands []*discordgo.ApplicationCommand
	// OnReady, when set, is told the bot user's ID from READY (the bot's
	// SetBotUser).
	OnReady func(botUserID string)
	// GuildID, when set, registers the commands in that guild only.
	GuildID string
	// ShardID and ShardCount split the bot's servers between several
	// gateway connections (several processes), as Discord's sharding
	// does: this connection serves the servers whose ID s gives
	// (s >> 22) % ShardCount == ShardID, and direct messages when ShardID
	// is 0. ShardCount 0 asks Discord for the count it recommends (GET
	// /gateway/bot); ShardID must be below the count. Only shard 0
	// registers the commands, so that they are registered once.
	ShardID, ShardCount int
	// Log receives connection events and failures; slog.Default() when nil.
	Log *slog.Logger
	// API is the base URL the session's REST requests really go to, when
	// its HTTP client sends them somewhere else than discordgo's
	// EndpointAPI (a proxy, a fake): log lines and errors name it instead
	// of discord.com. Empty means discordgo.EndpointAPI.
	API string
	// RetryWait and MaxRetryWait bound the wait between two attempts to
	// connect: RetryWait after the first failure, doubled after each
	// further one up to MaxRetryWait. Zero means 1 second and 30 seconds.
	RetryWait, MaxRetryWait time.Duration
	// Clock times the waits between attempts; nil is the system clock.
	Clock clock.Clock
	// OnState, when set, is called with true once the gateway session is
	// ready (READY or RESUMED received) and with false when the connection
	// is lost, in that order and from one goroutine at a time.
	OnState func(connected bool)

	stateMu   sync.Mutex
	connected bool
}

// Connected reports whether the gateway session is ready: READY or
// RESUMED came on the current connection and it has not been lost since.
func (g *Gateway) Connected() bool {
	g.stateMu.Lock()
	defer g.stateMu.Unlock()
	return g.connected
}

// setState records whether the session is ready and tells OnState of a
// change.
func (g *Gateway) setState(connected bool) {
	g.stateMu.Lock()
	defer g.stateMu.Unlock()
	if g.connected == connected {
		return
	}
	g.connected = connected
	if g.OnState != nil {
		g.OnState(connected)
	}
}

// ShardOf returns the shard, from 0 to count-1, that serves guildID by
// Discord's rule (guild_id >> 22) % count: 0 for a direct message (no
// guild), for a count below 2, and for an ID that is not a snowflake.
func ShardOf(guildID string, count int) int {
	if count < 2 || guildID == "" {
		return 0
	}
	g, err := strconv.ParseUint(guildID, 10, 64)
	if err != nil {
		return 0
	}
	return int((g >> 22) % uint64(count))
}

// Run opens the gateway connection as shard [ShardID, ShardCount] (no
// privileged intent is asked for; with ShardCount 0, the count is asked of
// Discord first), waits for READY, registers the commands with one bulk
// overwrite when it is shard 0, and serves the interactions of its shard
// until ctx is done; then it closes the connection and waits for the
// interactions in flight. An interaction of another shard's server (which
// Discord does not send) is dropped unanswered.
//
// While Discord cannot be reached, at the start or after the connection is
// lost, Run tries again and again, waiting RetryWait doubled after each
// failure up to MaxRetryWait, with one log line per failed attempt; a
// connection lost after it was up is opened again at once (a RESUME of the
// session, as discordgo does it). ctx ends the attempts and the waits at
// once (an attempt in flight is abandoned and its connection closed when
// it ends), and Run then returns nil. It returns an error when Discord
// refuses the token (HTTP 401, or gateway close code 4004) or the
// connection for good (close codes 4010 to 4014), when the shard is out of
// range, or when registration fails.
func (g *Gateway) Run(ctx context.Context) error {
	log := g.Log
	if log == nil {
		log = slog.Default()
	}
	s := g.Session
	s.Identify.Intents = discordgo.IntentsNone
	s.ShouldReconnectOnError = false // Run reconnects: see Gateway
	g.setState(false)
	ready := make(chan *discordgo.Ready, 1)
	down := make(chan struct{}, 1)
	removeReady := s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
		g.setState(true)
		select {
		case ready <- r:
		default:
		}
	})
	defer removeReady()
	removeResumed := s.AddHandler(func(*discordgo.Session, *discordgo.Resumed) { g.setState(true) })
	defer removeResumed()
	removeDisconnect := s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		g.setState(false)
		select {
		case down <- struct{}{}:
		default:
		}
	})
	defer removeDisconnect()

	var (
		inflight sync.WaitGroup
		mu       sync.Mutex
		closed   bool
		count    = g.ShardCount
	)
	serveCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServing()
	removeInteraction := s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		mu.Lock()
		if closed {
			mu.Unlock()
			return
		}
		inflight.Add(1)
		mu.Unlock()
		defer inflight.Done()
		if shard := ShardOf(ic.GuildID, count); shard != g.ShardID {
			log.Warn("dropped an interaction of another shard's server", "interaction", ic.ID, "guild", ic.GuildID,
				"its_shard", shard, "shard", g.ShardID)
			return
		}
		g.respond(serveCtx, log, s, ic.Interaction)
	})
	defer removeInteraction()

	// abandoned is true when ctx ended during an Open: the goroutine that
	// waits for that Open closes the session, and Run must not wait for it.
	abandoned := false
	defer func() {
		if !abandoned {
			if err := s.Close(); err != nil {
				log.Warn("close gateway", "err", err)
			}
		}
		g.setState(false)
		mu.Lock()
		closed = true
		mu.Unlock()
		inflight.Wait()
	}()

	var r *discordgo.Ready
	for attempt, wait := 1, time.Duration(0); r == nil; attempt++ {
		if !clock.Sleep(ctx, clock.OrReal(g.Clock), wait) {
			return nil
		}
		wait = g.nextWait(wait)
		var what string
		var err error
		if count == 0 {
			what = "ask Discord for the recommended shard count"
			var gb *discordgo.GatewayBotResponse
			if gb, err = s.GatewayBot(discordgo.WithContext(ctx)); err == nil {
				count = max(gb.Shards, 1)
				if count > 1 && g.ShardID == 0 {
					log.Warn("Discord recommends several shards: this process serves shard 0 only; run one process per shard, with CONNECTN_SHARD_ID from 0 and CONNECTN_SHARD_COUNT set",
						"shards", count)
				}
			}
		} else {
			what = "ask Discord for the gateway's address"
			_, err = s.Gateway(discordgo.WithContext(ctx))
		}
		if err == nil {
			if g.ShardID < 0 || g.ShardID >= count {
				return fmt.Errorf("gateway: shard %d is out of range for %d shards (0 to %d)", g.ShardID, count, count-1)
			}
			s.ShardID, s.ShardCount = g.ShardID, count
			what = "open the gateway connection"
			if err, abandoned = g.open(ctx); abandoned {
				return nil
			}
		}
		if err == nil {
			err = g.awaitReady(ctx, ready, &r)
			if err == nil && r == nil {
				return nil // ctx ended
			}
			if err != nil {
				if cerr := s.Close(); cerr != nil {
					log.Warn("close gateway", "err", cerr)
				}
			}
			if r != nil {
				continue
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if fatal := g.fatal(err); fatal != nil {
			return fatal
		}
		log.Warn("cannot reach Discord; will try again", "attempt", attempt, "doing", what, "url", g.urlOf(err),
			"retry_in", wait, "err", g.errorText(err))
	}
	if g.OnReady != nil {
		g.OnReady(r.User.ID)
	}
	appID := r.User.ID
	if r.Application != nil && r.Application.ID != "" {
		appID = r.Application.ID
	}
	if g.ShardID == 0 && g.Commands != nil {
		if err := RegisterCommands(s, appID, g.GuildID, g.Commands); err != nil {
			return err
		}
	}
	log.Info("connected to the gateway", "bot", r.User.Username, "application", appID, "guilds", len(r.Guilds),
		"shard", g.ShardID, "shards", count, "registers_commands", g.ShardID == 0 && g.Commands != nil)

	for {
		select {
		case <-ctx.Done():
			log.Info("shutting down the gateway connection")
			return nil
		case <-down:
		}
		log.Warn("lost the gateway connection; opening it again")
		for attempt, wait := 1, time.Duration(0); ; attempt++ {
			if !clock.Sleep(ctx, clock.OrReal(g.Clock), wait) {
				return nil
			}
			wait = g.nextWait(wait)
			var err error
			if err, abandoned = g.open(ctx); abandoned {
				return nil
			}
			if errors.Is(err, discordgo.ErrWSAlreadyOpen) {
				// A late second Disconnect of one loss (discordgo's
				// heartbeat and read loops may both close the connection,
				// each emitting one): the connection that Run opened since
				// is up, as its Open returned nil.
				g.setState(true)
				break
			}
			if err == nil {
				log.Info("gateway connection open again", "attempts", attempt)
				break
			}
			if fatal := g.fatal(err); fatal != nil {
				return fatal
			}
			log.Warn("cannot reach Discord's gateway; will try again", "attempt", attempt, "retry_in", wait, "err", g.errorText(err))
		}
	}
}

// nextWait returns the wait after a failure that followed a wait of last.
func (g *Gateway) nextWait(last time.Duration) time.Duration {
	first, most := g.RetryWait, g.MaxRetryWait
	if first <= 0 {
		first = time.Second
	}
	if most <= 0 {
		most = 30 * time.Second
	}
	if last <= 0 {
		return min(first, most)
	}
	return min(2*last, most)
}

// open opens the session's connection, giving up waiting when ctx ends:
// then abandoned is true, and the session is closed once Open returns.
func (g *Gateway) open(ctx context.Context) (err error, abandoned bool) {
	done := make(chan error, 1)
	go func() { done <- g.Session.Open() }()
	select {
	case err := <-done:
		return err, false
	case <-ctx.Done():
		go func() {
			if <-done == nil {
				g.Session.Close()
			}
		}()
		return ctx.Err(), true
	}
}

// fatal returns the error Run stops with when err means that trying again
// cannot help: Discord refused the token or the connection for good. It
// returns nil for other errors.
func (g *Gateway) fatal(err error) error {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("the bot token was refused by Discord (HTTP 401 from %s): check DISCORD_TOKEN", g.urlOf(err))
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		switch ce.Code {
		case 4004:
			return fmt.Errorf("the Discord gateway refused the bot token (close code 4004 %s): check DISCORD_TOKEN", ce.Text)
		case 4010, 4011, 4012, 4013, 4014:
			return fmt.Errorf("the Discord gateway refused the connection for good (close code %d %s)", ce.Code, ce.Text)
		}
	}
	return nil
}

// realURL returns u with discordgo's EndpointAPI replaced by g.API, the
// base its requests really go to.
func (g *Gateway) realURL(u string) string {
	if g.API == "" {
		return u
	}
	if rest, ok := strings.CutPrefix(u, discordgo.EndpointAPI); ok {
		return strings.TrimSuffix(g.API, "/") + "/" + rest
	}
	return u
}

// urlOf returns the URL of the REST request that err is the failure of,
// as really called, or "" when err is not one.
func (g *Gateway) urlOf(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return g.realURL(ue.URL)
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Request != nil {
		return g.realURL(re.Request.URL.String())
	}
	return ""
}

// errorText describes err for a log line, naming the URL really called.
func (g *Gateway) errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Sprintf("%s %s: %v", ue.Op, g.realURL(ue.URL), ue.Err)
	}
	return outbox.RESTErrorText(err)
}

// respond handles one interaction and sends the response.
func (g *Gateway) respond(ctx context.Context, log *slog.Logger, s *discordgo.Session, i *discordgo.Interaction) {
	ctx, cancel := clock.WithTimeout(ctx, clock.OrReal(g.Clock), handleTimeout)
	defer cancel()
	resp, err := g.Handler.Handle(ctx, i)
	if err != nil {
		log.Error("handle interaction", "interaction", i.ID, "err", err)
		return
	}
	if err := respondInteraction(ctx, s, i, resp); err != nil {
		log.Error("respond to interaction", "interaction", i.ID, "err", outbox.RESTErrorText(err))
		g.Handler.Undelivered(i)
		return
	}
	g.Handler.Delivered(i)
}

// respondInteraction sends resp as the callback of i (Create Interaction
// Response), as discordgo's InteractionRespond does, in the rate-limit
// bucket outbox.WebhookBucket gives i's token instead of one bucket per
// interaction that discordgo would keep for as long as the bot runs.
// Interaction callbacks are not subject to the global rate limit
// (https://discord.com/developers/docs/topics/rate-limits#global-rate-limit),
// so they do not wait at the global gate.
func respondInteraction(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	endpoint := discordgo.EndpointInteractionResponse(i.ID, i.Token)
	bucket := outbox.WebhookBucket(i.Token)
	if resp.Data != nil && len(resp.Data.Files) > 0 {
		contentType, body, err := discordgo.MultipartBodyWithJSON(resp, resp.Data.Files)
		if err != nil {
			return err
		}
		_, err = s.RequestRaw(http.MethodPost, endpoint, contentType, body, bucket, 0, discordgo.WithContext(ctx))
		return err
	}
	_, err := s.RequestWithBucketID(http.MethodPost, endpoint, *resp, bucket, discordgo.WithContext(ctx))
	return err
}

// awaitReady waits for READY on ready after the connection opened, at
// most 30 s on the gateway's clock: *r is set when it came; nil with *r
// unset means ctx ended first.
func (g *Gateway) awaitReady(ctx context.Context, ready <-chan *discordgo.Ready, r **discordgo.Ready) error {
	t := clock.OrReal(g.Clock).NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case *r = <-ready:
		return nil
	case <-ctx.Done():
		return nil
	case <-t.Chan():
		return errors.New("no READY within 30s")
	}
}
