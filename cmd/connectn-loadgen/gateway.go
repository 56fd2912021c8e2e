package main

// Gateway mode: `connectn run` against a fake Discord with a gateway.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/connectn/connectn/bot/discordtest"
)

// Transports of -mode.
const (
	modeHTTP    = "http"    // `connectn serve`, signed HTTP interactions
	modeGateway = "gateway" // `connectn run`, INTERACTION_CREATE over the fake gateway
	modeBoth    = "both"    // both servers, their phases in turn
)

// gatewayToken is the bot token of the fake Discord of gateway mode, in the
// shape `connectn run` checks (three dot-separated parts of base64).
const gatewayToken = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.bG9hZGdlbg.Z2F0ZXdheS1tb2RlLWxvYWQtZ2VuZXJhdG9y"

// callbackWait bounds the wait for the callback of a dispatched
// interaction, as the HTTP client's timeout bounds a request.
const callbackWait = 10 * time.Second

// gatewayOptions are the flags of gateway mode.
type gatewayOptions struct {
	mode     string
	rss      []int // active matches at which resident memory is read, increasing
	rssMoves int   // moves played in each match the memory phase opens
}

// gatewayFlags defines the flags of gateway mode on fs, into o.gw, and
// returns the check to run once fs is parsed: it returns an error naming
// the flag for a value out of range or a combination that does not go.
func gatewayFlags(fs *flag.FlagSet, o *options) (check func() error) {
	var rss string
	fs.StringVar(&o.gw.mode, "mode", "", "`transport` of the interactions: http (connectn serve), gateway (connectn run with the fake gateway; needs -spawn), or both, their moves phases in turn (default: both when it can be, with -spawn and one replica, and without -crash, -stop, -soak or -ai-matches; else http)")
	fs.StringVar(&rss, "rss", "", "with -spawn: comma-separated increasing `counts` of active matches at which to read the resident memory of a fresh server of each transport of -mode, e.g. 10,1000,10000 (empty: none)")
	fs.IntVar(&o.gw.rssMoves, "rss-moves", 4, "moves played in each match that -rss opens before it is left active")
	return func() error {
		alone := o.spawn != "" && !o.crash && !o.stop && o.replicas == 1
		if o.gw.mode == "" {
			o.gw.mode = modeHTTP
			if alone && o.soak.duration == 0 && o.ai.matches == 0 {
				o.gw.mode = modeBoth
			}
		}
		switch o.gw.mode {
		case modeHTTP:
		case modeGateway, modeBoth:
			if !alone {
				return errors.New("-mode gateway and both need -spawn, without -crash, -stop or -replicas")
			}
		default:
			return fmt.Errorf("-mode: %q is not http, gateway or both", o.gw.mode)
		}
		if rss != "" && (!alone || o.soak.duration > 0) {
			return errors.New("-rss needs -spawn, without -crash, -stop, -replicas or -soak")
		}
		last := 0
		for _, f := range strings.Split(rss, ",") {
			if f = strings.TrimSpace(f); f == "" && rss == "" {
				break
			}
			n, err := strconv.Atoi(f)
			if err != nil || n <= last {
				return fmt.Errorf("-rss: %q is not a number above %d", f, last)
			}
			o.gw.rss, last = append(o.gw.rss, n), n
		}
		if wins := 2*o.settings.Connect - 1; o.gw.rssMoves < 0 || o.gw.rssMoves >= wins || o.gw.rssMoves >= o.settings.Rows*o.settings.Columns {
			return fmt.Errorf("-rss-moves: %d is not from 0 to %d (fewer moves than can end a round)", o.gw.rssMoves, min(wins, o.settings.Rows*o.settings.Columns)-1)
		}
		return nil
	}
}

