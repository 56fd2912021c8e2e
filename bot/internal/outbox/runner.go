package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/connectn/connectn/internal/clock"
)

// Timing of the work after a response.
const (
	// workTimeout bounds one piece of background work.
	workTimeout = 30 * time.Second
	// AfterTTL is how long work queued for Delivered waits before it is
	// dropped (a transport that never delivered the response); the
	// scheduler still does the durable part of it.
	AfterTTL = time.Minute
	// dueBatch is how many due sessions RunDue settles at most per call.
	dueBatch = 100
)

// Runner runs the bot's work outside the responses, on the handler's
// clock: the work queued until an interaction's response is delivered
// (posting the next round's board, learning a new message's ID), the
// scheduler's ticks, and the background goroutines both start, which
// Close and WaitIdle wait for.
type Runner struct {
	clock clock.Clock
	log   *slog.Logger

	mu      sync.Mutex
	pending map[string]*afterTask // by interaction ID
	// idle is closed, and replaced, each time the Runner may have become
	// idle (WaitIdle).
	idle chan struct{}

	work     sync.WaitGroup
	running  atomic.Int64
	ctx      context.Context
	stop     context.CancelFunc
	stopOnce sync.Once
}

// afterTask is the work waiting for one interaction's response.
type afterTask struct {
	queued time.Time
	fns    []func(context.Context)
}

// NewRunner returns a Runner on clock c that logs to log.
func NewRunner(c clock.Clock, log *slog.Logger) *Runner {
	r := &Runner{clock: c, log: log, pending: map[string]*afterTask{}, idle: make(chan struct{})}
	r.ctx, r.stop = context.WithCancel(context.Background())
	return r
}

// Queue holds fns until the response to interaction id is delivered.
func (r *Runner) Queue(id string, fns []func(context.Context)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.pending[id]
	if t == nil {
		t = &afterTask{queued: r.clock.Now()}
		r.pending[id] = t
	}
	t.fns = append(t.fns, fns...)
}

// Delivered starts the work queued for interaction id, in the background.
func (r *Runner) Delivered(id string) {
	r.running.Add(1) // before the queue forgets the work, for WaitIdle
	defer r.stopped()
	r.mu.Lock()
	t := r.pending[id]
	delete(r.pending, id)
	r.mu.Unlock()
	if t == nil {
		return
	}
	for _, fn := range t.fns {
		r.Spawn(fn)
	}
}

// Undelivered drops the work queued for interaction id.
func (r *Runner) Undelivered(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pending, id)
	r.wakeLocked()
}

// Sweep drops work queued more than AfterTTL ago by the runner's clock,
// and returns how much it dropped.
func (r *Runner) Sweep() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for id, t := range r.pending {
		if r.clock.Now().Sub(t.queued) > AfterTTL {
			delete(r.pending, id)
			n++
		}
	}
	r.wakeLocked()
	return n
}

// Spawn runs fn in the background with a bounded context, logging a panic
// instead of crashing.
func (r *Runner) Spawn(fn func(context.Context)) {
	r.work.Add(1)
	r.running.Add(1)
	go func() {
		defer r.work.Done()
		defer r.stopped()
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("panic in background work", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
		}()
		ctx, cancel := clock.WithTimeout(r.ctx, r.clock, workTimeout)
		defer cancel()
		fn(ctx)
	}()
}

// Every calls tick at once, then every interval on the clock (as a
// ticker would: interval after the previous call began, or at once when
// that call took longer), until ctx ends.
func (r *Runner) Every(ctx context.Context, interval time.Duration, tick func(context.Context)) {
	t := r.clock.NewTimer(interval)
	defer t.Stop()
	for {
		tick(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.Chan():
			t.Reset(interval)
		}
	}
}

// Close waits for the background work to finish, or for ctx to end; then
// it cancels what is left and waits up to cancelWait for it to stop (work
// that honours its context returns at once: a REST call, deliver's
// tries), returning ctx's error if the work did not finish in time.
func (r *Runner) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		r.work.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("close handler: background work still running: %w", ctx.Err())
	}
	r.stopOnce.Do(r.stop)
	if err != nil {
		t := r.clock.NewTimer(cancelWait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.Chan():
		}
	}
	return err
}

// cancelWait bounds the wait in Close for the background work it cancelled.
const cancelWait = 2 * time.Second

// WaitIdle waits until no work waits for a delivery and none runs, or
// until ctx ends (returning its error).
func (r *Runner) WaitIdle(ctx context.Context) error {
	for {
		r.mu.Lock()
		queued, idle := len(r.pending), r.idle
		r.mu.Unlock()
		if queued == 0 && r.running.Load() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the handler's work: %w", ctx.Err())
		case <-idle:
		}
	}
}

// stopped counts a piece of work stopped and wakes WaitIdle.
func (r *Runner) stopped() {
	r.running.Add(-1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wakeLocked()
}

// wakeLocked wakes WaitIdle, which looks again whether the Runner is
// idle; r.mu is held.
func (r *Runner) wakeLocked() {
	close(r.idle)
	r.idle = make(chan struct{})
}
