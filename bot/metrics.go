package bot

import (
	"time"
)

// Metrics receives what the bot measures. Its methods must be safe for
// concurrent use and fast (they are called on the path of every
// interaction). cmd/connectn passes a Prometheus implementation
// (package metrics); by default nothing is recorded.
type Metrics interface {
	// Interaction records one interaction handled: kind as returned by
	// InteractionKind (a bounded set), outcome one of OutcomeOK,
	// OutcomeRefused or OutcomeFailed, took the time Handle spent.
	Interaction(kind, outcome string, took time.Duration)
	// DeadlineFired records one deadline that expired and was acted on;
	// kind is "challenge" or "turn".
	DeadlineFired(kind string)
	// AIMove records the time the AI took to choose one move at level.
	AIMove(level string, took time.Duration)
	// RESTRetry records one REST call after a response tried again;
	// cause is one of CauseRateLimit, CauseServer, CauseTimeout,
	// CauseReset or CauseLost (a post found made after its answer was
	// lost, so not made again).
	RESTRetry(cause string)
	// RESTGiveUp records one REST call after a response given up after
	// tries, with the cause of its last failure (as for RESTRetry).
	RESTGiveUp(cause string)
}

// The outcomes of an interaction, as passed to Metrics.Interaction.
const (
	OutcomeOK      = "ok"      // answered as asked
	OutcomeRefused = "refused" // a user error, answered privately; nothing changed
	OutcomeFailed  = "failed"  // an internal error, logged and answered with an apology
)

// WithMetrics makes the handler report to m. A nil m records nothing.
func WithMetrics(m Metrics) Option {
	return func(h *Handler) {
		if m != nil {
			h.metrics = m
		}
	}
}

// noMetrics is the Metrics that records nothing, the default.
type noMetrics struct{}

func (noMetrics) Interaction(string, string, time.Duration) {}
func (noMetrics) DeadlineFired(string)                      {}
func (noMetrics) AIMove(string, time.Duration)              {}
func (noMetrics) RESTRetry(string)                          {}
func (noMetrics) RESTGiveUp(string)                         {}
