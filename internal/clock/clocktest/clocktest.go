// Package clocktest is the one fake clock of ConnectN's tests: a
// clockwork.FakeClock (a clock.Clock) that moves only when the test
// advances it, with the timers made on it firing in order as it passes
// them. Tests never sleep for real: they advance the fake, and wait for a
// goroutine to be waiting on it with BlockUntilContext.
package clocktest

import (
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
