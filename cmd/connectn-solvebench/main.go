// Command connectn-solvebench measures the exact solver (game/ai) side by
// side with other Connect 4 solvers, in one run, and the share of
// positions the solver settles within a time budget.
//
// Usage:
//
//	connectn-solvebench [flags]                 the side-by-side table
//	connectn-solvebench -settled [flags]        the settled shares
//
// The side-by-side table solves the empty 7x6 board (strongly and weakly,
// with -empty; one of the two with -empty-strong or -empty-weak) and the
// first -n positions of each of Pascal Pons' test sets (-sets, read from
// -dir) with this solver, in this process, and with each outside solver
// named by -c4 and -pons. An outside solver is a program that reads
// positions on standard input, one a line (columns numbered from 1, an empty
// line the empty board), empties its table before each, and prints "moves
// score nodes microseconds" for each, the format of "connectn solve"; given
// -w as its first argument it solves weakly (1, 0, -1). docs/ai.md shows the
// two small drivers that make c4's and Pons' solvers speak it; they are
// built outside this repository (c4 is under the AGPL), and this command
// builds nothing: it only runs the paths it is given. This solver's nodes
// are given twice: counted as Pons counts his (every position visited) and
// as c4 counts its (positions whose moves are searched). Like c4's and Pons'
// drivers, which empty their tables by writing them before their clocks
// start, it empties this solver's table by Solver.Clear before timing
// anything, so that no solver's time includes the system's first touch of
// its table's memory. Every score is checked against the set's; a wrong one
// is printed and makes the exit status 1. With -repeat k every solver solves
// the set k times over (an outside solver is sent its lines k times), each
// position from an empty table, and a position's time is the least of its k:
// a loaded machine's interruptions then weigh little on positions of
// microseconds (and the same position is never solved twice in a row, which
// would find the caches full of its own table entries). With -cpu this
// solver's time is the process's processor time (over every worker), not the
// wall clock's; the outside solvers' drivers must then report processor time
// too (docs/ai.md shows how).
//
// The settled shares play -games games per board between two players that
// win when they can, block when they must, avoid handing the opponent a
// win and otherwise pick a column at random, centre columns more likely
// (real-looking games, no opening book), and solve every position of 0 to
// -discs discs with one worker and an empty -table, counting it settled
// when solved within -budget of processor time (the search's own, whatever
// the machine's load; -wall caps the wall-clock time), printing
// the share settled by number of discs on 7x6 (columns x rows), 8x7 and
// 9x7 (-boards picks among them; -v prints each position, its processor
// time and nodes on standard error). Given -c4 or -pons, the outside
// solvers solve the same 7x6 positions of -outside-from (8) discs or more,
// each in a process of its own stopped after -wall or 3 budgets and 5 s,
// and their own settled counts stand beside this solver's: a reference
// measured in the same run, on the same positions, whatever the machine's
// speed that hour. It uses only the solver's public API, so the same file
// builds against an older version of game/ai to measure "before".
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type options struct {
	c4, pons, dir string
	sets          []string
	n             int
	empty, weak   bool
	emptyWeak     bool
	emptyStrong   bool
	ponsEmpty     bool
	workers       int
	repeat        int
	cpu           bool
	tableMB       int
	emptyTableMB  int
	settled       bool
	games         int
	discs         int
	budget        time.Duration
	wallCap       time.Duration
	seed          uint64
	verbose       bool
	boards        string
	outsideFrom   int
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("connectn-solvebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var sets string
	fs.StringVar(&o.c4, "c4", "", "path of c4's driver (optional)")
	fs.StringVar(&o.pons, "pons", "", "path of Pons' driver (optional)")
	fs.StringVar(&o.dir, "dir", filepath.Join("..", "shared", "testdata", "pons"), "folder of Pons' test sets")
	fs.StringVar(&sets, "sets", "Test_L3_R1,Test_L2_R1,Test_L2_R2,Test_L1_R1,Test_L1_R2,Test_L1_R3", "Pons' sets to solve, comma-separated (\"\" for none)")
	fs.IntVar(&o.n, "n", 20, "positions of each set, from its first")
	fs.BoolVar(&o.empty, "empty", false, "also solve the empty 7x6 board, strongly and weakly")
	fs.BoolVar(&o.emptyWeak, "empty-weak", false, "also solve the empty 7x6 board weakly (without the strong solve of -empty)")
	fs.BoolVar(&o.emptyStrong, "empty-strong", false, "also solve the empty 7x6 board strongly (without the weak solve of -empty)")
	fs.BoolVar(&o.ponsEmpty, "pons-empty", false, "also run Pons' solver on the empty board (hours)")
	fs.BoolVar(&o.weak, "weak", false, "solve the sets weakly (win, draw or loss)")
	fs.IntVar(&o.workers, "workers", 1, "this solver's workers (the outside solvers' threads are their builds')")
	fs.IntVar(&o.repeat, "repeat", 1, "solve each position of the sets this many times, each solver alike, and keep the least time")
	fs.BoolVar(&o.cpu, "cpu", false, "time this solver by the process's processor time instead of the wall clock (give drivers that do the same)")
	fs.IntVar(&o.tableMB, "table", ai.DefaultTableMB, "this solver's table for the sets, MiB")
	fs.IntVar(&o.emptyTableMB, "empty-table", 1024, "this solver's table for the empty board, MiB")
	fs.BoolVar(&o.settled, "settled", false, "measure the settled shares instead")
	fs.IntVar(&o.games, "games", 10, "games per board for -settled")
	fs.IntVar(&o.discs, "discs", 20, "most discs of a position for -settled")
	fs.DurationVar(&o.budget, "budget", 1200*time.Millisecond, "processor time budget of one position for -settled")
	fs.DurationVar(&o.wallCap, "wall", 30*time.Second, "wall-clock time after which -settled gives a position up (an outside solver's too, or after 3 budgets and 5 s)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the games for -settled")
	fs.StringVar(&o.boards, "boards", "7x6,8x7,9x7", "boards (columns x rows) for -settled, comma-separated, of 7x6, 8x7 and 9x7")
	fs.IntVar(&o.outsideFrom, "outside-from", 8, "with -settled, the fewest discs of the 7x6 positions the outside solvers (-c4, -pons) solve too")
	fs.BoolVar(&o.verbose, "v", false, "with -settled, print each position (columns from 1), its processor time and nodes on standard error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || o.n < 1 || o.workers < 1 || o.repeat < 1 || o.games < 1 || o.discs < 0 || o.budget <= 0 || o.outsideFrom < 0 {
		fmt.Fprintln(stderr, "connectn-solvebench: bad arguments; -h lists the flags")
		return 2
	}
	if sets != "" {
		o.sets = strings.Split(sets, ",")
	}
	if o.settled {
		return settled(o, stdout, stderr)
	}
	return sideBySide(o, stdout, stderr)
}

// measure is one solver's total over a set.
type measure struct {
	ok          bool // the solver ran
	positions   int
	nodes       uint64
	interior    uint64 // this solver's interior nodes (c4's count)
	micros      int64
	wrong       int
	firstWrong  string
	unavailable string
}

type line struct {
	moves string
	score int // the known score; ignored for the empty board
	known bool
}

func sideBySide(o options, stdout, stderr io.Writer) int {
	type row struct {
		name   string
		weak   bool
		lines  []line
		tableM int
		empty  bool
		repeat int
	}
	var rows []row
	if o.empty || o.emptyStrong {
		rows = append(rows, row{"empty 7x6, strong", false, []line{{}}, o.emptyTableMB, true, 1})
	}
	if o.empty || o.emptyWeak {
		rows = append(rows, row{"empty 7x6, weak", true, []line{{}}, o.emptyTableMB, true, 1})
	}
	for _, set := range o.sets {
		lines, err := readSet(filepath.Join(o.dir, set), o.n)
		if err != nil {
			fmt.Fprintf(stderr, "connectn-solvebench: %v\n", err)
			return 1
		}
		name := set
		if o.weak {
			name += ", weak"
		}
		rows = append(rows, row{name, o.weak, lines, o.tableMB, false, o.repeat})
	}
	fmt.Fprintf(stdout, "| positions | n | ours s | ours nodes (Pons' count) | ours interior (c4's count) | c4 s | c4 nodes | Pons s | Pons nodes | ours/c4 time | ours/Pons time |\n")
	fmt.Fprintf(stdout, "|---|---|---|---|---|---|---|---|---|---|---|\n")
	status := 0
	for _, r := range rows {
		ours := solveOurs(r.lines, r.weak, o.workers, r.tableM, r.repeat, o.cpu)
		c4 := solveOutside(o.c4, r.lines, r.weak, r.repeat)
		ponsPath := o.pons
		if r.empty && !o.ponsEmpty {
			ponsPath = ""
		}
		pons := solveOutside(ponsPath, r.lines, r.weak, r.repeat)
		for _, m := range []struct {
			who string
			m   measure
		}{{"ours", ours}, {"c4", c4}, {"Pons", pons}} {
			if m.m.unavailable != "" {
				fmt.Fprintf(stderr, "connectn-solvebench: %s, %s: %s\n", r.name, m.who, m.m.unavailable)
				status = 1
			}
			if m.m.wrong > 0 {
				fmt.Fprintf(stderr, "connectn-solvebench: %s, %s: %d wrong scores, first %s\n", r.name, m.who, m.m.wrong, m.m.firstWrong)
				status = 1
			}
		}
		interior := "-"
		if ours.ok {
			interior = strconv.FormatUint(ours.interior, 10)
		}
		fmt.Fprintf(stdout, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name, len(r.lines),
			secs(ours), nodes(ours), interior, secs(c4), nodes(c4), secs(pons), nodes(pons), ratio(ours, c4), ratio(ours, pons))
	}
	return status
}

func secs(m measure) string {
	if !m.ok {
		return "-"
	}
	// Three decimals, or three significant digits below a second, so that
	// a set of microsecond positions (End-Easy's 200: 0.6 ms) compares.
	if v := float64(m.micros) / 1e6; v < 1 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3f", float64(m.micros)/1e6)
}

func nodes(m measure) string {
	if !m.ok {
		return "-"
	}
	return strconv.FormatUint(m.nodes, 10)
}

func ratio(a, b measure) string {
	if !a.ok || !b.ok || b.micros == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a.micros)/float64(b.micros))
}

