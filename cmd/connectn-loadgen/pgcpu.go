package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
// clients (CI, say) are counted too, unless db is set: then it counts the
// client backends of database db and the server's own processes (the
// writers, the checkpointer, the launchers: every process whose title
// names no client), each without its children's fields, so that neither
// other databases' backends nor those that exited (reaped by the
// postmaster) are counted; a backend of db that exits between two
// readings is then missed (the servers' connections live for minutes).
// It returns an error when /proc cannot be listed; processes it cannot
// read are skipped.
func postgresCPU(db string) (time.Duration, int, error) {
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
		if db != "" {
			if client, of := backendOf(pid); client && of != db {
				continue
			}
		}
		d, err := procCPU(pid, db == "")
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

// backendOf reports whether process pid is a client backend of
// PostgreSQL, from the title it gives its command line ("postgres:
// [CLUSTER: ]USER DATABASE HOST(PORT) ACTIVITY", or "[local]" for the
// host), and the database it serves.
func backendOf(pid int) (client bool, db string) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false, ""
	}
	return parseTitle(string(b))
}

// parseTitle is backendOf on the command line title.
func parseTitle(title string) (client bool, db string) {
	rest, ok := strings.CutPrefix(title, "postgres: ")
	if !ok {
		return false, ""
	}
	f := strings.Fields(strings.ReplaceAll(rest, "\x00", " "))
	if len(f) > 0 && strings.HasSuffix(f[0], ":") {
		f = f[1:] // the cluster's name
	}
	if len(f) < 3 {
		return false, ""
	}
	if h := f[2]; h == "[local]" || (strings.Contains(h, "(") && strings.HasSuffix(h, ")")) {
		return true, f[1]
	}
	return false, ""
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
func readPostgres(on bool, db string) pgReading {
	if !on {
		return pgReading{}
	}
	cpu, n, err := postgresCPU(db)
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
// ping phase of the same number of matches ran before it, the server's CPU
// per move over its CPU per signed PING in that phase. A moves phase's
// requests include the challenges and accepts, and its CPU the work after
// the responses and every other work of the server during the phase, all
// counted against the moves. With several runs of a figure (-repeat), the
// median of each column follows the runs.
func reportPerMove(w io.Writer, results []phaseResult) {
	type row struct {
		r     phaseResult
		ping  time.Duration // per PING, -1 when none
		ratio float64       // -1 when none
	}
	var (
		rows  []row
		pings = map[int]phaseResult{}
		pg    = false
	)
	for _, r := range results {
		switch r.kind {
		case "ping":
			pings[r.matches] = r
		case "moves":
			x := row{r: r, ping: -1, ratio: -1}
			if p, ok := pings[r.matches]; ok && p.cpu > 0 && p.requests > 0 && r.cpu >= 0 && r.rec.moves > 0 {
				x.ping = p.cpu / time.Duration(p.requests)
				x.ratio = (float64(r.cpu) / float64(r.rec.moves)) / (float64(p.cpu) / float64(p.requests))
			}
			rows = append(rows, x)
			pg = pg || r.pgCPU >= 0
		}
	}
	if len(rows) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if pg {
		fmt.Fprintln(tw, "matches\tmoves\tserver CPU/move\tPostgreSQL CPU/move\tsum/move\t")
	} else {
		fmt.Fprintln(tw, "matches\tmoves\tserver CPU/move\tserver CPU/PING\tmove ÷ PING\t")
	}
	perMove := func(cpu time.Duration, moves int) time.Duration {
		if cpu < 0 || moves == 0 {
			return -1
		}
		return cpu / time.Duration(moves)
	}
	line := func(label string, moves string, server, pgc, ping time.Duration, ratio float64) {
		d := func(x time.Duration) string {
			if x < 0 {
				return "n/a"
			}
			return fmt.Sprintf("%.3fms", float64(x)/float64(time.Millisecond))
		}
		if pg {
			sum := time.Duration(-1)
			if server >= 0 && pgc >= 0 {
				sum = server + pgc
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", label, moves, d(server), d(pgc), d(sum))
			return
		}
		r := "n/a"
		if ratio >= 0 {
			r = fmt.Sprintf("%.2f", ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", label, moves, d(server), d(ping), r)
	}
	var order []int
	byM := map[int][]row{}
	for _, x := range rows {
		if byM[x.r.matches] == nil {
			order = append(order, x.r.matches)
		}
		byM[x.r.matches] = append(byM[x.r.matches], x)
		line(strconv.Itoa(x.r.matches), strconv.Itoa(x.r.rec.moves), perMove(x.r.cpu, x.r.rec.moves), perMove(x.r.pgCPU, x.r.rec.moves), x.ping, x.ratio)
	}
	for _, m := range order {
		xs := byM[m]
		if len(xs) < 2 {
			continue
		}
		var server, pgc, ping []time.Duration
		var ratios []float64
		for _, x := range xs {
			server = append(server, perMove(x.r.cpu, x.r.rec.moves))
			pgc = append(pgc, perMove(x.r.pgCPU, x.r.rec.moves))
			ping = append(ping, x.ping)
			ratios = append(ratios, x.ratio)
		}
		line(fmt.Sprintf("%d, median of %d", m, len(xs)), "", medianOf(server), medianOf(pgc), medianOf(ping), medianOf(ratios))
	}
	tw.Flush()
	if pg {
		fmt.Fprintln(w, "(CPU per acknowledged move; PostgreSQL's is that of every postgres process of the machine, or with -postgres-db of the database's backends and the server's own processes)")
	} else {
		fmt.Fprintln(w, "(CPU per acknowledged move, and over the CPU per signed PING of the ping phase before it; -postgres-cpu adds PostgreSQL's)")
	}
}

// medianOf returns the median of xs (the mean of the middle two for an even
// count), or -1 when any of them is negative (not measured).
func medianOf[T time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 || s[0] < 0 {
		return -1
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
