package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/connectn/connectn/sessions/sqlite"
)

// soakOptions are the flags of soak mode.
type soakOptions struct {
	duration time.Duration // 0: no soak
	every    time.Duration // between two samples
	abandon  float64       // share of matches the players walk away from, 0 to 1
	timeout  time.Duration // the spawned server's turn and challenge timeouts
}

// The noise bounds of the soak's verdict: growth of the median between
// the first window and the last one beyond these fails.
const (
	soakRSSGrowth       = 0.10    // resident memory: 10 %
	soakRSSSlack        = 4 << 20 // ... and at least 4 MiB
	soakGoroutineGrowth = 5       // goroutines
	soakDBRateGrowth    = 1.5     // database bytes per match kept, last window over first
	soakWALSlack        = 8 << 20 // the WAL file beyond twice its first window's median
)

// soakFlags defines the flags of soak mode on fs, into o.soak, and returns
// the check to run once fs is parsed.
func soakFlags(fs *flag.FlagSet, o *options) (check func() error) {
	fs.DurationVar(&o.soak.duration, "soak", 0, "soak test (needs -spawn) of this `duration`, e.g. 30m: one steady phase of -matches (default 50) with -soak-abandon of them left to their deadlines, the server's memory, goroutines and database sampled every -soak-every; exit 0 on PASS")
	fs.DurationVar(&o.soak.every, "soak-every", time.Minute, "with -soak: time between two samples")
	fs.Float64Var(&o.soak.abandon, "soak-abandon", 0.1, "with -soak: share of matches (0 to 1) the players walk away from, half at the challenge and half in play, so that the challenge and turn deadlines fire")
	fs.DurationVar(&o.soak.timeout, "soak-timeout", 5*time.Second, "with -soak: CONNECTN_TURN_TIMEOUT and CONNECTN_CHALLENGE_TIMEOUT of the spawned server (at least 1s; -server-env overrides)")
	return func() error {
		if o.soak.duration == 0 {
			return nil
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		switch {
		case o.soak.duration < 0:
			return fmt.Errorf("-soak: %v is negative", o.soak.duration)
		case o.spawn == "" || o.crash || o.stop || o.replicas > 1 || o.gw.mode != modeHTTP:
			return errors.New("-soak needs -spawn, without -crash, -stop, -replicas or -mode")
		case strings.Contains(o.db, "://"):
			return errors.New("-soak samples a SQLite database file: -db must be a path")
		case o.soak.every <= 0 || o.soak.duration < 5*o.soak.every:
			return fmt.Errorf("-soak-every: %v leaves fewer than 5 samples in -soak %v", o.soak.every, o.soak.duration)
		case o.soak.abandon < 0 || o.soak.abandon > 1:
			return fmt.Errorf("-soak-abandon: %v is not from 0 to 1", o.soak.abandon)
		case o.soak.timeout < time.Second:
			return fmt.Errorf("-soak-timeout: %v is below the server's minimum, 1s", o.soak.timeout)
		}
		if !set["matches"] {
			o.matches = []int{50}
		}
		if len(o.matches) != 1 {
			return errors.New("-soak runs one figure of -matches")
		}
		t := o.soak.timeout.String()
		o.serverEnv = append(envList{"CONNECTN_TURN_TIMEOUT=" + t, "CONNECTN_CHALLENGE_TIMEOUT=" + t}, o.serverEnv...)
		return nil
	}
}

// soakSample is one reading of the server during a soak.
type soakSample struct {
	at                  time.Duration // since the phase started
	rss, heap           int64         // VmRSS; go_memstats_heap_inuse_bytes
	live                int64         // the heap live at the last collection (go_gc_heap_live_bytes; else its goal over 1 + GOGC/100)
	goroutines          int64         // go_goroutines
	dbFile, walFile     int64         // sizes of the database file and its -wal
	logical             int64         // page_count × page_size: the database as a reader sees it
	kept, active        int64         // rows of the matches table; those in challenge or play
	finished, abandoned int64         // matches the players finished; walked away from
	moves               int64         // acknowledged moves
	deadlines           int64         // connectn_deadlines_fired_total, all kinds
	selfRSS             int64         // this program's VmRSS
}

// soakSlot is a slot that walks away from some of its matches.
type soakSlot struct {
	*slot
	rng *rand.Rand
	// leaveAt says when the players walk away from the current match: -2
	// never, -1 at the challenge (nobody accepts), n >= 0 once n moves are
	// acknowledged (nobody moves).
	leaveAt int
}

// soakCounters are the soak's counts, shared by its slots and read by the
// sampler.
type soakCounters struct {
	moves, finished, abandoned, errors atomic.Int64
}

// step takes the slot's next action, or walks away from its match to a
// fresh channel where it starts the next one.
func (s *soakSlot) step(ctx context.Context, abandon float64, n *soakCounters) error {
	if s.phase == phaseIdle {
		s.leaveAt = -2
		if s.rng.Float64() < abandon {
			s.leaveAt = -1
			if s.rng.IntN(2) == 1 {
				s.leaveAt = s.rng.IntN(16)
			}
		}
	}
	if (s.leaveAt == -1 && s.phase == phaseChallenge) || (s.leaveAt >= 0 && s.phase == phasePlaying && len(s.acked) >= s.leaveAt) {
		n.abandoned.Add(1)
		s.freshChannel() // the deadline settles the match left behind
		return nil
	}
	done := s.matchesDone
	err := s.slot.step(ctx)
	if s.matchesDone > done {
		n.finished.Add(1)
	}
	return err
}

// runSoak runs the soak test and returns the exit status.
func runSoak(ctx context.Context, o *options, stdout, stderr io.Writer) int {
	keepLog := o.serverLog != ""
	if !keepLog {
		f, err := os.CreateTemp("", "connectn-soak-*.log")
		if err != nil {
			fmt.Fprintln(stderr, "connectn-loadgen:", err)
			return 1
		}
		f.Close()
		o.serverLog = f.Name()
	}
	e, err := setup(ctx, o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "connectn-loadgen:", err)
		return 1
	}
	var closeOnce sync.Once
	closeEnv := func() { closeOnce.Do(e.close) }
	defer closeEnv()
	dbPath := o.db
	if dbPath == "" {
		dbPath = filepath.Join(e.tmp, "connectn.db")
	}
	db, err := sqlite.OpenDB(ctx, dbPath)
	if err != nil {
		fmt.Fprintln(stderr, "connectn-loadgen:", err)
		return 1
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	m := o.matches[0]
	fmt.Fprintf(stdout, "soak: %d matches (%dx%d, connect %d, first to %d) for %v, %.0f %% of them left to their deadlines (turn and challenge timeouts %v), a sample every %v\n",
		m, o.settings.Rows, o.settings.Columns, o.settings.Connect, o.settings.Wins, o.soak.duration, 100*o.soak.abandon, o.soak.timeout, o.soak.every)
	fmt.Fprintf(stdout, "server log: %s\n", o.serverLog)
	var n soakCounters
	base := e.newSlots(m, o)
	slots := make([]*soakSlot, m)
	for i, s := range base {
		s.ackTotal = &n.moves
		slots[i] = &soakSlot{slot: s, rng: rand.New(rand.NewPCG(o.seed, uint64(1000+i))), leaveAt: -2}
	}
	metrics := metricsURL(e.srv.url())
	take := func(at time.Duration) soakSample {
		s := soakSample{at: at, finished: n.finished.Load(), abandoned: n.abandoned.Load(), moves: n.moves.Load()}
		s.rss, _ = procStatus(e.srv.pid(), "VmRSS:")
		s.selfRSS, _ = procStatus(os.Getpid(), "VmRSS:")
		if v, err := scrape(ctx, metrics); err == nil {
			s.goroutines, s.heap, s.deadlines = int64(v["go_goroutines"]), int64(v["go_memstats_heap_inuse_bytes"]), int64(v["connectn_deadlines_fired_total"])
			if live, ok := v["go_gc_heap_live_bytes"]; ok {
				s.live = int64(live)
			} else if gogc, ok := v["go_gc_gogc_percent"]; ok && gogc > 0 {
				// A server of before go_gc_heap_live_bytes, without a
				// memory limit.
				s.live = int64(v["go_memstats_next_gc_bytes"] / (1 + gogc/100))
			}
		}
		if fi, err := os.Stat(dbPath); err == nil {
			s.dbFile = fi.Size()
		}
		if fi, err := os.Stat(dbPath + "-wal"); err == nil {
			s.walFile = fi.Size()
		}
		s.logical, s.kept, s.active, _ = dbFigures(ctx, db)
		return s
	}

	fmt.Fprintln(stdout, soakHeader)
	samples := []soakSample{take(0)}
	fmt.Fprintln(stdout, samples[0])
	// The phase ends with its last sample, taken at o.soak.duration.
	phaseCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	errKinds := newRecorder()
	var errMu sync.Mutex
	for _, s := range slots {
		wg.Go(func() {
			for phaseCtx.Err() == nil {
				if err := s.step(ctx, o.soak.abandon, &n); err != nil && ctx.Err() == nil {
					n.errors.Add(1)
					errMu.Lock()
					errKinds.fail("slot", firstLine(err.Error()))
					errMu.Unlock()
					var gone *errServerGone
					if errors.As(err, &gone) {
						s.inflight = nil
					}
					s.abandon(ctx)
				}
			}
		})
	}
	tick := time.NewTicker(o.soak.every)
	for k := int64(1); k <= int64(o.soak.duration/o.soak.every) && ctx.Err() == nil; k++ {
		select {
		case <-tick.C:
			s := take(time.Since(start))
			samples = append(samples, s)
			fmt.Fprintln(stdout, s)
		case <-ctx.Done():
		}
	}
	cancel()
	tick.Stop()
	wg.Wait()
	elapsed := time.Since(start)

	// The players of the matches still open forfeit them; the deadlines
	// of those left behind fire.
	cleanCtx, cleanCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	for _, s := range slots {
		wg.Go(func() { s.abandon(cleanCtx) })
	}
	wg.Wait()
	cleanCancel()
	settleStart := time.Now()
	var last soakSample
	for {
		last = take(time.Since(start))
		if last.active == 0 || time.Since(settleStart) > 2*o.soak.timeout+15*time.Second || ctx.Err() != nil {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	settled := time.Since(settleStart)
	// At rest, with the load generator's connections closed (its own to
	// the server, and the server's idle ones to the fake REST API, which
	// the server keeps for its next calls), the server's goroutines are
	// those it started with, whatever it served: the lowest count over 3
	// seconds. The idle connections are closed before each count, not
	// once: a REST call still under way when they were closed (a round's
	// record edited after a deadline fired, a retry) leaves its
	// connection idle in the server's pool, two goroutines that are the
	// pool's (http.Transport keeps up to its MaxIdleConnsPerHost for
	// IdleConnTimeout), not a leak.
	rest := int64(-1)
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(250 * time.Millisecond) {
		e.c.http.CloseIdleConnections()
		e.d.CloseIdleConnections()
		time.Sleep(50 * time.Millisecond) // the server's side sees the close
		if v, err := scrape(ctx, metrics); err == nil && (rest < 0 || int64(v["go_goroutines"]) < rest) {
			rest = int64(v["go_goroutines"])
		}
	}
	fmt.Fprintf(stdout, "after the phase (%v): players forfeited the %d matches in play; %d matches open %v later\n", elapsed.Round(time.Second), m, last.active, settled.Round(100*time.Millisecond))
	fmt.Fprintln(stdout, last)
	deadlineLines, _ := scrapeLines(ctx, metrics, "connectn_deadlines_fired_total")
	db.Close()
	closeEnv()
	logLines, err := scanLog(o.serverLog)
	if err != nil {
		fmt.Fprintln(stderr, "connectn-loadgen:", err)
		return 1
	}
	if !keepLog && len(logLines) == 0 {
		os.Remove(o.serverLog)
	}
	errMu.Lock()
	defer errMu.Unlock()
	return soakVerdict(stdout, o, samples, last, rest, deadlineLines, errKinds, logLines)
}

// soakHeader names the columns of a sample's line.
const soakHeader = "   time     RSS    heap    live  gorout.  db file     wal  logical  kept  active  finished  abandoned    moves  deadlines  loadgen RSS"

func (s soakSample) String() string {
	return fmt.Sprintf("%7s %7s %7s %7s %8d %8s %7s %8s %5d %7d %9d %10d %8d %10d %12s",
		clock(s.at), mb(s.rss), mb(s.heap), mb(s.live), s.goroutines, mb(s.dbFile), mb(s.walFile), mb(s.logical),
		s.kept, s.active, s.finished, s.abandoned, s.moves, s.deadlines, mb(s.selfRSS))
}

// clock formats d as minutes and seconds.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// mb formats bytes in MiB.
func mb(b int64) string { return fmt.Sprintf("%.1fM", float64(b)/(1<<20)) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// dbFigures reads the database's logical size (page_count × page_size, as
// a reader sees it, WAL included), its matches and those still open.
func dbFigures(ctx context.Context, db *sql.DB) (logical, kept, active int64, err error) {
	var pages, size int64
	if err = db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return
	}
	if err = db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return
	}
	err = db.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(phase IN ('challenge', 'playing')), 0) FROM matches").Scan(&kept, &active)
	return pages * size, kept, active, err
}

// scanLog returns the lines of the server's log at WARN or above (slog's
// text or JSON form).
func scanLog(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, l := range []string{"level=WARN", "level=ERROR", `"level":"WARN"`, `"level":"ERROR"`} {
			if strings.Contains(line, l) {
				out = append(out, line)
				break
			}
		}
	}
	return out, sc.Err()
}