// readSet reads the first n positions of one of Pons' sets.
func readSet(path string, n int) ([]line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		moves, score, ok := strings.Cut(sc.Text(), " ")
		s, err := strconv.Atoi(score)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s line %d: %q is not \"moves score\"", path, len(out)+1, sc.Text())
		}
		out = append(out, line{moves: moves, score: s, known: true})
	}
	return out, sc.Err()
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func (m *measure) check(l line, weak bool, got int) {
	want := l.score
	if weak {
		want = sign(want)
	}
	if l.known && got != want {
		if m.wrong == 0 {
			m.firstWrong = fmt.Sprintf("%q: %d, want %d", l.moves, got, want)
		}
		m.wrong++
	}
}

// solveOurs solves the lines with this solver, emptying the table before
// each, and times the searches only.
// solveOurs solves the lines repeat times over, each from an empty table,
// and keeps the least time of each: processor time with cpu, else the
// wall clock's.
func solveOurs(lines []line, weak bool, workers, tableMB, repeat int, cpu bool) measure {
	clock := func() time.Duration { return time.Duration(time.Now().UnixNano()) }
	if cpu {
		clock = cpuTime
	}
	s, err := ai.NewSolver(6, 7, 4, ai.SolverOptions{TableMB: tableMB, Workers: workers})
	if err != nil {
		return measure{unavailable: err.Error()}
	}
	// c4's driver empties its table (clear_state, which writes it) before
	// its clock starts, Pons' too (reset): so does this solver, once, so
	// that no clock times the system's first touch of the table's memory
	// (a 1 GiB table: 0.1 to 3 s). Reset keeps the memory mapped. Through
	// an interface, so that this file still builds against a game/ai of
	// before Solver.Clear (whose solves then pay that first touch).
	if c, ok := any(s).(interface{ Clear() }); ok {
		c.Clear()
	}
	m := measure{ok: true}
	least := make([]int64, len(lines))
	for round := range repeat {
		for i, l := range lines {
			moves := make([]int, len(l.moves))
			for i, ch := range l.moves {
				moves[i] = int(ch - '1')
			}
			pos, err := s.Play(moves)
			if err != nil {
				return measure{unavailable: fmt.Sprintf("%q: %v", l.moves, err)}
			}
			s.Reset()
			start := clock()
			r, err := s.Solve(context.Background(), pos, weak)
			us := (clock() - start).Microseconds()
			if err != nil {
				return measure{unavailable: fmt.Sprintf("%q: %v", l.moves, err)}
			}
			if round == 0 {
				least[i] = us
				m.nodes += r.Nodes
				m.interior += r.Interior
				m.positions++
				m.check(l, weak, r.Score)
			}
			least[i] = min(least[i], us)
		}
	}
	for _, us := range least {
		m.micros += us
	}
	return m
}

