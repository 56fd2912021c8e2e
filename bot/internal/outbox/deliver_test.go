package outbox

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/internal/clock/clocktest"
)

// TestWaitAfterATimeout: after a try cut off for want of an answer the
// next follows after the base wait, which does not grow; after a server
// error the wait grows to its maximum.
func TestWaitAfterATimeout(t *testing.T) {
	p := Retry{Budget: 15 * time.Second, Attempt: 2 * time.Second, Base: 250 * time.Millisecond, Max: time.Second}
	timeout := fmt.Errorf("post: %w", context.DeadlineExceeded)
	for n := range 5 {
		if got := p.Wait(n, timeout); got != 250*time.Millisecond {
			t.Errorf("wait after timeout %d = %v, want 250ms", n, got)
		}
	}
	server := &discordgo.RESTError{Response: &http.Response{StatusCode: 500}}
	if got := p.Wait(4, server); got != time.Second {
		t.Errorf("wait after the fifth server error = %v, want 1s", got)
	}
}

// TestNoTryCutByTheBudget: every try of a failing call has its whole time
// (Attempt): a try that the end of the budget would cut short is not
// started. A try cut short has no answer, which would make a post one
// that may have been made, and, where the bot cannot look, given up.
// Each try here takes 30 ms on the fake clock; without the rule the last
// one has what is left of the budget.
func TestNoTryCutByTheBudget(t *testing.T) {
	const attempt = 200 * time.Millisecond
	clk := clocktest.New()
	retries := make(chan struct{}, 64)
	b := &Boards{Clock: clk, Metrics: retryMetrics{retries},
		Retry: Retry{Budget: 700 * time.Millisecond, Attempt: attempt, Base: 5 * time.Millisecond, Max: 20 * time.Millisecond}}
	var given []time.Duration
	done := make(chan error, 1)
	go func() {
		done <- b.deliver(context.Background(), func(ctx context.Context) error {
			dl, _ := ctx.Deadline()
			given = append(given, dl.Sub(clk.Now()))
			clk.Advance(30 * time.Millisecond) // the try's time
			return &discordgo.RESTError{Response: &http.Response{StatusCode: 500}}
		})
	}()
	// In step with the tries: after each retry counted, deliver waits (on
	// its budget's timer and the wait's), and the clock moves past the
	// wait.
	var err error
	for finished := false; !finished; {
		select {
		case err = <-done:
			finished = true
		case <-retries:
			if err, finished = clocktest.WaitFor(t, clk, 2, done); !finished {
				clk.Advance(b.Retry.Max)
			}
		}
	}
	if err == nil {
		t.Fatal("the failing call reported success")
	}
	if len(given) < 2 {
		t.Fatalf("%d tries, want several within the budget", len(given))
	}
	for k, d := range given {
		if d != attempt {
			t.Errorf("try %d of %d had %v, want its whole %v", k+1, len(given), d, attempt)
		}
	}
}

// retryMetrics tells each retry on retries.
type retryMetrics struct{ retries chan<- struct{} }

func (retryMetrics) DeadlineFired(string) {}
func (m retryMetrics) RESTRetry(string)   { m.retries <- struct{}{} }
func (retryMetrics) RESTGiveUp(string)    {}
