package outbox

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
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
// (attempt): a try that the end of the budget would cut short is not
// started. A try cut short has no answer, which would make a post one
// that may have been made, and, where the bot cannot look, given up.
// Without the rule the last try here has what is left of the budget.
func TestNoTryCutByTheBudget(t *testing.T) {
	const attempt = 200 * time.Millisecond
	p := Retry{Budget: 700 * time.Millisecond, Attempt: attempt, Base: 5 * time.Millisecond, Max: 20 * time.Millisecond}
	var given []time.Duration
	b := &Boards{Retry: p, Metrics: noMetrics{}}
	err := b.deliver(context.Background(), func(ctx context.Context) error {
		dl, _ := ctx.Deadline()
		given = append(given, time.Until(dl))
		time.Sleep(30 * time.Millisecond)
		return &discordgo.RESTError{Response: &http.Response{StatusCode: 500}}
	})
	if err == nil {
		t.Fatal("the failing call reported success")
	}
	if len(given) < 2 {
		t.Fatalf("%d tries, want several within the budget", len(given))
	}
	for k, d := range given {
		if d < attempt-10*time.Millisecond {
			t.Errorf("try %d of %d had %v, want its whole %v", k+1, len(given), d, attempt)
		}
	}
}

// noMetrics records nothing.
type noMetrics struct{}

func (noMetrics) DeadlineFired(string) {}
func (noMetrics) RESTRetry(string)     {}
func (noMetrics) RESTGiveUp(string)    {}
