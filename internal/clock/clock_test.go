package clock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/internal/clock/clocktest"
)

// waitDone waits (in real time, bounded) for ctx to end after the fake
// clock fired its timer, whose function runs in a goroutine of its own.
func waitDone(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the context did not end")
	}
}

func TestWithTimeoutOnTheFake(t *testing.T) {
	t.Run("ends at its deadline on the clock, not before", func(t *testing.T) {
		c := clocktest.New()
		ctx, cancel := clock.WithTimeout(context.Background(), c, time.Second)
		defer cancel()
		if dl, ok := ctx.Deadline(); !ok || !dl.Equal(clocktest.Start.Add(time.Second)) {
			t.Fatalf("deadline %v, %t; want Start+1s", dl, ok)
		}
		c.Advance(999 * time.Millisecond)
		if err := ctx.Err(); err != nil {
			t.Fatalf("Err before the deadline = %v, want nil", err)
		}
		c.Advance(time.Millisecond)
		waitDone(t, ctx)
		if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err after the deadline = %v, want DeadlineExceeded", err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := clock.WithTimeout(context.Background(), clocktest.New(), time.Second)
		cancel()
		waitDone(t, ctx)
		if err := ctx.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("Err = %v, want Canceled", err)
		}
	})
	t.Run("the parent ends first", func(t *testing.T) {
		parent, stop := context.WithCancel(context.Background())
		ctx, cancel := clock.WithTimeout(parent, clocktest.New(), time.Second)
		defer cancel()
		stop()
		waitDone(t, ctx)
		if err := ctx.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("Err = %v, want the parent's Canceled", err)
		}
	})
	t.Run("the parent's deadline comes first", func(t *testing.T) {
		c := clocktest.New()
		parent, stop := clock.WithTimeout(context.Background(), c, time.Second)
		defer stop()
		ctx, cancel := clock.WithTimeout(parent, c, time.Hour)
		defer cancel()
		if dl, _ := ctx.Deadline(); !dl.Equal(clocktest.Start.Add(time.Second)) {
			t.Fatalf("deadline %v, want the parent's", dl)
		}
		c.Advance(time.Second)
		waitDone(t, ctx)
		if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err = %v, want DeadlineExceeded", err)
		}
	})
}

func TestSleepOnTheFake(t *testing.T) {
	c := clocktest.New()
	done := make(chan bool)
	go func() { done <- clock.Sleep(context.Background(), c, time.Minute) }()
	if err := c.BlockUntilContext(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)
	if !<-done {
		t.Fatal("Sleep reported false after its time passed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if clock.Sleep(ctx, c, time.Minute) {
		t.Fatal("Sleep reported true for an ended context")
	}
	if !clock.Sleep(ctx, c, 0) {
		t.Fatal("Sleep(0) reported false")
	}
}