// gatewayDiscord is the fake Discord of gateway mode: a whole
// bot/discordtest Server (REST API and gateway, without logs) that
// `connectn run` connects to, on which the load generator dispatches each
// interaction as INTERACTION_CREATE and learns its response when the bot
// posts it to the callback route (WithOnResponse), as Discord does.
//
// A click names the message it is on by the ID HTTP mode gives a
// challenge's message (originalBase plus the interaction's sequence), not
// by the snowflake the fake gave it: the fake, which does not know that
// ID, keeps the board the first click carries under it, and the bot's
// updates apply there. The bot sees the same interactions either way.
type gatewayDiscord struct {
	*fakeDiscord

	mu      sync.Mutex
	waiting map[string]chan discordtest.Response // by interaction ID
	counts  map[string]int                       // the bot's REST writes by kind, for the report
}

// listenGateway starts the fake Discord of gateway mode on a loopback port.
func listenGateway() *gatewayDiscord {
	g := &gatewayDiscord{fakeDiscord: &fakeDiscord{slots: map[string]chan *discordgo.Message{}, boards: map[string]int{}},
		waiting: map[string]chan discordtest.Response{}, counts: map[string]int{}}
	g.Server = discordtest.New(discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID), discordtest.WithoutLogs(),
		discordtest.WithOnMessage(g.posted), discordtest.WithOnResponse(g.answered))
	return g
}

// writeRoutes name the bot's REST writes in the report, as HTTP mode's
// count names them; responses are counted by answered.
var writeRoutes = map[discordtest.MessageKind]string{
	discordtest.FollowupMessageCreate: "POST follow-up",
	discordtest.WebhookMessageEdit:    "PATCH message",
	discordtest.WebhookMessageDelete:  "DELETE message",
	discordtest.ChannelMessageCreate:  "POST channel message",
	discordtest.ChannelMessageEdit:    "PATCH channel message",
}

// posted hands a follow-up to its slot, as in HTTP mode, and counts the
// write.
func (g *gatewayDiscord) posted(m discordtest.Message) {
	if route, ok := writeRoutes[m.Kind]; ok {
		g.mu.Lock()
		g.counts[route]++
		g.mu.Unlock()
	}
	g.fakeDiscord.posted(m)
}

// answered hands a response to the send waiting for it.
func (g *gatewayDiscord) answered(r discordtest.Response) {
	g.mu.Lock()
	ch := g.waiting[r.InteractionID]
	if r.Err != nil {
		g.counts["POST callback (refused)"]++
	} else {
		g.counts["POST callback"]++
	}
	g.mu.Unlock()
	if ch != nil {
		select {
		case ch <- r:
		default: // a second response: the first one counts
		}
	}
}

// counted returns the bot's REST writes by kind so far.
func (g *gatewayDiscord) counted() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]int, len(g.counts))
	for k, v := range g.counts {
		out[k] = v
	}
	return out
}

// send dispatches the interaction body over the gateway and waits for its
// callback: the exchange's took is from the dispatch to the callback's
// arrival at the fake. A refused callback is an error of status 400, no
// callback within callbackWait is no answer (status 0), like a request
// without a response in HTTP mode.
func (g *gatewayDiscord) send(ctx context.Context, body []byte) exchange {
	var head struct {
		ID string `json:"id"`
	}
	if err := fastjson.Unmarshal(body, &head); err != nil || head.ID == "" {
		return exchange{err: fmt.Errorf("no interaction ID: %v", err), errKind: "request: no interaction ID"}
	}
	ch := make(chan discordtest.Response, 1)
	g.mu.Lock()
	g.waiting[head.ID] = ch
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.waiting, head.ID)
		g.mu.Unlock()
	}()
	start := time.Now()
	if err := g.DispatchInteractionJSON(body); err != nil {
		kind := "dispatch failed"
		if errors.Is(err, discordtest.ErrNotConnected) {
			kind = "gateway not connected"
		}
		return exchange{took: time.Since(start), err: err, errKind: kind}
	}
	timer := time.NewTimer(callbackWait)
	defer timer.Stop()
	var r discordtest.Response
	select {
	case r = <-ch:
	case <-timer.C:
		return exchange{took: time.Since(start), err: errors.New("no callback within " + callbackWait.String()), errKind: "timeout"}
	case <-ctx.Done():
		return exchange{took: time.Since(start), err: ctx.Err(), errKind: "cancelled"}
	}
	took := time.Since(start)
	if r.Err != nil {
		kind := "callback refused"
		var e *discordtest.APIError
		if errors.As(r.Err, &e) {
			kind += fmt.Sprintf(" (%d)", e.Code)
		}
		return exchange{status: http.StatusBadRequest, took: took, err: r.Err, errKind: kind}
	}
	resp, err := discordtest.DecodeResponse(r.Payload)
	if err != nil {
		return exchange{status: http.StatusOK, took: took, err: err, errKind: "undecodable response"}
	}
	return exchange{status: http.StatusOK, resp: resp, took: took}
}

