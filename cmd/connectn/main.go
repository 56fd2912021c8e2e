// Command connectn runs the ConnectN Discord bot, and Connect N in a
// terminal.
//
// Usage:
//
//	connectn [run]    the bot over Discord's gateway (needs DISCORD_TOKEN)
//	connectn serve    the bot as an HTTP interactions endpoint (needs DISCORD_PUBLIC_KEY)
//	connectn register register the slash commands and exit (needs DISCORD_TOKEN)
//	connectn play     play Connect N in this terminal, no Discord needed
//	connectn solve    solve positions exactly (Pascal Pons' test-set format)
//	connectn arena    play two AI levels against each other
//
// Settings come from the environment, from a .env file in the working
// folder when there is one, and from flags (see .env.example and
// `connectn help`).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/joho/godotenv"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/console"
	"github.com/connectn/connectn/sessions"
)

const usage = `connectn runs the ConnectN Discord bot: Connect N matches between members of a server.

Usage:
  connectn [run] [flags]     the bot over Discord's gateway (needs DISCORD_TOKEN)
  connectn serve [flags]     the bot as an HTTP interactions endpoint, POST /interactions
                             and GET /healthz (needs DISCORD_PUBLIC_KEY; with
                             DISCORD_TOKEN it also registers the commands)
  connectn register [flags]  register the /connectn command and exit (needs DISCORD_TOKEN)
  connectn play [flags]      play Connect N in this terminal (connectn play -h for its flags)
  connectn solve [flags]     solve positions read from stdin exactly (connectn solve -h)
  connectn arena [flags]     play two AI levels against each other (connectn arena -h)
  connectn help              this text

Flags of run, serve and register:
  -addr ADDR        listen address of serve (CONNECTN_ADDR, default :8080)
  -db PATH          SQLite database (CONNECTN_DB, default data/connectn.db)
  -guild ID         register the commands in one server only (DISCORD_GUILD_ID)
  -log-level LEVEL  debug, info, warn or error (CONNECTN_LOG_LEVEL, default info)

Settings are read from the environment, then from ./.env if present (the
environment wins), and flags override both. See .env.example.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], deps{
		getenv: os.Getenv,
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		loadEnv: func() error {
			err := godotenv.Load()
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		},
		newSession: func(token string) (*discordgo.Session, error) { return discordgo.New("Bot " + token) },
		listen:     func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) },
	})
	stop()
	os.Exit(code)
}

// deps is what run takes from the outside world, so tests can replace it.
type deps struct {
	getenv     func(string) string
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	loadEnv    func() error // loads .env into the environment; nil skips it
	newSession func(token string) (*discordgo.Session, error)
	listen     func(addr string) (net.Listener, error)
}

// run executes the subcommand in args and returns the exit status: 0 on a
// clean end, 1 when the bot fails, 2 for bad usage or configuration.
func run(ctx context.Context, args []string, d deps) int {
	cmd := "run"
	if len(args) > 0 && (len(args[0]) == 0 || args[0][0] != '-') {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(d.stdout, usage)
		return 0
	case "play":
		color := false
		if f, ok := d.stdout.(*os.File); ok {
			color = console.ColorEnabled(f, d.getenv)
		}
		return console.Main(args, d.stdin, d.stdout, d.stderr, color)
	case "solve":
		return solveMain(ctx, args, d.stdin, d.stdout, d.stderr)
	case "arena":
		return arenaMain(ctx, args, d.stdout, d.stderr)
	case "run", "serve", "register":
	default:
		fmt.Fprintf(d.stderr, "connectn: unknown command %q\n\n%s", cmd, usage)
		return 2
	}

	if d.loadEnv != nil {
		if err := d.loadEnv(); err != nil {
			fmt.Fprintf(d.stderr, "connectn: reading .env: %v\n", err)
			return 2
		}
	}
	n := map[string]need{"run": {token: true}, "serve": {publicKey: true}, "register": {token: true}}[cmd]
	c, err := loadConfig(cmd, args, d.getenv, d.stderr, n)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		var ce *configError
		if errors.As(err, &ce) {
			fmt.Fprintf(d.stderr, "connectn: %v\n", err)
		}
		return 2
	}
	log := slog.New(slog.NewTextHandler(d.stderr, &slog.HandlerOptions{Level: c.logLevel}))

	switch cmd {
	case "register":
		err = register(c, d, log)
	case "run":
		err = runGateway(ctx, c, d, log)
	case "serve":
		err = serve(ctx, c, d, log)
	}
	if err != nil {
		log.Error("connectn "+cmd+" failed", "err", err)
		return 1
	}
	return 0
}

// openStore opens the database, creating its folder.
func openStore(ctx context.Context, c config, log *slog.Logger) (*sessions.Store, error) {
	store, err := sessions.Open(ctx, c.db)
	if err != nil {
		return nil, err
	}
	log.Info("database open", "path", c.db)
	return store, nil
}

// session returns a discordgo session for the configured token.
func session(c config, d deps) (*discordgo.Session, error) {
	s, err := d.newSession(c.token)
	if err != nil {
		return nil, fmt.Errorf("discord session: %w", err)
	}
	return s, nil
}

// applicationID returns DISCORD_APP_ID, or asks Discord for the application
// the token belongs to.
func applicationID(c config, s *discordgo.Session) (string, error) {
	if c.appID != "" {
		return c.appID, nil
	}
	app, err := s.Application("@me")
	if err != nil {
		return "", fmt.Errorf("look up the application of DISCORD_TOKEN: %w", err)
	}
	return app.ID, nil
}

func register(c config, d deps, log *slog.Logger) error {
	s, err := session(c, d)
	if err != nil {
		return err
	}
	appID, err := applicationID(c, s)
	if err != nil {
		return err
	}
	if err := bot.RegisterCommands(s, appID, c.guildID); err != nil {
		return err
	}
	log.Info("commands registered", "application", appID, "guild", c.guildID)
	return nil
}

func runGateway(ctx context.Context, c config, d deps, log *slog.Logger) error {
	store, err := openStore(ctx, c, log)
	if err != nil {
		return err
	}
	defer store.Close()
	s, err := session(c, d)
	if err != nil {
		return err
	}
	g := &bot.Gateway{Session: s, Handler: bot.NewHandler(store, log), GuildID: c.guildID, Log: log}
	return g.Run(ctx)
}

func serve(ctx context.Context, c config, d deps, log *slog.Logger) error {
	store, err := openStore(ctx, c, log)
	if err != nil {
		return err
	}
	defer store.Close()
	if c.token != "" {
		// Registration is a convenience here: the endpoint works without it,
		// so a failure is reported and serving goes on.
		if err := register(c, d, log); err != nil {
			log.Warn("could not register the commands; serving anyway", "err", err)
		}
	}
	ln, err := d.listen(c.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.addr, err)
	}
	srv := &http.Server{
		Handler: &bot.HTTPServer{
			Handler:   bot.NewHandler(store, log),
			PublicKey: c.publicKey,
			Ready:     store.Ping,
			Log:       log,
		},
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("serving interactions", "addr", ln.Addr().String(), "endpoint", "POST /interactions", "health", "GET /healthz")
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
