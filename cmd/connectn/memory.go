package main

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// defaultMemoryLimit is CONNECTN_MEMORY_LIMIT's default: the Go runtime's
// memory that `run` and `serve` aim to stay within. With it, `connectn
// serve` on SQLite stays under 64 MiB resident at 50 busy matches with a
// margin (the program's code and data, about 26 MiB of it touched, and
// SQLite's page cache come on top: 57-60 MiB at 28 MiB, 62-64 MiB at 32 MiB,
// whose margin was too thin; the move's CPU did not measurably change);
// docs/self-hosting.md has the figures at 10, 1,000 and 10,000 matches.
const defaultMemoryLimit = "28MiB"

// minMemoryLimit is the smallest CONNECTN_MEMORY_LIMIT: the bot keeps
// about 7 MiB live at rest (its text catalog in 17 languages, the AI's
// opening book, the runtime's own), and a smaller limit would have it
// collect without end.
const minMemoryLimit = 16 << 20

// memoryUnits are the units of a memory size, as GOMEMLIMIT takes them.
var memoryUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// parseMemoryLimit reads CONNECTN_MEMORY_LIMIT into *dst: off (0: no
// limit), or a whole number followed by one of GOMEMLIMIT's units (B,
// KiB, MiB, GiB, TiB), at least minMemoryLimit. It returns what is wrong
// with v, or "".
func parseMemoryLimit(v string, dst *int64) string {
	const want = "want a size such as 32MiB or 1GiB (a whole number and B, KiB, MiB, GiB or TiB; at least 16MiB), or off"
	if strings.EqualFold(v, "off") {
		*dst = 0
		return ""
	}
	for _, u := range memoryUnits {
		digits, ok := strings.CutSuffix(v, u.suffix)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64>>u.shift {
			return want
		}
		if n<<u.shift < minMemoryLimit {
			return "is below 16MiB, which the bot keeps at rest: " + want
		}
		*dst = n << u.shift
		return ""
	}
	return want
}

// formatMemory writes a size in MiB, for the log.
func formatMemory(n int64) string { return fmt.Sprintf("%.0fMiB", float64(n)/(1<<20)) }

// memorySlack is what memoryGovernor adds to twice the live heap: the
// goroutines' stacks and the runtime's own structures, which the Go
// runtime counts against its limit.
const memorySlack = 8 << 20

// memoryGovernor holds the Go runtime's soft memory limit
// (debug.SetMemoryLimit) at limit, or above it when the heap the bot keeps
// live needs more: at least twice the live heap plus memorySlack. Below
// the limit the garbage collector runs as the GC percentage says (400, see
// botGCPercent); at the limit it runs as often as staying there needs,
// which costs CPU in proportion to the live heap over the room left. A bot
// that must keep more than the limit allows (10,000 matches being played,
// the AI's tables of CONNECTN_AI_MEMORY) then grows as it would with
// GOGC=100, instead of collecting all the time (up to half the CPU, the
// runtime's own cap). The idea is GOMEMLIMIT's own advice: a limit with
// room above what is live (https://go.dev/doc/gc-guide#Memory_limit).
type memoryGovernor struct {
	limit int64                // the owner's limit, bytes
	set   func(int64) int64    // debug.SetMemoryLimit
	live  func() int64         // the heap live after the last collection, bytes
	cur   int64                // the limit set last; 0 before the first adjust
	moved func(from, to int64) // called when the limit set changes, for the log; may be nil
}

// newMemoryGovernor returns a governor of the process's runtime with the
// owner's limit (bytes, > 0).
func newMemoryGovernor(limit int64) *memoryGovernor {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return &memoryGovernor{limit: limit, set: debug.SetMemoryLimit, live: func() int64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64())
	}}
}

// adjust sets the runtime's limit to what the live heap needs now: the
// owner's limit, or twice the live heap plus memorySlack when that is more.
// A change of less than an eighth of the limit set is let pass (the live
// heap moves with every collection), unless the live heap needs more room.
func (g *memoryGovernor) adjust() {
	want := max(g.limit, 2*g.live()+memorySlack)
	if want == g.cur || (want < g.cur && g.cur-want < g.cur/8) {
		return
	}
	g.set(want)
	if g.moved != nil && g.cur != 0 {
		g.moved(g.cur, want)
	}
	g.cur = want
}

// run adjusts the limit every interval until ctx ends.
func (g *memoryGovernor) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			g.adjust()
		}
	}
}

// governorInterval is how often the memory governor looks at the live heap.
const governorInterval = time.Second

// limitMemory applies CONNECTN_MEMORY_LIMIT to the process for a bot
// command, unless it is off or GOMEMLIMIT is in the environment (the
// runtime then holds that limit, and the bot leaves it alone): it starts a
// memoryGovernor until ctx ends. The returned function stops it and puts
// the runtime's limit back as it was.
func (a *app) limitMemory(ctx context.Context) (stop func()) {
	if a.c.memoryLimit <= 0 || a.d.getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	g := newMemoryGovernor(a.c.memoryLimit)
	before := debug.SetMemoryLimit(-1)
	g.moved = func(from, to int64) {
		a.log.Debug("memory limit moved with the live heap", "from", formatMemory(from), "to", formatMemory(to),
			"configured", formatMemory(g.limit))
	}
	g.adjust()
	a.log.Info("memory limit", "limit", formatMemory(g.cur), "configured", formatMemory(g.limit))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.run(ctx, governorInterval)
	}()
	return func() {
		cancel()
		<-done
		debug.SetMemoryLimit(before)
	}
}
