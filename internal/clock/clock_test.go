package clock_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// TestOneClock: the code of the bot and of the stores reads the time and
// waits only through a Clock, so that a test's fake rules all of it: no
// call of package time's clock outside package clock. Without the rule, a
// time.After in a wait or a time.Now in a store's timestamp would slip
// past the fake unseen.
func TestOneClock(t *testing.T) {
	wallClock := regexp.MustCompile(`\btime\.(Now|Since|Until|After|AfterFunc|Sleep|Tick|NewTicker|NewTimer)\(`)
	for _, root := range []string{"../../bot", "../../sessions"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// discordtest (a fake Discord) and sessionstest (the stores'
			// contract suite) are tests' code, not the bot's.
			if d.IsDir() && (d.Name() == "discordtest" || d.Name() == "sessionstest") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for k, line := range strings.Split(string(b), "\n") {
				if code, _, _ := strings.Cut(line, "//"); wallClock.MatchString(code) {
					t.Errorf("%s:%d reads the wall clock: %s", path, k+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
