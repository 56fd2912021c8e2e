package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/metrics"
)

// defaultAPI is DefaultDiscordAPI parsed: the scheme, host and path prefix
// of every REST URL discordgo builds (its package variable EndpointAPI).
var defaultAPI = mustParseURL(DefaultDiscordAPI)

func mustParseURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// apiTransport sends the requests that discordgo addresses to Discord's
// REST API (DefaultDiscordAPI + "/...") to base + "/..." instead, keeping
// the rest of the path and the query, through next. Other requests (the
// CDN, say) pass unchanged. discordgo builds its URLs from package
// variables at start-up, so rewriting on the way out is the one way to
// point a session at a REST proxy or a fake.
type apiTransport struct {
	base *url.URL
	next http.RoundTripper
}

// newAPITransport returns the RoundTripper that sends discordgo's REST
// calls to base (an absolute http(s) URL without a trailing slash, as
// CONNECTN_DISCORD_API is checked) through next (http.DefaultTransport when
// nil). With base empty or DefaultDiscordAPI it is next itself.
func newAPITransport(base string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	if base == "" || base == DefaultDiscordAPI {
		return next
	}
	return &apiTransport{base: mustParseURL(base), next: next}
}

// RoundTrip implements http.RoundTripper. It does not modify req.
func (t *apiTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	u := req.URL
	prefix := defaultAPI.EscapedPath()
	rest, ok := strings.CutPrefix(u.EscapedPath(), prefix)
	if !ok || u.Scheme != defaultAPI.Scheme || u.Host != defaultAPI.Host || (rest != "" && rest[0] != '/') {
		return t.next.RoundTrip(req)
	}
	escaped := strings.TrimSuffix(t.base.EscapedPath(), "/") + rest
	path, err := url.PathUnescape(escaped)
	if err != nil { // EscapedPath returned it: cannot happen
		return nil, fmt.Errorf("rewrite %s: %w", prefix+rest, err)
	}
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host = t.base.Scheme, t.base.Host
	r.URL.Path, r.URL.RawPath = path, escaped
	r.Host = ""
	return t.next.RoundTrip(r)
}

// restIdleConns is how many idle connections to Discord's REST API the
// bot keeps open for its next calls.
const restIdleConns = 64

// restTransport returns the transport of the bot's REST calls:
// http.DefaultTransport's settings, but keeping restIdleConns idle
// connections to a host instead of 2 (http.DefaultMaxIdleConnsPerHost).
// Every REST call goes to one host (discord.com, or CONNECTN_DISCORD_API),
// and they come in bursts (round ends, deadlines, a busy channel): with 2,
// each call of a burst beyond the second opened a connection (a TLS
// handshake with Discord) and closed it after one request (the load
// generator counted 209 connections opened in 5 seconds at 50 matches).
func restTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(t.MaxIdleConns, restIdleConns)
	t.MaxIdleConnsPerHost = restIdleConns
	return t
}

// discordSession returns a discordgo session for the configured token
// whose REST calls go to CONNECTN_DISCORD_API, are counted in a.metrics
// (when set) and whose own log lines go to a.log.
func (a *app) discordSession() (*discordgo.Session, error) {
	s, err := a.d.newSession(a.c.token)
	if err != nil {
		return nil, fmt.Errorf("discord session: %w", err)
	}
	if s.Client == nil {
		s.Client = &http.Client{Timeout: 20 * time.Second}
	}
	if s.Client.Transport == nil {
		s.Client.Transport = restTransport()
	}
	rt := newAPITransport(a.c.discordAPI, s.Client.Transport)
	if a.metrics != nil {
		rt = a.metrics.Transport(rt)
	}
	s.Client.Transport = rt
	s.LogLevel = routeDiscordgoLogs(a.log, a.c.logLevel, a.c.token)
	return s, nil
}

// applicationID returns DISCORD_APP_ID, or asks Discord for the application
// the token belongs to.
func (a *app) applicationID(s *discordgo.Session) (string, error) {
	if a.c.appID != "" {
		return a.c.appID, nil
	}
	app, err := s.Application("@me")
	if err != nil {
		return "", fmt.Errorf("look up the application of DISCORD_TOKEN: %w", calledURL(err, a.c.discordAPI))
	}
	return app.ID, nil
}

