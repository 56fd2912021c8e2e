package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// postgresCPU returns the CPU time (user + system, 10 ms resolution) that
// every PostgreSQL process on this machine has used so far, and how many
// processes it read: the sum, over every /proc/PID whose command name
// (comm) is "postgres" or whose command line starts with a program named
// postgres*, of utime+stime+cutime+cstime (fields 14 to 17 of
// /proc/PID/stat).
//
// The children's fields make the sum a counter that only grows while the
// postmaster runs, whatever processes come and go between two readings: a
// backend that exits is reaped by the postmaster, whose cutime and cstime
// then hold all the CPU the backend ever used, so its CPU moves from one
// term of the sum to another instead of vanishing; a backend that starts
// between the readings was 0 in the first. A backend that exits between
// this function's listing of /proc and its read of the backend's stat is
// missed for one reading (its CPU is in the postmaster's fields only once
// reaped): rare, and at most one backend's CPU. The servers' own
// connections are long-lived backends, so that seldom matters.
//
// It counts every PostgreSQL process of the machine: other databases'
// clients (CI, say) are counted too. It returns an error when /proc cannot
// be listed; processes it cannot read are skipped.
func postgresCPU() (time.Duration, int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0, fmt.Errorf("read PostgreSQL's CPU time: %w", err)
	}
	var sum time.Duration
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid < 1 || !isPostgres(pid) {
			continue
		}
		d, err := procCPU(pid, true)
		if err != nil {
			continue // gone since the listing
		}
		sum += d
		n++
	}
	return sum, n, nil
}

// isPostgres reports whether process pid is a PostgreSQL server process:
// its comm is "postgres" (backends keep it while they rewrite their
// command line as "postgres: 15/main: user db ..."), or its command line
// starts with a program named postgres*.
func isPostgres(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	if b, err := os.ReadFile(dir + "/comm"); err == nil && strings.TrimSpace(string(b)) == "postgres" {
		return true
	}
	b, err := os.ReadFile(dir + "/cmdline")
	if err != nil || len(b) == 0 {
		return false
	}
	arg0, _, _ := strings.Cut(string(b), "\x00")
	arg0, _, _ = strings.Cut(arg0, " ") // a rewritten title: "postgres: ..."
	return strings.HasPrefix(filepath.Base(strings.TrimSuffix(arg0, ":")), "postgres")
}

// procCPU returns utime+stime of process pid, and with children also
// cutime+cstime (the CPU of its children that it has waited for), from
// /proc/PID/stat.
func procCPU(pid int, children bool) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count the fields after its closing parenthesis. f[0] is field 3
	// (state), so utime (14) is f[11], stime f[12], cutime f[13], cstime
	// f[14].
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	last := 12
	if children {
		last = 14
	}
	var ticks int64
	for k := 11; k <= last; k++ {
		v, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected /proc/PID/stat: %w", err)
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// pgReading is PostgreSQL's CPU at one moment, for -postgres-cpu.
type pgReading struct {
	cpu   time.Duration
	procs int
	ok    bool
}

// readPostgres reads PostgreSQL's CPU when on, else returns a reading that
// is not ok.
func readPostgres(on bool) pgReading {
	if !on {
		return pgReading{}
	}
	cpu, n, err := postgresCPU()
	return pgReading{cpu: cpu, procs: n, ok: err == nil && n > 0}
}

// since returns the CPU PostgreSQL used from before to r, or -1 when
// either reading failed.
func (r pgReading) since(before pgReading) time.Duration {
	if !r.ok || !before.ok {
		return -1
	}
	return r.cpu - before.cpu
}

// reportPerMove prints, for the moves phases of results, the CPU per
// acknowledged move: the server's (all replicas), and when PostgreSQL's
// was read (-postgres-cpu) PostgreSQL's and their sum; beside it, when a
// ping phase of the same number of matches was run, the server's CPU per
// move over its CPU per signed PING. A moves phase's requests include the
// challenges and accepts, and its CPU the follow-ups and every other work
// of the server during the phase, all counted against the moves.
func reportPerMove(w io.Writer, results []phaseResult) {
	var moves []phaseResult
	ping := map[int]phaseResult{}
	pg := false
	for _, r := range results {
		switch r.kind {
		case "moves":
			moves = append(moves, r)
			pg = pg || r.pgCPU >= 0
		case "ping":
			ping[r.matches] = r
		}
	}
	if len(moves) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if pg {
		fmt.Fprintln(tw, "matches\tmoves\tserver CPU/move\tPostgreSQL CPU/move\tsum/move\t")
	} else {
		fmt.Fprintln(tw, "matches\tmoves\tserver CPU/move\tserver CPU/PING\tmove ÷ PING\t")
	}
	for _, r := range moves {
		if !pg {
			perPing, ratio := "n/a", "n/a"
			if p, ok := ping[r.matches]; ok && p.cpu > 0 && p.requests > 0 && r.cpu >= 0 && r.rec.moves > 0 {
				perPing = cpuPer(p.cpu, p.requests)
				ratio = fmt.Sprintf("%.2f", (float64(r.cpu)/float64(r.rec.moves))/(float64(p.cpu)/float64(p.requests)))
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t\n", r.matches, r.rec.moves, cpuPer(r.cpu, r.rec.moves), perPing, ratio)
			continue
		}
		sum := time.Duration(-1)
		if r.cpu >= 0 && r.pgCPU >= 0 {
			sum = r.cpu + r.pgCPU
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t\n", r.matches, r.rec.moves, cpuPer(r.cpu, r.rec.moves), cpuPer(r.pgCPU, r.rec.moves), cpuPer(sum, r.rec.moves))
	}
	tw.Flush()
	if pg {
		fmt.Fprintln(w, "(CPU per acknowledged move; PostgreSQL's is that of every postgres process of the machine)")
	} else {
		fmt.Fprintln(w, "(CPU per acknowledged move, and over the CPU per signed PING of the ping phase of as many matches; -postgres-cpu adds PostgreSQL's)")
	}
}

// endpoint returns the index of the replica the next request goes to, by
// c.route: random (the default) picks one at random for each request, as a
// load balancer in front of replicas does, so that with two replicas a
// click meets the replica that served its match's last one half the time;
// turn takes the replicas in turn whatever the match; alternate, with own
// (a match's own counter, used by one goroutine at a time), makes a
// match's requests take the replicas in turn among themselves: every
// click meets the replica that did not serve the match's last one, the
// case where a replica's cache of the match is always behind.
func (c *client) endpoint(own *uint64) int {
	n := uint64(len(c.endpoints))
	switch {
	case n == 1:
		return 0
	case own != nil && c.route == routeAlternate:
		k := *own % n
		*own++
		return int(k)
	case c.route == routeRandom:
		c.rngMu.Lock()
		defer c.rngMu.Unlock()
		return c.rng.IntN(int(n))
	}
	return int((c.turn.Add(1) - 1) % n)
}
