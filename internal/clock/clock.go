// Package clock is the one clock of ConnectN's code: the time now, timers
// and functions run after a delay (Now, NewTimer, AfterFunc, as Tailscale's
// tstime.Clock has them), so that every part that reasons about time (the
// scheduler, the waits between tries, Discord's global rate limit, the
// stores' timestamps) runs on one clock that a test replaces with one fake
// (package clocktest). The timers are github.com/jonboulle/clockwork's;
// Sleep and WithTimeout are the two waits built on a Clock.
package clock

import (
	"context"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// Clock tells the time and makes timers on it.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the time on its channel once d
	// has passed.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine once d has passed, unless
	// the returned timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a timer of a Clock: Chan in place of time.Timer's C.
type Timer = clockwork.Timer

// Real returns the system clock.
func Real() Clock { return system{} }

// OrReal returns c, or the system clock for nil.
func OrReal(c Clock) Clock {
	if c == nil {
		return system{}
	}
	return c
}

// system is the system clock (package time).
type system struct{}

func (system) Now() time.Time                            { return time.Now() }
func (system) NewTimer(d time.Duration) Timer            { return realTimer{time.NewTimer(d)} }
func (system) AfterFunc(d time.Duration, f func()) Timer { return realTimer{time.AfterFunc(d, f)} }

// realTimer is a time.Timer as a Timer.
type realTimer struct{ *time.Timer }

func (t realTimer) Chan() <-chan time.Time { return t.C }

// Since returns the time passed on c since t.
func Since(c Clock, t time.Time) time.Duration { return c.Now().Sub(t) }

// Sleep waits for d to pass on c and reports true, or reports false as
// soon as ctx ends first. For d <= 0 it returns true at once.
func Sleep(ctx context.Context, c Clock, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.Chan():
		return true
	}
}

// WithTimeout returns a copy of parent that ends once d has passed on c,
// as context.WithTimeout does on the system clock (which it is, for the
// system clock): its Deadline is c's now plus d, or parent's when that
// comes first, and its Err is context.DeadlineExceeded once the deadline
// has passed on c, context.Canceled after cancel, or parent's error when
// parent ends first. cancel releases its timer; call it when done.
// (clockwork's own WithTimeout is not used: its Err blocks while the
// context is alive.)
func WithTimeout(parent context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := c.(system); ok {
		return context.WithTimeout(parent, d)
	}
	deadline := c.Now().Add(d)
	if dl, ok := parent.Deadline(); ok && !dl.After(deadline) {
		return context.WithCancel(parent) // the parent's deadline comes first
	}
	ctx := &timeoutCtx{parent: parent, deadline: deadline, done: make(chan struct{})}
	if d <= 0 {
		ctx.end(context.DeadlineExceeded)
		return ctx, func() {}
	}
	ctx.mu.Lock() // the timer's function waits until the timer is recorded
	ctx.timer = c.AfterFunc(d, func() { ctx.end(context.DeadlineExceeded) })
	ctx.mu.Unlock()
	go func() {
		select {
		case <-parent.Done():
			ctx.end(parent.Err())
		case <-ctx.done:
		}
	}()
	return ctx, func() { ctx.end(context.Canceled) }
}

// timeoutCtx is a context that ends at a deadline on a Clock other than
// the system's.
type timeoutCtx struct {
	parent   context.Context
	deadline time.Time
	done     chan struct{}
	timer    Timer

	mu  sync.Mutex
	err error
}

func (c *timeoutCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *timeoutCtx) Done() <-chan struct{}       { return c.done }
func (c *timeoutCtx) Value(key any) any           { return c.parent.Value(key) }

func (c *timeoutCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// end ends the context with err, once.
func (c *timeoutCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if c.timer != nil {
		c.timer.Stop() // before Done: whoever sees it ended sees no timer left
	}
	c.err = err
	close(c.done)
}
