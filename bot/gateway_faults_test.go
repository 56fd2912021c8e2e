package bot_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/internal/clock/clocktest"
)

// gatewayRun is a Gateway running against a fake Discord.
type gatewayRun struct {
	fake *discordtest.Server
	g    *transport.Gateway
	log  *syncBuffer

	mu     sync.Mutex
	states []bool // every change OnState reported
}

func (r *gatewayRun) statesSince(n int) []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bool(nil), r.states[n:]...)
}

func (r *gatewayRun) stateCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.states)
}

// startGateway runs a Gateway on a session of fake, built by setup when
// set, until the test ends; Run's error goes to done.
func startGateway(t *testing.T, fake *discordtest.Server, setup func(*discordgo.Session, *transport.Gateway)) (*gatewayRun, <-chan error) {
	t.Helper()
	c := clocktest.New()
	store, _ := mustOpenStore(t, c)
	s, err := fake.NewSession(gatewayToken)
	if err != nil {
		t.Fatal(err)
	}
	h := bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(c), bot.WithMessenger(bot.NewDiscordMessenger(s)), bot.WithSeed(1))
	r := &gatewayRun{fake: fake, log: &syncBuffer{}}
	r.g = &transport.Gateway{Session: s, Handler: h, Commands: bot.Commands(), OnReady: h.SetBotUser, Log: slog.New(slog.NewTextHandler(r.log, nil)),
		RetryWait: 10 * time.Millisecond, MaxRetryWait: 40 * time.Millisecond,
		OnState: func(up bool) {
			r.mu.Lock()
			r.states = append(r.states, up)
			r.mu.Unlock()
			changed.notify()
		}}
	if setup != nil {
		setup(s, r.g)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.g.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("Gateway.Run did not return within 15s of cancel")
		}
		h.Close(context.Background())
	})
	return r, done
}

// answered dispatches a /connectn help over the gateway and fails the test
// unless the bot answers it.
func (r *gatewayRun) answered(t *testing.T) {
	t.Helper()
	e := from(alice)
	if err := r.fake.DispatchInteractionJSON(discordtest.Slash(e, "connectn", "help")); err != nil {
		t.Fatalf("dispatch: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := r.fake.WaitResponse(ctx, e.ID)
	if err != nil {
		t.Fatalf("no answer to an interaction dispatched after the gateway is back: %v", err)
	}
	if resp.Data == nil || !strings.Contains(resp.Data.Content+embedText(resp.Data.Embeds), "/connectn") {
		t.Errorf("answer = %+v, want the help", resp.Data)
	}
}

func embedText(es []*discordgo.MessageEmbed) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Title + e.Description)
		for _, f := range e.Fields {
			b.WriteString(f.Name + f.Value)
		}
	}
	return b.String()
}

// waitFor waits until ok, looking again at each change a test can wait
// for (a state the gateway reported, a line logged): 15 s at most.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	timeout := time.NewTimer(15 * time.Second)
	defer timeout.Stop()
	for {
		next := changed.next()
		if ok() {
			return
		}
		select {
		case <-next:
		case <-timeout.C:
			t.Fatalf("%s: not within 15s", what)
		}
	}
}

// changed tells the changes waitFor waits for.
var changed = newSignal()

// signal wakes whoever waits for the next change.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

// next returns a channel closed at the next notify.
func (s *signal) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// notify wakes whoever waits.
func (s *signal) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.ch)
	s.ch = make(chan struct{})
}

// TestGatewayFaults injects each fault of Discord's gateway into a
// connected bot, then checks that the bot came back the way discordgo
// does it (a RESUME, or a new IDENTIFY where the session is gone or
// discordgo re-identifies), that it reported the gateway down and up again
// when the connection was lost, and that it answers an interaction
// dispatched after it is back. Without Gateway.Run's own reconnection
// (discordgo's ShouldReconnectOnError off, as fake sessions and Run set
// it) the bot never comes back and every row fails.
func TestGatewayFaults(t *testing.T) {
	tests := []struct {
		name   string
		inject func(*discordtest.Server) error
		// The IDENTIFY and RESUME payloads that bring the bot back.
		identifies, resumes int
		// lost is whether the connection closes (readiness goes false);
		// INVALID_SESSION keeps the connection and discordgo emits no
		// event for it.
		lost bool
	}{
		{"close 1000", func(f *discordtest.Server) error { return f.CloseGateway(1000) }, 0, 1, true},
		{"close 1001", func(f *discordtest.Server) error { return f.CloseGateway(1001) }, 0, 1, true},
		{"close 4000 unknown error", func(f *discordtest.Server) error { return f.CloseGateway(4000) }, 0, 1, true},
		// discordgo resumes whatever the code; the fake, as Discord, answers
		// INVALID_SESSION false, and discordgo identifies.
		{"close 4009 session timed out", func(f *discordtest.Server) error { return f.CloseGateway(4009) }, 1, 1, true},
		{"RECONNECT", (*discordtest.Server).SendReconnect, 0, 1, true},
		// Discord would accept a RESUME here; discordgo identifies.
		{"INVALID_SESSION resumable", func(f *discordtest.Server) error { return f.SendInvalidSession(true) }, 1, 0, false},
		{"INVALID_SESSION not resumable", func(f *discordtest.Server) error { return f.SendInvalidSession(false) }, 1, 0, false},
		// discordgo closes with 1000, which ends the session: its RESUME
		// is refused and it identifies.
		{"heartbeats not acknowledged", func(f *discordtest.Server) error {
			if f.StopHeartbeatACKs() == 0 {
				return errors.New("no connection")
			}
			return nil
		}, 1, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Discord's heartbeat interval but where the test waits for
			// heartbeats to go unacknowledged: with a short one, the
			// heartbeat of a connection lost otherwise may fail while
			// discordgo closes it, and close the next one too (a discordgo
			// race), which would blur the counts.
			var opts []discordtest.Option
			if tt.name == "heartbeats not acknowledged" {
				opts = append(opts, discordtest.WithHeartbeatInterval(50*time.Millisecond))
			}
			fake := newFake(t, clocktest.New(), opts...)
			r, done := startGateway(t, fake, nil)
			waitFor(t, "connected", r.g.Connected)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := fake.WaitConnections(ctx, 1); err != nil {
				t.Fatal(err)
			}
			r.answered(t)
			identifies, resumes, states := fake.Identifies(), fake.Resumes(), r.stateCount()

			if err := tt.inject(fake); err != nil {
				t.Fatalf("inject: %v", err)
			}
			if err := fake.WaitGatewayCounts(ctx, identifies+tt.identifies, resumes+tt.resumes); err != nil {
				t.Fatalf("the bot did not come back: %v (IDENTIFY %d, RESUME %d since the fault)\n%s",
					err, fake.Identifies()-identifies, fake.Resumes()-resumes, r.log.String())
			}
			if err := fake.WaitConnections(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if tt.lost {
				ok := func() bool {
					s := r.statesSince(states)
					return len(s) >= 2 && !s[0] && s[len(s)-1]
				}
				waitFor(t, "down then ready again", ok)
				if !ok() {
					t.Fatalf("readiness went %v since the fault\n%s", r.statesSince(states), r.log.String())
				}
			}
			r.answered(t)
			if got, want := fake.Identifies()-identifies, tt.identifies; got != want {
				t.Errorf("IDENTIFY payloads after the fault = %d, want %d", got, want)
			}
			if got, want := fake.Resumes()-resumes, tt.resumes; got != want {
				t.Errorf("RESUME payloads after the fault = %d, want %d", got, want)
			}
			select {
			case err := <-done:
				t.Fatalf("Run returned %v", err)
			default:
			}
		})
	}
}

