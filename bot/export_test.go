package bot

import (
	"context"
	"time"
)

// WithRetry shortens the tries of REST calls after a response for tests:
// budget in all, attempt per try, waits doubling from base.
func WithRetry(budget, attempt, base time.Duration) Option {
	return func(h *Handler) { h.retry = retryPolicy{budget: budget, attempt: attempt, base: base, max: 4 * base} }
}

// RetryPolicy exposes a retry policy for the tests of its waits.
type RetryPolicyForTest = retryPolicy

// RetryPolicy returns the policy with the given bounds.
func RetryPolicy(budget, attempt, base, max time.Duration) RetryPolicyForTest {
	return retryPolicy{budget: budget, attempt: attempt, base: base, max: max}
}

// Wait is retryWait.
func (p retryPolicy) Wait(n int, err error) time.Duration { return p.retryWait(n, err) }

// Deliver runs fn through the tries of p, as boards.deliver does.
func Deliver(ctx context.Context, p RetryPolicyForTest, fn func(ctx context.Context) error) error {
	b := &boards{retry: p, metrics: noMetrics{}}
	return b.deliver(ctx, fn)
}