// solveOutside runs the outside solver at path (none when "") on the lines,
// sent repeat times over, keeping the least time of each.
func solveOutside(path string, lines []line, weak bool, repeat int) measure {
	if path == "" {
		return measure{}
	}
	var args []string
	if weak {
		args = append(args, "-w")
	}
	var in strings.Builder
	for range repeat {
		for _, l := range lines {
			in.WriteString(l.moves + "\n")
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = strings.NewReader(in.String())
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return measure{unavailable: fmt.Sprintf("%s: %v: %s", path, err, strings.TrimSpace(errOut.String()))}
	}
	m := measure{ok: true}
	got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(got) != repeat*len(lines) {
		return measure{unavailable: fmt.Sprintf("%s: %d lines for %d positions", path, len(got), repeat*len(lines))}
	}
	least := make([]int64, len(lines))
	for j, text := range got {
		i := j % len(lines)
		score, n, us, err := parseAnswer(text, lines[i].moves)
		if err != nil {
			return measure{unavailable: fmt.Sprintf("%s: line %d: %v", path, i+1, err)}
		}
		if j < len(lines) {
			least[i] = us
			m.nodes += n
			m.positions++
			m.check(lines[i], weak, score)
		}
		least[i] = min(least[i], us)
	}
	for _, us := range least {
		m.micros += us
	}
	return m
}

// settled measures the shares of positions settled within o.budget.
func settled(o options, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "Positions settled (exact score) within %v of processor time, one worker, an empty %d MiB table, %d games per board (seed %d)\n\n", o.budget, o.tableMB, o.games, o.seed)
	for _, b := range []struct {
		name          string
		rows, columns int
	}{{"7x6", 6, 7}, {"8x7", 7, 8}, {"9x7", 7, 9}} {
		if !slices.Contains(strings.Split(o.boards, ","), b.name) {
			continue
		}
		cfg := game.Config{Rows: b.rows, Columns: b.columns, Connect: 4, Wins: 1}
		if !ai.Solvable(cfg) {
			fmt.Fprintf(stdout, "%s (columns x rows): beyond the exact solver's 64 bits ((rows+1) x columns = %d): none settled\n\n", b.name, (b.rows+1)*b.columns)
			continue
		}
		s, err := ai.NewSolver(b.rows, b.columns, 4, ai.SolverOptions{TableMB: o.tableMB, Workers: 1})
		if err != nil {
			fmt.Fprintf(stderr, "connectn-solvebench: %v\n", err)
			return 1
		}
		settledBy := make([]int, o.discs+1)
		totalBy := make([]int, o.discs+1)
		// The outside solvers' drivers are built for 7x6: they solve the
		// positions of o.outsideFrom discs or more of that board.
		var outside []outsideSolver
		if b.name == "7x6" {
			for _, ref := range []outsideSolver{{name: "c4", path: o.c4}, {name: "Pons", path: o.pons}} {
				if ref.path != "" {
					ref.settledBy = make([]int, o.discs+1)
					outside = append(outside, ref)
				}
			}
		}
		rng := rand.New(rand.NewPCG(o.seed, uint64(b.rows*100+b.columns)))
		for g := 0; g < o.games; g++ {
			for _, moves := range gamePositions(rng, b.rows, b.columns, o.discs) {
				pos, err := s.Play(moves)
				if err != nil {
					fmt.Fprintf(stderr, "connectn-solvebench: %v\n", err)
					return 1
				}
				s.Reset()
				ctx, cancel := cpuBudget(o.budget, o.wallCap)
				cpu := cpuTime()
				r, err := s.Solve(ctx, pos, false)
				cpu = cpuTime() - cpu
				cancel()
				totalBy[len(moves)]++
				ok := err == nil && cpu <= o.budget
				if ok {
					settledBy[len(moves)]++
				}
				text := make([]byte, len(moves))
				for i, c := range moves {
					text[i] = "123456789abcdefghijklmnopqrstuvw"[c]
				}
				if o.verbose {
					fmt.Fprintf(stderr, "%s %q: %d discs, %v of processor time, %d nodes, settled %v\n", b.name, text, len(moves), cpu.Round(time.Millisecond), r.Nodes, ok)
				}
				if len(moves) < o.outsideFrom {
					continue
				}
				for k := range outside {
					ref := &outside[k]
					score, took, done, err := solveOutsideOne(ref.path, string(text), min(o.wallCap, 3*o.budget+5*time.Second))
					if err != nil {
						fmt.Fprintf(stderr, "connectn-solvebench: %s: %v\n", ref.name, err)
						return 1
					}
					if done && ok && score != r.Score {
						fmt.Fprintf(stderr, "connectn-solvebench: %s %q: %s's score %d, this solver's %d\n", b.name, text, ref.name, score, r.Score)
						return 1
					}
					if done && took <= o.budget {
						ref.settledBy[len(moves)]++
					}
					if o.verbose {
						fmt.Fprintf(stderr, "%s %q: %s: %v of processor time, finished %v, settled %v\n", b.name, text, ref.name, took.Round(time.Millisecond), done, done && took <= o.budget)
					}
				}
			}
		}
		fmt.Fprintf(stdout, "%s (columns x rows):\n| discs | positions | settled | share |", b.name)
		for _, ref := range outside {
			fmt.Fprintf(stdout, " %s settled |", ref.name)
		}
		fmt.Fprintf(stdout, "\n|---|---|---|---|%s\n", strings.Repeat("---|", len(outside)))
		var from8, total8 int
		outside8 := make([]int, len(outside))
		for d := 0; d <= o.discs; d++ {
			if totalBy[d] == 0 {
				continue
			}
			fmt.Fprintf(stdout, "| %d | %d | %d | %.0f%% |", d, totalBy[d], settledBy[d], 100*float64(settledBy[d])/float64(totalBy[d]))
			for k, ref := range outside {
				if d < o.outsideFrom {
					fmt.Fprint(stdout, " - |")
					continue
				}
				fmt.Fprintf(stdout, " %d |", ref.settledBy[d])
				if d >= 8 {
					outside8[k] += ref.settledBy[d]
				}
			}
			fmt.Fprintln(stdout)
			if d >= 8 {
				from8 += settledBy[d]
				total8 += totalBy[d]
			}
		}
		if total8 > 0 {
			fmt.Fprintf(stdout, "| 8 to %d | %d | %d | %.0f%% |", o.discs, total8, from8, 100*float64(from8)/float64(total8))
			for k := range outside {
				if o.outsideFrom > 8 {
					fmt.Fprint(stdout, " - |")
					continue
				}
				fmt.Fprintf(stdout, " %d |", outside8[k])
			}
			fmt.Fprintln(stdout)
		}
		fmt.Fprintln(stdout)
	}
	return 0
}