// newRunServer prepares `bin run` with the database db, the bot token
// token, the REST API at api (where GET /gateway/bot names the gateway)
// and its metrics and health served on a free loopback port, whose
// /readyz start waits for. Its log goes to logw.
func newRunServer(bin, db, token, api string, logw io.Writer, extraEnv ...string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"DISCORD_TOKEN=" + token, "CONNECTN_DISCORD_API=" + api, "CONNECTN_LOG_LEVEL=warn"}
	return &server{bin: bin, db: db, addr: addr, env: append(env, extraEnv...), log: logw,
		args: []string{"run", "-db", db, "-metrics-addr", addr}, probe: "/readyz"}, nil
}

// gatewayEnv is an env whose interactions go over the gateway of g to a
// `connectn run` it started.
type gatewayEnv struct {
	*env
	g *gatewayDiscord
}

// setupGateway starts the fake Discord and `connectn run` against it, on
// o.db or a new file name.db in a temporary folder, with extraEnv then
// -server-env in its environment, and waits until it is connected.
func setupGateway(ctx context.Context, o *options, logw io.Writer, name string, extraEnv ...string) (*gatewayEnv, error) {
	g := listenGateway()
	e := &env{d: g.fakeDiscord}
	// Channels no earlier run, nor this run's HTTP phases, used.
	e.chBase = 1300000000000000000 + (time.Now().UnixMilli()%1_000_000_000)*1000 + 500_000_000_000_000
	var err error
	if e.tmp, err = os.MkdirTemp("", "connectn-loadgen-"); err != nil {
		g.Close()
		return nil, err
	}
	db := o.db
	if db == "" {
		db = filepath.Join(e.tmp, name+".db")
	}
	bin, err := filepath.Abs(o.spawn)
	if err != nil {
		e.close()
		return nil, err
	}
	if e.srv, err = newRunServer(bin, db, gatewayToken, g.apiBase(), logw, append(extraEnv, o.serverEnv...)...); err != nil {
		e.close()
		return nil, err
	}
	if err := e.srv.start(ctx); err != nil {
		e.srv = nil
		e.close()
		return nil, err
	}
	e.pids = []int{e.srv.pid()}
	e.c = &client{now: time.Now, via: g.send}
	return &gatewayEnv{env: e, g: g}, nil
}

// movePhase is env.movePhase over the gateway, with the bot's REST writes
// of the phase as its hooks.
func (ge *gatewayEnv) movePhase(ctx context.Context, m int, o *options) (phaseResult, error) {
	before := ge.g.counted()
	r, err := ge.env.movePhase(ctx, m, o)
	r.hooks = map[string]int{}
	for k, v := range ge.g.counted() {
		if d := v - before[k]; d > 0 {
			r.hooks[k] = d
		}
	}
	return r, err
}