// openStore checks and opens the database, with failures counted in
// a.metrics and explained.
func (a *app) openStore(ctx context.Context) (*observedStore, error) {
	store, err := openDBStore(ctx, a.c)
	if err != nil {
		return nil, err
	}
	from, to := store.SchemaVersions()
	a.log.Info("database open", "database", a.c.dbName(), "schema_from", from, "schema", to)
	o := &observedStore{Store: store, puzzles: store, explain: store.Explain}
	if a.metrics != nil {
		o.failures = a.metrics.StoreError
	}
	return o, nil
}

// newMetrics returns the process's metrics; the active-matches gauge asks
// the store that active will hold once it is open.
func (a *app) newMetrics(active *atomic.Pointer[observedStore]) *metrics.Metrics {
	return metrics.New(metrics.Options{Version: programVersion(), Log: a.log,
		ActiveMatches: func(ctx context.Context) (int, error) {
			store := active.Load()
			if store == nil {
				return 0, errors.New("the database is not open yet")
			}
			return store.CountActive(ctx)
		}})
}

// schedulerInterval is how often the scheduler looks for deadlines that
// passed and board posts still to make.
const schedulerInterval = time.Second

// handler returns the interaction handler on store, reporting to
// a.metrics, reaching Discord after a response through rest (a session
// with the bot token, or without one in serve mode), with the configured
// deadlines and an AI with the configured memory and workers.
func (a *app) handler(store *observedStore, rest *discordgo.Session) *bot.Handler {
	procs := runtime.GOMAXPROCS(0)
	workers := aiWorkers(a.c.aiWorkers, procs)
	if workers < a.c.aiWorkers {
		a.log.Info("AI searches at once capped to leave the interaction handlers a processor",
			"configured", a.c.aiWorkers, "workers", workers, "gomaxprocs", procs)
	}
	engine := ai.NewEngine(ai.Options{TableMB: a.c.aiMemoryMB, Workers: workers})
	return bot.NewHandler(store, a.log, bot.WithMetrics(a.metrics),
		bot.WithMessenger(bot.NewDiscordMessenger(rest)),
		bot.WithTimeouts(a.c.challengeTimeout, a.c.turnTimeout),
		bot.WithThreads(a.c.threads),
		bot.WithAI(engine),
		bot.WithPuzzles(store.puzzles))
}

// aiWorkers returns the size of the AI's worker pool for configured
// workers (CONNECTN_AI_WORKERS) on procs processors (GOMAXPROCS): at most
// procs-1, so that searches never hold every processor and the interaction
// handlers always keep one (with 20 matches against the bot on 2
// processors, a pool of 2 doubled the human moves' p99; see docs/load.md),
// and at least 1.
func aiWorkers(configured, procs int) int {
	return max(1, min(configured, procs-1))
}

// runHandler runs h's deadline scheduler until ctx ends, and returns the
// function that stops it and waits (a few seconds at most) for the work
// that follows responses to finish.
func (a *app) runHandler(ctx context.Context, h *bot.Handler) (stop func()) {
	schedCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.RunScheduler(schedCtx, schedulerInterval)
	}()
	return func() {
		cancel()
		<-done
		closeCtx, closeCancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer closeCancel()
		if err := h.Close(closeCtx); err != nil {
			a.log.Warn("stopping with work after responses unfinished", "err", err)
		}
	}
}

// calledURL returns err with the REST URLs in its text as they were
// really called, on the base api (CONNECTN_DISCORD_API; "" leaves err
// as it is): discordgo builds every URL on discord.com (its EndpointAPI)
// and names that in its errors, whatever base apiTransport sent the
// request to. The error returned wraps err.
func calledURL(err error, api string) error {
	if err == nil || api == "" {
		return err
	}
	text := strings.ReplaceAll(err.Error(), discordgo.EndpointAPI, strings.TrimSuffix(api, "/")+"/")
	if text == err.Error() {
		return err
	}
	return &calledError{err: err, text: text}
}

// calledError is an error with its text rewritten by calledURL.
type calledError struct {
	err  error
	text string
}

