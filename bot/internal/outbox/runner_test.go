package outbox

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
)

// TestAfterWorkExpiresOnTheClock: work queued for a response that is never
// delivered is dropped once AfterTTL has passed on the runner's clock (not
// the wall clock), and not before; a delivery after that runs nothing.
func TestAfterWorkExpiresOnTheClock(t *testing.T) {
	clock := clocktest.New()
	r := NewRunner(clock, slog.New(slog.DiscardHandler))
	defer r.Close(context.Background())
	var ran atomic.Int64
	work := []func(context.Context){func(context.Context) { ran.Add(1) }}

	r.Queue("kept", work)
	r.Queue("dropped", work)
	clock.Advance(AfterTTL)
	if n := r.Sweep(); n != 0 {
		t.Fatalf("at exactly AfterTTL, sweep dropped %d; want 0", n)
	}
	r.Delivered("kept")
	clock.Advance(time.Second)
	if n := r.Sweep(); n != 1 {
		t.Fatalf("past AfterTTL, sweep dropped %d; want 1", n)
	}
	r.Delivered("dropped")
	if err := r.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ran.Load(); got != 1 {
		t.Fatalf("%d pieces of work ran; want 1 (the delivered one)", got)
	}
}

// TestLive: an interaction's token serves the board until a minute before
// Discord's limit, and never without an application or a token.
func TestLive(t *testing.T) {
	t0 := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	w := sessions.Webhook{AppID: "app", Token: "tok", Message: "@original", At: t0}
	tests := []struct {
		name string
		w    sessions.Webhook
		at   time.Time
		want bool
	}{
		{"fresh", w, t0.Add(time.Minute), true},
		{"a minute to spare", w, t0.Add(13*time.Minute + 59*time.Second), true},
		{"too close to expiry", w, t0.Add(14 * time.Minute), false},
		{"expired", w, t0.Add(time.Hour), false},
		{"no token", sessions.Webhook{AppID: "app", Message: "@original", At: t0}, t0, false},
		{"no app", sessions.Webhook{Token: "tok", Message: "@original", At: t0}, t0, false},
		{"no message yet (a follow-up to post)", sessions.Webhook{AppID: "app", Token: "tok", At: t0}, t0, true},
	}
	for _, tt := range tests {
		if got := live(tt.w, tt.at); got != tt.want {
			t.Errorf("%s: live = %t, want %t", tt.name, got, tt.want)
		}
	}
}

// closing starts Close on r with an ended context, once work spawned on
// r has started; that work sees its context cancelled, says so on
// cancelled, and waits for release. closing returns when Close waits on
// clk (for cancelWait), and the channel of Close's error.
func closing(t *testing.T, r *Runner, clk *clocktest.Fake, release <-chan struct{}, stopped *atomic.Bool) <-chan error {
	t.Helper()
	started, cancelled := make(chan struct{}), make(chan struct{})
	r.Spawn(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		<-release // the work's last step, after the cancel
		stopped.Store(true)
	})
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	closed := make(chan error, 1)
	go func() { closed <- r.Close(ctx) }()
	<-cancelled
	// The work's own timeout is stopped: the one timer left is Close's.
	wait, cancelWaiting := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancelWaiting()
	if err := clk.BlockUntilContext(wait, 1); err != nil {
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) without waiting for the cancelled work", err)
		default:
			t.Fatalf("Close is not waiting on the clock: %v", err)
		}
	}
	return closed
}

// TestCloseWaitsForCancelledWork: work still running when Close's context
// ends is cancelled, and Close returns only once it has stopped, so that
// nothing it does (a log line) comes after the handler is closed.
func TestCloseWaitsForCancelledWork(t *testing.T) {
	clk := clocktest.New()
	r := NewRunner(clk, slog.New(slog.DiscardHandler))
	var stopped atomic.Bool
	release := make(chan struct{})
	closed := closing(t, r, clk, release, &stopped)
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the cancelled work stopped", err)
	default:
	}
	close(release)
	if err := <-closed; err == nil {
		t.Error("Close = nil, want the error of work still running")
	}
	if !stopped.Load() {
		t.Error("Close returned before the cancelled work stopped")
	}
}

// TestCloseGivesUpOnStuckWork: cancelled work that does not stop holds
// Close for cancelWait on the clock, not longer.
func TestCloseGivesUpOnStuckWork(t *testing.T) {
	clk := clocktest.New()
	r := NewRunner(clk, slog.New(slog.DiscardHandler))
	var stopped atomic.Bool
	release := make(chan struct{})
	defer close(release)
	closed := closing(t, r, clk, release, &stopped)
	clk.Advance(cancelWait)
	if err := <-closed; err == nil {
		t.Error("Close = nil, want the error of work still running")
	}
	if stopped.Load() {
		t.Error("the stuck work stopped; the test proves nothing")
	}
}
