package main

// The memory phase of -rss: a fresh server with many matches active.

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// memSample is the server's state with so many matches active.
type memSample struct {
	active     int           // matches the load generator opened and left active
	took       time.Duration // to open the matches since the last sample
	failed     int           // matches that failed to open since the last sample
	rss, hwm   int64         // VmRSS and VmHWM, bytes
	goroutines float64       // go_goroutines, -1 when not read
	gauge      float64       // connectn_active_matches, -1 when not read
	limit      float64       // go_gc_gomemlimit_bytes, the Go runtime's memory limit; -1 when not read
}

// memoryPhase starts a fresh server of transport (modeHTTP: `connectn
// serve`; modeGateway: `connectn run`), its deadlines an hour long so that
// nothing expires meanwhile, and opens matches in it, each in a channel of
// its own: challenge, Accept and o.gw.rssMoves moves, then left active; up
// to each figure of o.gw.rss in turn. Once a figure's matches are all
// active and the server's work after them has settled, it reads the
// server's resident memory (/proc/PID/status) and, from its /metrics, its
// goroutines, active matches and memory limit, and prints a row. Then it
// forfeits every match it opened. It returns an error when the server
// cannot be started.
func memoryPhase(ctx context.Context, o *options, logw io.Writer, stdout io.Writer, transport string) error {
	long := []string{"CONNECTN_TURN_TIMEOUT=1h", "CONNECTN_CHALLENGE_TIMEOUT=1h"}
	var (
		e   *env
		who string
	)
	switch transport {
	case modeHTTP:
		oo := *o
		oo.serverEnv = append(append(envList(nil), long...), o.serverEnv...)
		oo.replicas, oo.db, oo.serverLog = 1, "", ""
		var err error
		if e, err = setup(ctx, &oo, logw); err != nil {
			return err
		}
		defer e.close()
		who = "connectn serve"
	default:
		gw, err := setupGateway(ctx, o, logw, "memory", long...)
		if err != nil {
			return err
		}
		defer gw.close()
		e, who = gw.env, "connectn run"
	}
	fmt.Fprintf(stdout, "\n-- resident memory of a fresh %s with matches active (each: challenge, accept, %d moves, left open)\n", who, o.gw.rssMoves)
	// Fixed widths rather than a tabwriter: each row prints once its
	// matches are open, which may take minutes.
	const format = "%14s  %9s  %6s  %10s  %10s  %12s  %10s  %23s\n"
	fmt.Fprintf(stdout, format, "active matches", "opened in", "failed", "VmRSS", "VmHWM", "Go's limit", "goroutines", "connectn_active_matches")
	row := func(s memSample) {
		limit := "n/a"
		if s.limit >= 0 {
			limit = mib(int64(s.limit))
		}
		fmt.Fprintf(stdout, format, strconv.Itoa(s.active), fmt.Sprintf("%.1fs", s.took.Seconds()), strconv.Itoa(s.failed),
			mib(s.rss), mib(s.hwm), limit, num(s.goroutines), num(s.gauge))
	}
	row(e.sample(ctx, 0))
	base := e.chBase
	var slots []*slot
	for _, n := range o.gw.rss {
		start := time.Now()
		batch := make([]*slot, 0, n-len(slots))
		for i := len(slots); i < n; i++ {
			s := newSlot(i, e.c, e.d, base, o.settings, o.seed+uint64(i))
			batch = append(batch, s)
		}
		slots = append(slots, batch...)
		var failed atomic.Int64
		forEach(batch, 256, func(s *slot) {
			for s.phase != phasePlaying || s.rec.moves < o.gw.rssMoves {
				if ctx.Err() != nil || s.step(ctx) != nil {
					failed.Add(1)
					return
				}
			}
		})
		if ctx.Err() != nil {
			break
		}
		s := e.settle(ctx, n)
		s.took, s.failed = time.Since(start), int(failed.Load())
		row(s)
	}
	fmt.Fprintln(stdout, "(VmRSS and VmHWM from /proc/PID/status; the rest from the server's /metrics)")
	// Leave nothing active behind (not measured).
	cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	forEach(slots, 256, func(s *slot) { s.abandon(cleanCtx) })
	return nil
}

// forEach calls f for every slot, from up to workers goroutines, and
// returns when all calls have.
func forEach(slots []*slot, workers int, f func(*slot)) {
	next := make(chan *slot)
	var wg sync.WaitGroup
	for range min(workers, len(slots)) {
		wg.Go(func() {
			for s := range next {
				f(s)
			}
		})
	}
	for _, s := range slots {
		next <- s
	}
	close(next)
	wg.Wait()
}

// settle waits for the server's work after the last responses to end
// (its goroutines no fewer for 2s, 30s at most) and returns the sample
// taken then.
func (e *env) settle(ctx context.Context, active int) memSample {
	s := e.sample(ctx, active)
	low, since := s.goroutines, time.Now()
	for deadline := time.Now().Add(30 * time.Second); time.Since(since) < 2*time.Second && time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(250 * time.Millisecond)
		if s = e.sample(ctx, active); s.goroutines < low {
			low, since = s.goroutines, time.Now()
		}
	}
	return s
}

// sample reads the server's memory and, from its /metrics, its goroutines,
// active matches and memory limit (-1 for what cannot be read).
func (e *env) sample(ctx context.Context, active int) memSample {
	s := memSample{active: active, goroutines: -1, gauge: -1, limit: -1}
	pid := e.pids[0]
	s.rss, _ = procStatus(pid, "VmRSS:")
	s.hwm, _ = procStatus(pid, "VmHWM:")
	m, err := scrape(ctx, "http://"+e.srv.addr+"/metrics")
	if err != nil {
		return s
	}
	if v, ok := m["go_goroutines"]; ok {
		s.goroutines = v
	}
	if v, ok := m["connectn_active_matches"]; ok {
		s.gauge = v
	}
	if v, ok := m["go_gc_gomemlimit_bytes"]; ok && v < 1<<62 {
		s.limit = v
	}
	return s
}
