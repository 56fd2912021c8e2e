package bot

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
)

// TestRunDueSweeps: the scheduler's tick drops the expired after-work of
// the handler, by the handler's clock.
func TestRunDueSweeps(t *testing.T) {
	clock := clocktest.New()
	h := NewHandler(emptyStore{}, slog.New(slog.DiscardHandler), WithClock(clock))
	defer h.Close(context.Background())
	h.run.Queue("never delivered", []func(context.Context){func(context.Context) {}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := h.WaitIdle(ctx); err == nil {
		t.Fatal("WaitIdle returned with work still queued")
	}
	clock.Advance(outbox.AfterTTL + time.Second)
	if _, err := h.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.WaitIdle(ctx); err != nil {
		t.Fatalf("the expired work is still queued after RunDue: %v", err)
	}
}

// emptyStore is a store with no session: only Due is called on it.
type emptyStore struct{ sessions.Store }

func (emptyStore) Due(context.Context, time.Time, int) ([]string, error) { return nil, nil }
