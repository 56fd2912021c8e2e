package outbox

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connectn/connectn/sessions"
)

// testClock is a settable clock, safe for concurrent use.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestAfterWorkExpiresOnTheClock: work queued for a response that is never
// delivered is dropped once AfterTTL has passed on the runner's clock (not
// the wall clock), and not before; a delivery after that runs nothing.
func TestAfterWorkExpiresOnTheClock(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)}
	r := NewRunner(clock.Now, slog.New(slog.DiscardHandler))
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

// TestCloseWaitsForCancelledWork: work still running when close's context
// ends is cancelled, and close returns only once it has stopped, so that
// nothing it does (a log line) comes after the handler is closed.
func TestCloseWaitsForCancelledWork(t *testing.T) {
	r := NewRunner(time.Now, slog.New(slog.DiscardHandler))
	var stopped atomic.Bool
	started := make(chan struct{})
	r.Spawn(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // the work's last step, after the cancel
		stopped.Store(true)
	})
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := r.Close(ctx); err == nil {
		t.Error("close = nil, want the error of work still running")
	}
	if !stopped.Load() {
		t.Error("close returned before the cancelled work stopped")
	}
}
