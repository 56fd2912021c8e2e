package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

func fakeDiscord(t *testing.T) (*discordtest.Server, deps) {
	t.Helper()
	fake := discordtest.New(discordtest.WithToken(fakeToken), discordtest.WithApplicationID(fakeAppID))
	t.Cleanup(fake.Close)
	return fake, deps{newSession: fake.NewSession}
}

// realSession makes sessions as main does, with discordgo's own HTTP
// client: a request that is not rewritten would go to discord.com, which
// this machine cannot reach.
func realSession(token string) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, err
	}
	s.ShouldReconnectOnError = false
	return s, nil
}

// The members of the tests' matches, as interactions carry them.
var (
	alice = discordtest.User{ID: aliceID, Username: "alice", GlobalName: "Alice"}
	bob   = discordtest.User{ID: bobID, Username: "bob", GlobalName: "Bob"}
)

var interactionSeq atomic.Int64

// from returns the envelope of a new interaction by u in channel of the
// test guild: a fresh ID and token.
func from(u discordtest.User, channel string) discordtest.Envelope {
	n := interactionSeq.Add(1)
	return discordtest.Envelope{ID: fmt.Sprintf("15%017d", n), Token: fmt.Sprintf("aW50ZXJhY3Rpb246%d", n),
		AppID: fakeAppID, GuildID: guildID, ChannelID: channel, From: u}
}

// playMatch plays a one-round match of alice against bob through send:
// challenge, accept, a click out of turn (refused), then alice connects four
// in column 1 while bob plays column 2.
func playMatch(t *testing.T, send func([]byte) *discordgo.InteractionResponse) {
	t.Helper()
	board := &discordgo.Message{ID: "1700000000000000001"}
	button := func(resp *discordgo.InteractionResponse, label string) *discordgo.Button {
		if resp.Data == nil {
			return nil
		}
		return discordtest.FindButton(resp.Data.Components, label)
	}
	resp := send(discordtest.Slash(from(alice, channelID), "connectn", "challenge",
		discordtest.UserArg("opponent", bob), discordtest.IntArg("wins", 1)))
	accept := button(resp, "Accept")
	if accept == nil {
		t.Fatalf("challenge: got %+v, want an Accept button", resp)
	}
	resp = send(discordtest.Click(from(bob, channelID), board, accept.CustomID))
	second := button(resp, "2")
	if second == nil {
		t.Fatalf("accept: got %+v, want column buttons", resp)
	}
	if refused := send(discordtest.Click(from(bob, channelID), board, second.CustomID)); refused.Data == nil || refused.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("a click out of turn: got %+v, want a private refusal", refused)
	}
	for i, m := range []struct {
		who    discordtest.User
		column int
	}{{alice, 0}, {bob, 1}, {alice, 0}, {bob, 1}, {alice, 0}, {bob, 1}, {alice, 0}} {
		drop := button(resp, strconv.Itoa(m.column+1))
		if drop == nil {
			t.Fatalf("move %d: no button for column %d in %+v", i+1, m.column+1, resp)
		}
		resp = send(discordtest.Click(from(m.who, channelID), board, drop.CustomID))
		if resp.Type != discordgo.InteractionResponseUpdateMessage {
			t.Fatalf("move %d: got response type %d, want UPDATE_MESSAGE", i+1, resp.Type)
		}
	}
	if resp.Data == nil {
		return
	}
	for _, b := range discordtest.Buttons(resp.Data.Components) {
		if strings.Contains(b.CustomID, ":drop:") {
			t.Fatalf("the finished match still has the column button %q", b.Label)
		}
	}
}

