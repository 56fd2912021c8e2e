// Package clocktest is the one fake clock of ConnectN's tests: a
// clockwork.FakeClock (a clock.Clock) that moves only when the test
// advances it, with the timers made on it firing in order as it passes
// them. Tests never sleep for real: they advance the fake, and wait for a
// goroutine to be waiting on it with BlockUntilContext.
package clocktest

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

// Fake is the fake clock.
type Fake = clockwork.FakeClock

// Start is when a New fake clock starts: the evening of the recorded
// session (bot/testdata/replay).
var Start = time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)

// New returns a fake clock at Start.
func New() *Fake { return clockwork.NewFakeClockAt(Start) }

// At returns a fake clock at t.
func At(t time.Time) *Fake { return clockwork.NewFakeClockAt(t) }

// WaitFor waits until at least n timers wait on f, or a value comes on
// done: it returns that value and true, or false once the timers wait (n
// counts the timers of code that waits on f in another goroutine, so
// that the test advances f only when that code is waiting). It fails tb
// when neither happens within 10 s of real time.
func WaitFor[T any](tb testing.TB, f *Fake, n int, done <-chan T) (T, bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	waiting := make(chan error, 1)
	go func() { waiting <- f.BlockUntilContext(ctx, n) }()
	select {
	case v := <-done:
		return v, true
	case err := <-waiting:
		if err != nil {
			tb.Fatalf("clocktest: %d timers never waited on the clock, and nothing was done: %v", n, err)
		}
		var zero T
		return zero, false
	}
}