// failingTransport fails the first n requests as an unreachable host does.
type failingTransport struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (f *failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if f.n.Add(-1) >= 0 {
		return nil, errors.New("dial tcp 192.0.2.1:443: connect: connection refused")
	}
	return f.next.RoundTrip(req)
}

// TestGatewayStartRetries starts the bot while Discord cannot be reached:
// it tries again, with one log line per failed attempt naming the URL
// really called (API), is not ready meanwhile, and connects once Discord
// answers.
func TestGatewayStartRetries(t *testing.T) {
	fake := newFake(t, clocktest.New())
	ft := &failingTransport{}
	ft.n.Store(3)
	r, done := startGateway(t, fake, func(s *discordgo.Session, g *transport.Gateway) {
		ft.next = s.Client.Transport
		s.Client.Transport = ft
		g.API = "http://discord.example/api/v9"
	})
	waitFor(t, "connected", r.g.Connected)
	r.answered(t)
	lines := strings.Count(r.log.String(), "cannot reach Discord; will try again")
	if lines != 3 {
		t.Errorf("%d retry lines, want 3:\n%s", lines, r.log.String())
	}
	for _, want := range []string{`url=http://discord.example/api/v9/gateway/bot`, "retry_in=10ms", "retry_in=20ms", "retry_in=40ms", "attempt=3"} {
		if !strings.Contains(r.log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, r.log.String())
		}
	}
	if strings.Contains(r.log.String(), "discord.com") {
		t.Errorf("the log names discord.com, not the URL called:\n%s", r.log.String())
	}
	if s := r.statesSince(0); len(s) != 1 || !s[0] {
		t.Errorf("states = %v, want only true once connected", s)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v", err)
	default:
	}
}

// TestGatewayStartStops checks that a cancelled context ends Run at once
// while it waits to try again, with nil.
func TestGatewayStartStops(t *testing.T) {
	fake := newFake(t, clocktest.New())
	ft := &failingTransport{}
	ft.n.Store(1 << 40)
	c := clocktest.New()
	store, _ := mustOpenStore(t, c)
	s, err := fake.NewSession(gatewayToken)
	if err != nil {
		t.Fatal(err)
	}
	ft.next = s.Client.Transport
	s.Client.Transport = ft
	var log syncBuffer
	g := &transport.Gateway{Session: s, Handler: bot.NewHandler(store, slog.New(slog.DiscardHandler)), Log: slog.New(slog.NewTextHandler(&log, nil)),
		RetryWait: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	waitFor(t, "a failed attempt", func() bool { return strings.Contains(log.String(), "will try again") })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Run still waits 1s after its context ended")
	}
}

// TestGatewayTokenRefused checks that a token Discord refuses stops Run
// at once with an error that says so, instead of retrying.
func TestGatewayTokenRefused(t *testing.T) {
	fake := newFake(t, clocktest.New())
	store, _ := mustOpenStore(t, clocktest.New())
	for _, count := range []int{0, 1} { // GET /gateway/bot refuses; the gateway closes with 4004
		s, err := fake.NewSession("not-the-token")
		if err != nil {
			t.Fatal(err)
		}
		g := &transport.Gateway{Session: s, Handler: bot.NewHandler(store, slog.New(slog.DiscardHandler)), Log: slog.New(slog.DiscardHandler),
			ShardCount: count, API: "http://discord.example/api/v9"}
		done := make(chan error, 1)
		go func() { done <- g.Run(context.Background()) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "DISCORD_TOKEN") {
				t.Errorf("shard count %d: Run = %v, want the token refused", count, err)
			}
			if count == 0 && !strings.Contains(err.Error(), "HTTP 401 from http://discord.example/api/v9/gateway/bot") {
				t.Errorf("Run = %v, want the URL called", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("shard count %d: Run still runs 10s after a bad token", count)
		}
	}
}