// viaGateway sends each interaction as an INTERACTION_CREATE on the fake
// gateway and waits for the bot's callback.
func viaGateway(t *testing.T, fake *discordtest.Server) func([]byte) *discordgo.InteractionResponse {
	return func(body []byte) *discordgo.InteractionResponse {
		t.Helper()
		var i struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(body, &i); err != nil {
			t.Fatalf("decode interaction: %v", err)
		}
		if err := fake.DispatchInteractionJSON(body); err != nil {
			t.Fatalf("dispatch: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.WaitResponse(ctx, i.ID)
		if err != nil {
			t.Fatalf("wait for the response to %s: %v", i.ID, err)
		}
		return resp
	}
}

func waitCommands(t *testing.T, fake *discordtest.Server) {
	t.Helper()
	wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := fake.WaitRequest(wait, func(r discordtest.Request) bool {
		return r.Method == "PUT" && strings.HasSuffix(r.Path, "/commands")
	}); err != nil {
		t.Fatalf("commands never registered: %v", err)
	}
}

// metricValue returns the value of the sample named name{labels} in a
// text exposition, and whether it is there.
func metricValue(body, sample string) (float64, bool) {
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// TestRunGateway starts `connectn run` against the fake Discord as a new
// user would, plays a match over the gateway, checks the metrics it moved
// and the health of gateway mode, and stops cleanly when its context ends
// (as on SIGINT/SIGTERM).
func TestRunGateway(t *testing.T) {
	fake, d := fakeDiscord(t)
	listen, addrs := listenSpy()
	d.listen = listen
	db := filepath.Join(t.TempDir(), "connectn.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runWith(t, ctx, []string{"run", "-db", db, "-metrics-addr", "127.0.0.1:0", "-log-level", "debug", "-log-format", "json"},
			map[string]string{"DISCORD_TOKEN": fakeToken}, d)
	}()
	var ops string
	select {
	case ops = <-addrs:
	case r := <-done:
		t.Fatalf("run ended early: exit %d\n%s", r.code, r.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not listen within 10s")
	}
	waitCommands(t, fake)
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := get(t, "http://"+ops+"/readyz")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz never became 200: %d %q", code, body)
		}
		time.Sleep(20 * time.Millisecond) // polls a real server's state; no clock to inject
	}
	if code, _ := get(t, "http://"+ops+"/healthz"); code != 200 {
		t.Fatalf("healthz: got %d", code)
	}
	h := runWith(t, context.Background(), []string{"health", "-addr", "127.0.0.1:1", "-metrics-addr", ops}, nil, deps{})
	if h.code != 0 || h.stdout != "ok: connectn run (gateway) at "+ops+" is ready\n" {
		t.Fatalf("connectn health: got exit %d, stdout %q, stderr %q", h.code, h.stdout, h.stderr)
	}

	_, before := get(t, "http://"+ops+"/metrics")
	playMatch(t, viaGateway(t, fake))
	// The fake has the last callback before the bot's transport has its
	// answer and counts it, in two metrics one after the other: wait for
	// both counts.
	const callback = `connectn_discord_requests_total{method="POST",route="/interactions/{id}/{token}/callback",status="204"}`
	const callbackTime = `connectn_discord_request_duration_seconds_count{method="POST",route="/interactions/{id}/{token}/callback"}`
	var after string
	for deadline := time.Now().Add(5 * time.Second); ; {
		_, after = get(t, "http://"+ops+"/metrics")
		n, _ := metricValue(after, callback)
		d, _ := metricValue(after, callbackTime)
		if n >= 10 && d >= 10 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, c := range []struct {
		sample string
		moved  float64
	}{
		{`connectn_interactions_total{kind="command/challenge",outcome="ok"}`, 1},
		{`connectn_interactions_total{kind="button/accept",outcome="ok"}`, 1},
		{`connectn_interactions_total{kind="button/drop",outcome="ok"}`, 7},
		{`connectn_interactions_total{kind="button/drop",outcome="refused"}`, 1},
		{`connectn_interaction_duration_seconds_count{kind="button/drop"}`, 8},
		{callback, 10},
		{callbackTime, 10},
	} {
		was, _ := metricValue(before, c.sample)
		now, ok := metricValue(after, c.sample)
		if !ok || now-was != c.moved {
			t.Errorf("%s: went from %v to %v (present: %v), want it to move by %v", c.sample, was, now, ok, c.moved)
		}
	}
	if n, ok := metricValue(after, `connectn_discord_requests_total{method="PUT",route="/applications/{id}/commands",status="200"}`); !ok || n != 1 {
		t.Errorf("command registration: got %v (present %v), want 1", n, ok)
	}
	if strings.Contains(after, fakeToken) || regexp.MustCompile(`aW50ZXJhY3Rpb24|discordtest-[0-9a-f]`).MatchString(after) {
		t.Errorf("a token reached /metrics")
	}

	cancel()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("run: got exit %d, want 0\n%s", r.code, r.stderr)
		}
		if strings.Contains(r.stderr, fakeToken) {
			t.Fatalf("the token was logged:\n%s", r.stderr)
		}
		// discordgo's own lines come through slog, as JSON.
		var fromDiscordgo int
		for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("log line is not JSON: %q", line)
				continue
			}
			if rec["source"] == "discordgo" && rec["func"] != nil {
				fromDiscordgo++
			}
		}
		if fromDiscordgo == 0 {
			t.Errorf("no discordgo line went through slog at debug level:\n%s", r.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not stop within 15s")
	}
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name  string
		vars  map[string]string
		guild string
	}{
		{"globally, application looked up", map[string]string{"DISCORD_TOKEN": fakeToken}, ""},
		{"in one guild", map[string]string{"DISCORD_TOKEN": fakeToken, "DISCORD_GUILD_ID": guildID}, guildID},
		{"with a Bot prefix and the app id given", map[string]string{"DISCORD_TOKEN": "Bot " + fakeToken, "DISCORD_APP_ID": fakeAppID}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, d := fakeDiscord(t)
			r := runWith(t, context.Background(), []string{"register"}, tt.vars, d)
			if r.code != 0 {
				t.Fatalf("got exit %d, want 0\n%s", r.code, r.stderr)
			}
			cmds := fake.Commands(tt.guild)
			if len(cmds) != 2 || cmds[0].Name != "connectn" || cmds[1].Name != "connectn-admin" {
				t.Fatalf("got commands %+v in guild %q, want connectn and connectn-admin", cmds, tt.guild)
			}
			if strings.Contains(r.stderr, fakeToken) {
				t.Fatalf("the token was logged:\n%s", r.stderr)
			}
		})
	}
}

