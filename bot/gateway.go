package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// handleTimeout bounds the work on one interaction: Discord drops a first
// response that arrives after 3 seconds.
const handleTimeout = 2500 * time.Millisecond

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
	// Log receives connection events and failures; slog.Default() when nil.
	Log *slog.Logger
}

// Run opens the gateway connection (no privileged intent is asked for),
// waits for READY, registers the commands with one bulk overwrite, and
// serves interactions until ctx is done; then it closes the connection and
// waits for the interactions in flight. It returns an error when the
// connection cannot be opened, READY does not come within 30 seconds, or
// registration fails.
func (g *Gateway) Run(ctx context.Context) error {
	log := g.Log
	if log == nil {
		log = slog.Default()
	}
	s := g.Session
	s.Identify.Intents = discordgo.IntentsNone
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
	if err := RegisterCommands(s, appID, g.GuildID); err != nil {
		return err
	}
	log.Info("connected to the gateway", "bot", r.User.Username, "application", appID, "guilds", len(r.Guilds))
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