func (e *calledError) Error() string { return e.text }
func (e *calledError) Unwrap() error { return e.err }

func register(ctx context.Context, a *app) error {
	s, err := a.discordSession()
	if err != nil {
		return err
	}
	appID, err := a.applicationID(s)
	if err != nil {
		return err
	}
	if err := transport.RegisterCommands(s, appID, a.c.guildID, bot.Commands()); err != nil {
		return calledURL(err, a.c.discordAPI)
	}
	where := "globally (Discord may take up to an hour to show them everywhere)"
	if a.c.guildID != "" {
		where = "in guild " + a.c.guildID
	}
	a.log.Info("commands registered "+where, "application", appID, "guild", a.c.guildID)
	return nil
}

func invite(ctx context.Context, a *app) error {
	appID := a.c.appID
	if appID == "" {
		s, err := a.discordSession()
		if err != nil {
			return err
		}
		if appID, err = a.applicationID(s); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.d.stdout, "Add to a server (the bot joins; every feature):\n  %s\n", bot.InviteURL(appID, a.c.guildID))
	fmt.Fprintf(a.d.stdout, "Install for yourself (DMs, group DMs, servers without the bot; needs User Install on in the Developer Portal):\n  %s\n",
		bot.UserInstallURL(appID))
	return nil
}

// openWithMetrics sets up the process's metrics and opens the store they
// count active matches in.
func (a *app) openWithMetrics(ctx context.Context) (*observedStore, error) {
	var active atomic.Pointer[observedStore]
	a.metrics = a.newMetrics(&active)
	store, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	active.Store(store)
	return store, nil
}

func runGateway(ctx context.Context, a *app) error {
	store, err := a.openWithMetrics(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	stopProfiles, err := a.listenProfiles()
	if err != nil {
		return err
	}
	defer stopProfiles()
	s, err := a.discordSession()
	if err != nil {
		return err
	}
	g := &transport.Gateway{Session: s, GuildID: a.c.guildID, Log: a.log, API: a.c.discordAPI,
		ShardID: a.c.shardID, ShardCount: a.c.shardCount}
	if a.c.metricsAddr != "" {
		ready := func(ctx context.Context) error {
			if !g.Connected() {
				return errors.New("not connected to the Discord gateway")
			}
			return store.Ping(ctx)
		}
		l, err := a.listenOps(a.c.metricsAddr, opsMux(a.metrics, ready), "GET /metrics, /healthz and /readyz of gateway mode")
		if err != nil {
			return err
		}
		go func() {
			if err := <-l.done; err != nil {
				a.log.Error("the metrics and health listener stopped", "addr", l.addr, "err", err)
			}
		}()
		defer l.Stop()
	}
	h := a.handler(store, s)
	stop := a.runHandler(ctx, h)
	defer stop()
	g.Handler, g.Commands, g.OnReady = h, bot.Commands(), h.SetBotUser
	return g.Run(ctx)
}

func serve(ctx context.Context, a *app) error {
	store, err := a.openWithMetrics(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	stopProfiles, err := a.listenProfiles()
	if err != nil {
		return err
	}
	defer stopProfiles()
	if a.c.token != "" {
		// Registration is a convenience here: the endpoint works without it,
		// so a failure is reported and serving goes on.
		if err := register(ctx, a); err != nil {
			a.log.Warn("could not register the commands; serving anyway", "err", err)
		}
	}
	// Follow-ups and edits after a response go through the interaction
	// webhooks, which need no token, or the bot token when there is one.
	rest, err := a.discordSession()
	if err != nil {
		return err
	}
	h := a.handler(store, rest)
	stop := a.runHandler(ctx, h)
	defer stop()
	mux := opsMux(a.metrics, store.Ping)
	mux.Handle("/interactions", &transport.HTTPServer{Handler: h, PublicKey: a.c.publicKey, Log: a.log,
		OnRefused: a.metrics.RefusedInteraction})
	l, err := a.listenOps(a.c.addr, mux, "POST /interactions, GET /healthz, /readyz and /metrics")
	if err != nil {
		return err
	}
	select {
	case err := <-l.done:
		return fmt.Errorf("serve on %s: %w", l.addr, err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	return l.Stop()
}
