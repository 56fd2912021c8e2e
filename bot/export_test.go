package bot

import "time"

// WithRetry shortens the tries of REST calls after a response for tests:
// budget in all, attempt per try, waits doubling from base.
func WithRetry(budget, attempt, base time.Duration) Option {
	return func(h *Handler) { h.retry = retryPolicy{budget: budget, attempt: attempt, base: base, max: 4 * base} }
}