// outsideSolver is an outside solver's driver and the positions it
// settled, by number of discs.
type outsideSolver struct {
	name, path string
	settledBy  []int
}

// solveOutsideOne runs the outside solver at path on one position (moves,
// columns from 1) as a process of its own, which it stops after wall: it
// returns the score and the time the solver reported (its processor time
// with the drivers of docs/ai.md), done false when the solver did not answer
// within wall, or an error when it failed or answered out of format.
func solveOutsideOne(path, moves string, wall time.Duration) (score int, took time.Duration, done bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), wall)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
	cmd.Stdin = strings.NewReader(moves + "\n")
	var errOut strings.Builder
	cmd.Stderr = &errOut
	// Stopped at wall, it may leave children holding its output open:
	// they are not waited for.
	cmd.WaitDelay = 100 * time.Millisecond
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return 0, wall, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("%s: %v: %s", path, err, strings.TrimSpace(errOut.String()))
	}
	score, _, us, err := parseAnswer(strings.TrimRight(string(out), "\n"), moves)
	if err != nil {
		return 0, 0, false, fmt.Errorf("%s: %v", path, err)
	}
	return score, time.Duration(us) * time.Microsecond, true, nil
}

// parseAnswer reads an outside solver's line for the position moves
// (columns from 1; "" the empty board, whose line starts with its score):
// "moves score nodes microseconds". It returns an error naming the line when
// it is not that, or when the time is negative.
func parseAnswer(text, moves string) (score int, nodes uint64, us int64, err error) {
	f := strings.Fields(text)
	if moves == "" {
		f = append([]string{""}, f...)
	}
	if len(f) != 4 || f[0] != moves {
		return 0, 0, 0, fmt.Errorf("%q is not \"moves score nodes microseconds\" for %q", text, moves)
	}
	score, err1 := strconv.Atoi(f[1])
	nodes, err2 := strconv.ParseUint(f[2], 10, 64)
	us, err3 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || us < 0 {
		return 0, 0, 0, fmt.Errorf("%q: not numbers", text)
	}
	return score, nodes, us, nil
}