// runGatewayMode runs -mode gateway or both: for each figure of -matches,
// the HTTP phases (with both) then the gateway moves phase, each reported
// as it ends; then the table of both transports side by side, and the
// memory phase of -rss. It returns the exit status.
func runGatewayMode(ctx context.Context, o *options, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "connectn-loadgen:", err)
		return 1
	}
	var logw io.Writer = stderr
	var httpEnv *env
	closeAll := func() {}
	defer func() { closeAll() }()
	if o.gw.mode == modeBoth {
		e, err := setup(ctx, o, stderr)
		if err != nil {
			return fail(err)
		}
		httpEnv = e
		closeAll = e.close
	}
	if o.serverLog != "" {
		// setup created the file for HTTP mode's server: both write to it.
		f, err := os.OpenFile(o.serverLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		logw = f
	}
	logw = &lockedWriter{w: logw}
	gw, err := setupGateway(ctx, o, logw, "gateway")
	if err != nil {
		return fail(err)
	}
	closeHTTP := closeAll
	closeAll = func() { gw.close(); closeHTTP() }

	var httpResults []phaseResult
	var pairs [][2]*phaseResult
	for _, m := range o.matches {
		var pair [2]*phaseResult
		if httpEnv != nil {
			fmt.Fprintf(stdout, "-- HTTP interactions (connectn serve), %d matches\n", m)
			if o.pings {
				r, err := httpEnv.pingPhase(ctx, m, o)
				if err != nil {
					return fail(err)
				}
				httpResults = append(httpResults, r)
				report(stdout, []phaseResult{r}, false)
			}
			r, err := httpEnv.movePhase(ctx, m, o)
			if err != nil {
				return fail(err)
			}
			httpResults = append(httpResults, r)
			report(stdout, []phaseResult{r}, false)
			pair[0] = &r
		}
		fmt.Fprintf(stdout, "-- gateway (connectn run), %d matches\n", m)
		r, err := gw.movePhase(ctx, m, o)
		if err != nil {
			return fail(err)
		}
		report(stdout, []phaseResult{r}, false)
		pair[1] = &r
		pairs = append(pairs, pair)
		if ctx.Err() != nil {
			break
		}
	}
	fmt.Fprintln(stdout)
	if len(httpResults) > 0 {
		report(stdout, httpResults, true)
		reportPerMove(stdout, httpResults)
		fmt.Fprintln(stdout)
	}
	compare(stdout, pairs)
	for _, s := range []struct {
		who string
		e   *env
	}{{"connectn serve", httpEnv}, {"connectn run", gw.env}} {
		if s.e == nil {
			continue
		}
		if rss, err := peakRSS(s.e.pids[0]); err == nil {
			fmt.Fprintf(stdout, "%s peak resident memory: %.1f MiB\n", s.who, float64(rss)/(1<<20))
		}
	}
	if len(o.gw.rss) == 0 || ctx.Err() != nil {
		return 0
	}
	// A fresh server for each memory phase, the others stopped.
	closeAll()
	closeAll = func() {}
	if o.gw.mode == modeBoth {
		if err := memoryPhase(ctx, o, logw, stdout, modeHTTP); err != nil {
			return fail(err)
		}
	}
	if err := memoryPhase(ctx, o, logw, stdout, modeGateway); err != nil {
		return fail(err)
	}
	return 0
}

// compare prints the moves phases of both transports side by side: one
// row per transport and figure of -matches.
func compare(w io.Writer, pairs [][2]*phaseResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "matches\ttransport\tmoves\tmoves/s\tp50\tp90\tp99\tmax\tserver CPU/move\tserver CPU/request\tloadgen CPU/request\terrors\t")
	for _, p := range pairs {
		for k, r := range p {
			if r == nil {
				continue
			}
			name := [...]string{"HTTP", "gateway"}[k]
			p50, p90, p99, mx := percentiles(r.rec.lat["move"])
			errs := 0
			for _, v := range r.rec.errs {
				errs += v
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.matches, name, r.rec.moves,
				float64(r.rec.moves)/r.elapsed.Seconds(), ms(p50), ms(p90), ms(p99), ms(mx),
				cpuPer(r.cpu, r.rec.moves), cpuPer(r.cpu, r.requests), cpuPer(r.selfCPU, r.requests), errs)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "(latency of a move: HTTP, from the POST to the response read; gateway, from the dispatch of INTERACTION_CREATE")
	fmt.Fprintln(w, " to the callback's arrival at the fake REST API. Server CPU per move is all of the phase's server CPU, challenges")
	fmt.Fprintln(w, " and accepts included, over the moves acknowledged)")
}

// mib formats bytes in MiB, "n/a" for 0 (not read).
func mib(b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// num formats a count, "n/a" for a negative one.
func num(f float64) string {
	if f < 0 {
		return "n/a"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