// window returns the samples numbered from..to (1-based, sample 0 is
// taken at the start).
func window(samples []soakSample, from, to int) []soakSample {
	return samples[from : to+1]
}

func median(samples []soakSample, f func(soakSample) int64) int64 {
	v := make([]int64, len(samples))
	for i, s := range samples {
		v[i] = f(s)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// lowest returns the least of f over samples.
func lowest(samples []soakSample, f func(soakSample) int64) int64 {
	m := f(samples[0])
	for _, s := range samples[1:] {
		m = min(m, f(s))
	}
	return m
}

// perMatch returns the growth of the database's logical size per match
// added between the first and the last sample of w (-1 when none was
// added).
func perMatch(w []soakSample) float64 {
	a, b := w[0], w[len(w)-1]
	if b.kept <= a.kept {
		return -1
	}
	return float64(b.logical-a.logical) / float64(b.kept-a.kept)
}

// soakVerdict prints the comparison of the first window of samples (the
// second to the eleventh, or fewer in a short soak) with the last one
// (medians, and for the goroutines the lowest count), the goroutines at
// rest after the phase (rest) against those at the start, the
// database's bytes per match kept, the deadlines that fired and the log's
// warnings, then PASS or FAIL, and returns the exit status.
func soakVerdict(w io.Writer, o *options, samples []soakSample, last soakSample, rest int64, deadlineLines []string, errs *recorder, logLines []string) int {
	var fails []string
	nn := len(samples) - 1 // samples after the start
	k := min(10, (nn-1)/2)
	if k < 2 {
		fmt.Fprintf(w, "FAIL: %d samples, too few to compare two windows\n", nn)
		return 1
	}
	first, lastW := window(samples, 2, 1+k), window(samples, nn-k+1, nn)
	fmt.Fprintf(w, "\nwindows: samples %d-%d (%s-%s) against %d-%d (%s-%s), medians:\n", 2, 1+k, clock(first[0].at), clock(first[k-1].at),
		nn-k+1, nn, clock(lastW[0].at), clock(lastW[k-1].at))
	rss := func(s soakSample) int64 { return s.rss }
	gor := func(s soakSample) int64 { return s.goroutines }
	heap := func(s soakSample) int64 { return s.heap }
	live := func(s soakSample) int64 { return s.live }
	wal := func(s soakSample) int64 { return s.walFile }
	r1, r2 := median(first, rss), median(lastW, rss)
	rssBound := max(int64(float64(r1)*soakRSSGrowth), soakRSSSlack)
	ok := r2 <= r1+rssBound
	fmt.Fprintf(w, "  resident memory  %s -> %s (%+.1f %%; bound +%s) %s\n", mib(r1), mib(r2), pct(r1, r2), mib(rssBound), okText(ok))
	if !ok {
		fails = append(fails, "resident memory grew")
	}
	// A goroutine count taken under load swings by tens with the requests
	// in flight (one per match at most, and their after-work): a leak
	// raises the floor, so the windows' minimums are compared, with a bound
	// of half the matches (at least soakGoroutineGrowth): ten samples'
	// lowest still holds a part of the requests in flight (seen at 50
	// matches: +9 and +14 between windows of one soak, the count back to
	// the start's at rest). A leak of any size shows at rest, below,
	// where the bound is soakGoroutineGrowth.
	g1, g2 := lowest(first, gor), lowest(lastW, gor)
	gBound := int64(soakGoroutineGrowth)
	if len(o.matches) == 1 {
		gBound = max(gBound, int64(o.matches[0]/2))
	}
	ok = g2 <= g1+gBound
	fmt.Fprintf(w, "  goroutines       %d -> %d (%+d; bound +%d) %s (the windows' lowest; medians %d -> %d)\n", g1, g2, g2-g1, gBound, okText(ok),
		median(first, gor), median(lastW, gor))
	if !ok {
		fails = append(fails, "goroutines grew")
	}
	ok = rest >= 0 && rest <= samples[0].goroutines+soakGoroutineGrowth
	fmt.Fprintf(w, "  goroutines at rest after the phase, connections closed: %d (%d at the start; bound +%d) %s\n", rest, samples[0].goroutines, soakGoroutineGrowth, okText(ok))
	if !ok {
		fails = append(fails, "goroutines left at rest")
	}
	h1, h2 := median(first, heap), median(lastW, heap)
	fmt.Fprintf(w, "  heap in use      %s -> %s (%+.1f %%; not judged)\n", mib(h1), mib(h2), pct(h1, h2))
	l1, l2 := median(first, live), median(lastW, live)
	fmt.Fprintf(w, "  live heap        %s -> %s (%+.1f %%; not judged)\n", mib(l1), mib(l2), pct(l1, l2))
	w1, w2 := median(first, wal), median(lastW, wal)
	ok = w2 <= 2*w1+soakWALSlack
	fmt.Fprintf(w, "  WAL file         %s -> %s (bound: twice the first + %s) %s\n", mib(w1), mib(w2), mib(soakWALSlack), okText(ok))
	if !ok {
		fails = append(fails, "the WAL file grew")
	}
	p1, p2 := perMatch(first), perMatch(lastW)
	ok = p1 > 0 && p2 > 0 && p2 <= soakDBRateGrowth*p1
	fmt.Fprintf(w, "  database growth  %.0f -> %.0f bytes per match added (bound ×%.1f) %s\n", p1, p2, soakDBRateGrowth, okText(ok))
	if !ok {
		fails = append(fails, "the database grew faster than the matches it keeps")
	}
	fmt.Fprintf(w, "database: %d matches kept (the server deletes none: no retention; /connectn forget-me removes a member's), %s logical, %.0f bytes per match kept; files %s + WAL %s\n",
		last.kept, mib(last.logical), float64(last.logical)/float64(max(last.kept, 1)), mib(last.dbFile), mib(last.walFile))
	fmt.Fprintf(w, "matches: %d finished by their players, %d left to their deadlines, %d moves acknowledged\n", last.finished, last.abandoned, last.moves)
	fmt.Fprintf(w, "deadlines fired: %d (%s)\n", last.deadlines, strings.Join(deadlineLines, ", "))
	if o.soak.abandon > 0 && (last.deadlines == 0 || last.abandoned == 0) {
		fails = append(fails, "no deadline fired")
	}
	if last.active != 0 {
		fails = append(fails, fmt.Sprintf("%d matches still open after the deadlines", last.active))
	}
	total := 0
	for _, v := range errs.errs {
		total += v
	}
	if total > 0 {
		fmt.Fprintf(w, "players' errors (each match then forfeited, not judged): %s\n", formatCounts(errs.errs))
	} else {
		fmt.Fprintln(w, "players' errors: none")
	}
	// A warning is explained when faults were injected into the server's
	// REST calls (-faults): it reports one of them. An error never is.
	byMsg := map[string]int{}
	unexplained := 0
	for _, l := range logLines {
		msg := l
		if _, after, ok := strings.Cut(l, "msg="); ok {
			msg = after
		}
		byMsg[firstLine(msg)]++
		if o.faults == 0 || !strings.Contains(l, "level=WARN") {
			unexplained++
		}
	}
	if len(logLines) == 0 {
		fmt.Fprintln(w, "server log at WARN or above: nothing")
	} else {
		fmt.Fprintf(w, "server log at WARN or above: %d lines, %d not explained by injected faults:\n", len(logLines), unexplained)
		for k, v := range byMsg {
			fmt.Fprintf(w, "  ×%d %s\n", v, k)
		}
		if unexplained > 0 {
			fails = append(fails, "warnings in the server's log")
		}
	}
	if len(fails) > 0 {
		fmt.Fprintf(w, "FAIL: %s\n", strings.Join(fails, "; "))
		return 1
	}
	fmt.Fprintln(w, "PASS")
	return 0
}

func pct(a, b int64) float64 {
	if a == 0 {
		return 0
	}
	return 100 * float64(b-a) / float64(a)
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "GROWTH"
}
