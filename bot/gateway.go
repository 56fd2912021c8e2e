package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/limits"
)

// handleTimeout bounds the work on one interaction: Discord drops a first
// response that arrives after 3 seconds.
const handleTimeout = limits.ResponseWindow - 500*time.Millisecond

// RegisterCommands overwrites the application's commands with Commands() in
// one bulk call: in the guild guildID, which Discord updates at once, or
// globally when guildID is empty. appID is the application's ID. It returns
// the REST error, if any.
func RegisterCommands(s *discordgo.Session, appID, guildID string) error {
	if _, err := s.ApplicationCommandBulkOverwrite(appID, guildID, Commands()); err != nil {
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
type Gateway struct {
	// Session is an unopened discordgo session authenticated with the bot
	// token.
	Session *discordgo.Session
	// Handler computes the responses.
	Handler *Handler
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
// Discord does not send) is dropped unanswered. It returns an error when
// the recommended count cannot be read, the shard is out of range, the
// connection cannot be opened, READY does not come within 30 seconds, or
// registration fails.
func (g *Gateway) Run(ctx context.Context) error {
	log := g.Log
	if log == nil {
		log = slog.Default()
	}
	s := g.Session
	s.Identify.Intents = discordgo.IntentsNone
	count := g.ShardCount
	if count == 0 {
		gb, err := s.GatewayBot(discordgo.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("ask Discord for the recommended shard count (GET /gateway/bot): %w", err)
		}
		count = max(gb.Shards, 1)
		if count > 1 && g.ShardID == 0 {
			log.Warn("Discord recommends several shards: this process serves shard 0 only; run one process per shard, with CONNECTN_SHARD_ID from 0 and CONNECTN_SHARD_COUNT set",
				"shards", count)
		}
	}
	if g.ShardID < 0 || g.ShardID >= count {
		return fmt.Errorf("gateway: shard %d is out of range for %d shards (0 to %d)", g.ShardID, count, count-1)
	}
	s.ShardID, s.ShardCount = g.ShardID, count
	ready := make(chan *discordgo.Ready, 1)
	removeReady := s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
		select {
		case ready <- r:
		default:
		}
	})
	defer removeReady()

	var (
		inflight sync.WaitGroup
		mu       sync.Mutex
		closed   bool
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

	if err := s.Open(); err != nil {
		return fmt.Errorf("open gateway: %w", err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			log.Warn("close gateway", "err", err)
		}
		mu.Lock()
		closed = true
		mu.Unlock()
		inflight.Wait()
	}()

	var r *discordgo.Ready
	select {
	case r = <-ready:
	case <-ctx.Done():
		return nil
	case <-time.After(30 * time.Second):
		return errors.New("gateway: no READY within 30s")
	}
	g.Handler.setBotUser(r.User.ID)
	appID := r.User.ID
	if r.Application != nil && r.Application.ID != "" {
		appID = r.Application.ID
	}
	if g.ShardID == 0 {
		if err := RegisterCommands(s, appID, g.GuildID); err != nil {
			return err
		}
	}
	log.Info("connected to the gateway", "bot", r.User.Username, "application", appID, "guilds", len(r.Guilds),
		"shard", g.ShardID, "shards", count, "registers_commands", g.ShardID == 0)
	<-ctx.Done()
	log.Info("shutting down the gateway connection")
	return nil
}

// respond handles one interaction and sends the response.
func (g *Gateway) respond(ctx context.Context, log *slog.Logger, s *discordgo.Session, i *discordgo.Interaction) {
	ctx, cancel := context.WithTimeout(ctx, handleTimeout)
	defer cancel()
	resp, err := g.Handler.Handle(ctx, i)
	if err != nil {
		log.Error("handle interaction", "interaction", i.ID, "err", err)
		return
	}
	if err := s.InteractionRespond(i, resp, discordgo.WithContext(ctx)); err != nil {
		log.Error("respond to interaction", "interaction", i.ID, "err", restErrorText(err))
		g.Handler.Undelivered(i)
		return
	}
	g.Handler.Delivered(i)
}