// cpuTime returns the processor time this process has used (user and
// system). With one worker it is the search's own time, whatever else the
// machine runs, so that the shares do not depend on the machine's load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuBudget returns a context that ends when this process has used budget
// more processor time, or after wall of wall-clock time.
func cpuBudget(budget, wall time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), wall)
	start := cpuTime()
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if cpuTime()-start > budget {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// gamePositions plays one real-looking game on a rows x columns board and
// returns its positions of 0 to most discs (zero-based columns), stopping
// before a move that ends the game.
func gamePositions(rng *rand.Rand, rows, columns, most int) [][]int {
	b, _ := game.NewBoard(rows, columns)
	var out [][]int
	var moves []int
	player := game.Player1
	for len(moves) <= most {
		out = append(out, append([]int(nil), moves...))
		c, ends := pick(rng, b, player)
		if c < 0 || ends {
			break
		}
		if _, err := b.Drop(c, player); err != nil {
			break
		}
		moves = append(moves, c)
		player = player.Other()
		if b.Full() {
			break
		}
	}
	return out
}

// pick chooses the move of p: a win (ends true), else the block of the
// opponent's win, else a column at random among those that do not hand
// the opponent a win (all if none), weighted towards the centre.
func pick(rng *rand.Rand, b *game.Board, p game.Player) (column int, ends bool) {
	wins := func(c int, who game.Player) bool {
		if !b.CanDrop(c) {
			return false
		}
		t := b.Clone()
		row, _ := t.Drop(c, who)
		return len(t.LinesThrough(row, c, 4)) > 0
	}
	for c := 0; c < b.Columns(); c++ {
		if wins(c, p) {
			return c, true
		}
	}
	for c := 0; c < b.Columns(); c++ {
		if wins(c, p.Other()) {
			return c, false
		}
	}
	var safe, all []int
	for c := 0; c < b.Columns(); c++ {
		if !b.CanDrop(c) {
			continue
		}
		all = append(all, c)
		t := b.Clone()
		_, _ = t.Drop(c, p)
		givesWin := false
		if t.CanDrop(c) {
			row, _ := t.Drop(c, p.Other())
			givesWin = len(t.LinesThrough(row, c, 4)) > 0
		}
		if !givesWin {
			safe = append(safe, c)
		}
	}
	choices := safe
	if len(choices) == 0 {
		choices = all
	}
	if len(choices) == 0 {
		return -1, false
	}
	centre := float64(b.Columns()-1) / 2
	weights := make([]float64, len(choices))
	total := 0.0
	for i, c := range choices {
		weights[i] = max(float64(b.Columns())-1.5*math.Abs(float64(c)-centre), 1)
		total += weights[i]
	}
	x := rng.Float64() * total
	for i, w := range weights {
		if x < w {
			return choices[i], false
		}
		x -= w
	}
	return choices[len(choices)-1], false
}
