package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestProcCPUCountsWaitedChildren(t *testing.T) {
	before, err := procCPU(os.Getpid(), true)
	if err != nil {
		t.Fatal(err)
	}
	// A child that burns CPU and is waited for moves its CPU into our
	// cutime/cstime, as a backend's moves into the postmaster's.
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Skipf("no sh to burn CPU with: %v", err)
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	after, err := procCPU(os.Getpid(), true)
	if err != nil {
		t.Fatal(err)
	}
	own, err := procCPU(os.Getpid(), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := after - before; got < child-20*time.Millisecond {
		t.Errorf("CPU with children grew by %v, want at least the child's %v (less 2 ticks)", got, child)
	}
	if own > after {
		t.Errorf("own CPU %v more than own and children's %v", own, after)
	}
}

func TestPgReadingSince(t *testing.T) {
	a := pgReading{cpu: time.Second, procs: 5, ok: true}
	b := pgReading{cpu: 3 * time.Second, procs: 6, ok: true}
	if got := b.since(a); got != 2*time.Second {
		t.Errorf("since = %v, want 2s", got)
	}
	if got := b.since(pgReading{}); got != -1 {
		t.Errorf("since a failed reading = %v, want -1", got)
	}
	if got := readPostgres(false, ""); got.ok {
		t.Errorf("readPostgres(false) = %+v, want not ok", got)
	}
}

// TestParseTitle: -postgres-db tells a client backend, and its database,
// from the server's own processes by the title PostgreSQL gives them.
func TestParseTitle(t *testing.T) {
	for _, tc := range []struct {
		title  string
		client bool
		db     string
	}{
		{"postgres: 15/main: postgres pg_bench1 127.0.0.1(33344) idle", true, "pg_bench1"},
		{"postgres: app shop [local] SELECT", true, "shop"},
		{"postgres: 15/main: walwriter ", false, ""},
		{"postgres: 15/main: background writer ", false, ""},
		{"postgres: checkpointer", false, ""},
		{"/usr/lib/postgresql/15/bin/postgres\x00-D\x00/var/lib/postgresql/15/main", false, ""},
		{"postgres: 15/main: postgres pg_x 127.0.0.1(1) idle\x00\x00", true, "pg_x"},
	} {
		if client, db := parseTitle(tc.title); client != tc.client || db != tc.db {
			t.Errorf("parseTitle(%q) = %v, %q; want %v, %q", tc.title, client, db, tc.client, tc.db)
		}
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		route string
		want  []int // endpoints of a's, b's, a's, b's, a's requests
	}{
		{"turn", routeTurn, []int{0, 1, 0, 1, 0}},
		// a's own turn starts at 0, b's at 1: each match alternates on
		// its own, whatever the other does.
		{"alternate", routeAlternate, []int{0, 1, 1, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &client{endpoints: []string{"x", "y"}, route: tc.route}
			a, b := uint64(0), uint64(1)
			var got []int
			for i := range 5 {
				own := &a
				if i%2 == 1 {
					own = &b
				}
				got = append(got, c.endpoint(own))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("endpoints %v, want %v", got, tc.want)
				}
			}
		})
	}
	t.Run("random", func(t *testing.T) {
		// A match's clicks meet either replica, independently of its last
		// click: about half of them the replica that did not serve the
		// last one, as behind a load balancer.
		c := newClient([]string{"x", "y"}, nil, 1, routeRandom, 7)
		own := uint64(0)
		const n = 4000
		counts, switches, last := [2]int{}, 0, -1
		for range n {
			k := c.endpoint(&own)
			counts[k]++
			if last >= 0 && k != last {
				switches++
			}
			last = k
		}
		if counts[0] < n*45/100 || counts[1] < n*45/100 {
			t.Errorf("requests by replica %v of %d, want about half each", counts, n)
		}
		if switches < n*45/100 || switches > n*55/100 {
			t.Errorf("%d of %d clicks met the other replica, want about half", switches, n)
		}
		one, two := newClient([]string{"x", "y"}, nil, 1, routeRandom, 9), newClient([]string{"x", "y"}, nil, 1, routeRandom, 9)
		for i := range 20 {
			if a, b := one.endpoint(&own), two.endpoint(&own); a != b {
				t.Fatalf("request %d: clients of the same seed chose %d and %d, want the same", i, a, b)
			}
		}
	})
}

func TestReportPerMove(t *testing.T) {
	rec := newRecorder()
	rec.moves = 1000
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		pgCPU time.Duration
		want  []string
		not   []string
	}{
		{"without PostgreSQL", -1, []string{"server CPU/move", "0.400ms", "0.200ms", "move ÷ PING", "2.00"}, []string{"PostgreSQL CPU/move", "n/a"}},
		{"with PostgreSQL", 300 * ms, []string{"server CPU/move", "PostgreSQL CPU/move", "0.400ms", "0.300ms", "0.700ms"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			reportPerMove(&b, []phaseResult{
				{kind: "ping", matches: 50, rec: newRecorder(), requests: 500, cpu: 100 * ms, pgCPU: tc.pgCPU},
				{kind: "moves", matches: 50, rec: rec, cpu: 400 * ms, pgCPU: tc.pgCPU},
			})
			got := b.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("report lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("report holds %q:\n%s", n, got)
				}
			}
		})
	}
}

// TestReportPerMoveMedian: with several runs of a figure (-repeat), each
// moves phase is set against the ping phase before it, and the medians of
// the runs follow.
func TestReportPerMoveMedian(t *testing.T) {
	ms := time.Millisecond
	moves := func(n int) *recorder { r := newRecorder(); r.moves = n; return r }
	var results []phaseResult
	// Three runs: CPU per PING 0.1, 0.2, 0.1 ms; per move 0.2, 0.5, 0.3 ms:
	// ratios 2.0, 2.5, 3.0; medians 0.3 ms, 0.1 ms, 2.50.
	for _, run := range []struct{ ping, move time.Duration }{{100 * ms, 200 * ms}, {200 * ms, 500 * ms}, {100 * ms, 300 * ms}} {
		results = append(results,
			phaseResult{kind: "ping", matches: 50, rec: newRecorder(), requests: 1000, cpu: run.ping, pgCPU: -1},
			phaseResult{kind: "moves", matches: 50, rec: moves(1000), cpu: run.move, pgCPU: -1})
	}
	var b strings.Builder
	reportPerMove(&b, results)
	got := b.String()
	for _, want := range []string{"2.00", "2.50", "3.00", "50, median of 3", "0.300ms", "0.100ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	med := got[strings.Index(got, "median of 3"):]
	if !strings.Contains(med, "2.50") || !strings.Contains(med, "0.300ms") {
		t.Errorf("median line %q, want 0.300ms per move and 2.50", strings.SplitN(med, "\n", 2)[0])
	}
}
