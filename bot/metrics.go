package bot

import "time"

// Metrics receives what the bot measures; the Prometheus implementation
// lives outside bot. Methods must be safe for concurrent use and quick.
type Metrics interface {
	// Interaction counts one handled interaction: kind names the command,
	// button or interaction type ("command:challenge", "button:drop",
	// "ping"), outcome is "ok", "refused" (a user error answered
	// privately) or "failed" (our failure, answered with an apology), and
	// took is the time Handle spent.
	Interaction(kind, outcome string, took time.Duration)
	// DeadlineFired counts a deadline that passed: kind is "challenge" or
	// "turn".
	DeadlineFired(kind string)
	// AIMove records the time the AI took for one move at level.
	AIMove(level string, took time.Duration)
}

// WithMetrics makes the handler report to m.
func WithMetrics(m Metrics) Option {
	return func(h *Handler) {
		if m != nil {
			h.metrics = m
		}
	}
}

// noMetrics is the Metrics that records nothing.
type noMetrics struct{}

func (noMetrics) Interaction(string, string, time.Duration) {}
func (noMetrics) DeadlineFired(string)                      {}
func (noMetrics) AIMove(string, time.Duration)              {}