func TestRegisterRejectedToken(t *testing.T) {
	_, d := fakeDiscord(t)
	other := "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.AbCdEf.b3RoZXItdG9rZW4tb3RoZXItdG9rZW4"
	r := runWith(t, context.Background(), []string{"register"}, map[string]string{"DISCORD_TOKEN": other}, d)
	if r.code != 1 || !strings.Contains(r.stderr, "401") {
		t.Fatalf("got exit %d, want 1 with the 401 reported\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, other) {
		t.Fatalf("the token was logged:\n%s", r.stderr)
	}
}

// TestDiscordAPI checks CONNECTN_DISCORD_API: with sessions made as main
// makes them, every REST call of register goes to the configured base,
// here a REST proxy under a path prefix in front of the fake Discord.
func TestDiscordAPI(t *testing.T) {
	fake, _ := fakeDiscord(t)
	target, _ := url.Parse(fake.URL())
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		rest, ok := strings.CutPrefix(r.URL.Path, "/discord-proxy")
		if !ok {
			http.Error(w, "not under the proxy's prefix", http.StatusBadGateway)
			return
		}
		r.URL.Path = rest
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	defer proxy.Close()

	for _, base := range []string{proxy.URL + "/discord-proxy/api/v9", proxy.URL + "/discord-proxy/api/v9/"} {
		r := runWith(t, context.Background(), []string{"register", "-guild", guildID, "-discord-api", base},
			map[string]string{"DISCORD_TOKEN": fakeToken}, deps{newSession: realSession})
		if r.code != 0 {
			t.Fatalf("register through %s: exit %d\n%s", base, r.code, r.stderr)
		}
	}
	if cmds := fake.Commands(guildID); len(cmds) != 2 || cmds[0].Name != "connectn" {
		t.Fatalf("got commands %+v, want connectn registered through the proxy", cmds)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"GET /discord-proxy/api/v9/oauth2/applications/@me",
		"PUT /discord-proxy/api/v9/applications/" + fakeAppID + "/guilds/" + guildID + "/commands",
	}
	if strings.Join(seen, "\n") != strings.Join(append(want, want...), "\n") {
		t.Fatalf("the proxy saw:\n%s\nwant, twice:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// TestAPITransport checks the rewriting itself: Discord's REST URLs go to
// the base with path and query kept (escapes too), other URLs go
// untouched, and the caller's request is not modified.
func TestAPITransport(t *testing.T) {
	var got []string
	rec := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = append(got, r.URL.String()+" host="+r.Host)
		return &http.Response{StatusCode: 204, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	})
	rt := newAPITransport("http://127.0.0.1:8999/proxy/api/v9", rec)
	for _, u := range []string{
		"https://discord.com/api/v9/channels/1/messages/2/reactions/%F0%9F%94%B4/@me?x=1",
		"https://discord.com/api/v9/gateway",
		"https://cdn.discordapp.com/avatars/1/a.png",
		"https://discord.com/api/v90/gateway",
	} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if req.URL.String() != u {
			t.Errorf("the caller's request was modified: %s", req.URL)
		}
	}
	want := []string{
		"http://127.0.0.1:8999/proxy/api/v9/channels/1/messages/2/reactions/%F0%9F%94%B4/@me?x=1 host=",
		"http://127.0.0.1:8999/proxy/api/v9/gateway host=",
		"https://cdn.discordapp.com/avatars/1/a.png host=cdn.discordapp.com",
		"https://discord.com/api/v90/gateway host=discord.com",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rt := newAPITransport(DefaultDiscordAPI, rec); fmt.Sprintf("%p", rt) != fmt.Sprintf("%p", rec) {
		t.Errorf("the default base should not wrap the transport")
	}
}

// TestDefaultDiscordAPI pins the default that README.md and .env.example
// document to the API version of the discordgo in go.mod.
func TestDefaultDiscordAPI(t *testing.T) {
	if DefaultDiscordAPI != "https://discord.com/api/v9" {
		t.Fatalf("discordgo now speaks %s: update README.md and .env.example", DefaultDiscordAPI)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestInvite(t *testing.T) {
	const perms = "309237664768" // View Channels, Send Messages, Embed Links, Create Public Threads, Send Messages in Threads
	user := "  https://discord.com/oauth2/authorize?client_id=" + fakeAppID + "&integration_type=1&scope=applications.commands\n"
	server := func(query string) string {
		return "Add to a server (the bot joins; every feature):\n  https://discord.com/oauth2/authorize?client_id=" + fakeAppID +
			query + "&integration_type=0&permissions=" + perms + "&scope=bot+applications.commands\n" +
			"Install for yourself (DMs, group DMs, servers without the bot; needs User Install on in the Developer Portal):\n" + user
	}
	r := runWith(t, context.Background(), []string{"invite", "-app-id", fakeAppID}, nil, deps{})
	if want := server(""); r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Fatalf("got exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}

	// Looked up with the token, through CONNECTN_DISCORD_API, in one guild.
	fake, _ := fakeDiscord(t)
	r = runWith(t, context.Background(), []string{"invite", "-guild", guildID},
		map[string]string{"DISCORD_TOKEN": fakeToken, "CONNECTN_DISCORD_API": fake.URL() + "/api/v9"}, deps{newSession: realSession})
	if want := server("&disable_guild_select=true&guild_id=" + guildID); r.code != 0 || r.stdout != want {
		t.Fatalf("got exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
	lines := strings.Split(r.stdout, "\n")
	u, err := url.Parse(strings.TrimSpace(lines[1]))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := strconv.ParseInt(u.Query().Get("permissions"), 10, 64); p != 1<<10|1<<11|1<<14|1<<35|1<<38 {
		t.Errorf("permissions %d, want View Channels, Send Messages, Embed Links, Create Public Threads and Send Messages in Threads", p)
	}
	if s := u.Query().Get("scope"); s != "bot applications.commands" {
		t.Errorf("scope %q, want bot and applications.commands", s)
	}
	u, err = url.Parse(strings.TrimSpace(lines[3]))
	if err != nil {
		t.Fatal(err)
	}
	if q := u.Query(); q.Get("integration_type") != "1" || q.Get("scope") != "applications.commands" || q.Has("permissions") {
		t.Errorf("the user install's query %v, want integration_type 1 and scope applications.commands only", q)
	}
}

// TestRegisterErrorNamesTheURLCalled: when the configured REST base does
// not answer, register's error names the URL really called there, not
// discord.com, where discordgo builds its URLs.
func TestRegisterErrorNamesTheURLCalled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody answers there now
	base := "http://" + addr + "/api/v10"
	r := runWith(t, context.Background(), []string{"register"},
		map[string]string{"DISCORD_TOKEN": fakeToken, "CONNECTN_DISCORD_API": base}, deps{newSession: realSession})
	if r.code != 1 || !strings.Contains(r.stderr, base+"/oauth2/applications/@me") || strings.Contains(r.stderr, "discord.com") {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 naming %s/oauth2/applications/@me and not discord.com", r.code, r.stderr, base)
	}
}

// TestAIWorkers checks the bound of the AI's worker pool: the searches
// never hold every processor, whatever CONNECTN_AI_WORKERS says, so that
// the interaction handlers keep one.
func TestAIWorkers(t *testing.T) {
	tests := []struct {
		name              string
		configured, procs int
		want              int
	}{
		{name: "default on 2 processors", configured: 2, procs: 2, want: 1},
		{name: "default on 8 processors", configured: 2, procs: 8, want: 2},
		{name: "more than the processors", configured: 16, procs: 4, want: 3},
		{name: "as many as the processors", configured: 4, procs: 4, want: 3},
		{name: "one processor", configured: 2, procs: 1, want: 1},
		{name: "one worker", configured: 1, procs: 2, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := aiWorkers(tt.configured, tt.procs); got != tt.want {
				t.Errorf("aiWorkers(%d, %d) = %d, want %d", tt.configured, tt.procs, got, tt.want)
			}
		})
	}
}

// TestRESTConnectionsReused: the bot's REST calls come in bursts to one
// host; a second burst reuses the connections of the first instead of
// opening new ones (http.DefaultTransport keeps only two idle per host:
// with it, this test sees the second burst open eight).
func TestRESTConnectionsReused(t *testing.T) {
	const burst = 10
	var opened atomic.Int64
	release := make(chan struct{})
	var arrived sync.WaitGroup
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		<-release // the whole burst in flight at once
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1","url":"wss://gateway.example"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	a := &app{c: config{discordAPI: srv.URL + "/api/v9"}, d: deps{newSession: realSession}, log: slog.New(slog.DiscardHandler)}
	s, err := a.discordSession()
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		before := opened.Load()
		arrived.Add(burst)
		release = make(chan struct{})
		var done sync.WaitGroup
		for range burst {
			done.Go(func() {
				// The session's client, as discordgo and the bot's own
				// webhook calls use it (its buckets would queue the burst).
				resp, err := s.Client.Get(discordgo.EndpointGateway)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		arrived.Wait()
		close(release)
		done.Wait()
		if n := opened.Load() - before; round == 1 && n != 0 {
			t.Errorf("the second burst of %d calls opened %d connections, want none: the first's kept", burst, n)
		}
	}
}
