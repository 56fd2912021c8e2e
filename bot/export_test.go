package bot

import (
	"time"

	"github.com/connectn/connectn/bot/internal/outbox"
)

// WithRetry shortens the tries of REST calls after a response for tests:
// budget in all, attempt per try, waits doubling from base.
func WithRetry(budget, attempt, base time.Duration) Option {
	return func(h *Handler) {
		h.retry = outbox.Retry{Budget: budget, Attempt: attempt, Base: base, Max: 4 * base}
	}
}
