package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/metrics"
	"github.com/connectn/connectn/sessions"
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
		return "", fmt.Errorf("look up the application of DISCORD_TOKEN: %w", err)
	}
	return app.ID, nil
}

// openStore checks and opens the database, with failures counted in
// a.metrics and explained.
func (a *app) openStore(ctx context.Context) (*observedStore, error) {
	store, err := sessions.Open(ctx, a.c.db)
	if err != nil {
		return nil, explainDBError(a.c.db, err)
	}
	a.log.Info("database open", "path", a.c.db)
	o := &observedStore{Store: store, path: a.c.db}
	if a.metrics != nil {
		o.failures = a.metrics.StoreError
	}
	return o, nil
}

// newMetrics returns the process's metrics. The active-matches gauge is
// left out until the store can count them.
func (a *app) newMetrics() *metrics.Metrics {
	return metrics.New(metrics.Options{Version: programVersion(), Log: a.log, ActiveMatches: nil})
}

// handler returns the interaction handler on store, reporting to a.metrics.
func (a *app) handler(store bot.Store) *bot.Handler {
	return bot.NewHandler(store, a.log, bot.WithMetrics(a.metrics))
}

func register(ctx context.Context, a *app) error {
	s, err := a.discordSession()
	if err != nil {
		return err
	}
	appID, err := a.applicationID(s)
	if err != nil {
		return err
	}
	if err := bot.RegisterCommands(s, appID, a.c.guildID); err != nil {
		return err
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
	fmt.Fprintln(a.d.stdout, bot.InviteURL(appID, a.c.guildID))
	return nil
}

func runGateway(ctx context.Context, a *app) error {
	a.metrics = a.newMetrics()
	store, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	s, err := a.discordSession()
	if err != nil {
		return err
	}
	var connected atomic.Bool
	s.AddHandler(func(*discordgo.Session, *discordgo.Ready) { connected.Store(true) })
	s.AddHandler(func(*discordgo.Session, *discordgo.Resumed) { connected.Store(true) })
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) { connected.Store(false) })
	if a.c.metricsAddr != "" {
		ready := func(ctx context.Context) error {
			if !connected.Load() {
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
	g := &bot.Gateway{Session: s, Handler: a.handler(store), GuildID: a.c.guildID, Log: a.log}
	return g.Run(ctx)
}

func serve(ctx context.Context, a *app) error {
	a.metrics = a.newMetrics()
	store, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if a.c.token != "" {
		// Registration is a convenience here: the endpoint works without it,
		// so a failure is reported and serving goes on.
		if err := register(ctx, a); err != nil {
			a.log.Warn("could not register the commands; serving anyway", "err", err)
		}
	}
	mux := opsMux(a.metrics, store.Ping)
	mux.Handle("/interactions", &bot.HTTPServer{Handler: a.handler(store), PublicKey: a.c.publicKey, Log: a.log})
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
