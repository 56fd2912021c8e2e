// Command testreport reads the events of `go test -json` (see `go doc
// test2json`) on standard input and writes what `go test` writes without
// -json: a line per package (ok, FAIL, or ? when it has no test files),
// and before a failed package's FAIL line the whole output of each test
// that failed in it, and of the package itself (a build error, a panic, a
// timeout). Then it writes two summaries: every skipped test, with its
// package and the reason it gave (the last message it logged, which is
// t.Skip's), grouped by package and reason; and every failed test.
//
// It exits 1 when a test or a package failed, else 0. A line that is not
// an event is copied through unchanged. .ci/run pipes `go test -race -json
// ./...` through it under `set -o pipefail`, so go test's own exit status
// counts as well:
//
//	go test -json ./... | go run .ci/testreport.go
//
// It uses the standard library only: CI's machine has Go and nothing else.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// event is one line of go test -json: a test2json event, or one of the
// go command's build events (build-output, build-fail), which name the
// package in ImportPath.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

// line is one line of a package's output and the test it belongs to ("" for
// the package's own).
type line struct {
	test, text string
}

// pkg is the output of one package so far, and how its tests ended.
type pkg struct {
	lines []line
	ended map[string]string // test -> pass, fail or skip
}

// skip is a skipped test and its reason.
type skip struct {
	pkg, test, reason string
}

// failure is a failed test, or a package that failed outside its tests
// (test is then "").
type failure struct {
	pkg, test string
}

// logEntry matches the first line of a message logged by a test
// ("    file_test.go:42: message"); continuation lines are indented deeper
// and carry no file name.
var logEntry = regexp.MustCompile(`^\s+[^\s:]+\.go:\d+: `)

func main() {
	os.Exit(report(os.Stdin, os.Stdout))
}

// report reads go test -json from in, writes the report to out and returns
// the exit status: 1 when anything failed, else 0.
func report(in io.Reader, out io.Writer) int {
	r := &reporter{out: bufio.NewWriter(out), pkgs: map[string]*pkg{}}
	defer r.out.Flush()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(r.out, sc.Text()) // not an event: as it came
			r.out.Flush()
			continue
		}
		r.event(e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(r.out, "testreport: reading go test -json: %v\n", err)
		r.failed = true
	}
	r.unfinished()
	r.summary()
	if r.failed {
		return 1
	}
	return 0
}

// reporter holds the packages under way and what has been seen so far.
type reporter struct {
	out      *bufio.Writer
	pkgs     map[string]*pkg
	order    []string // packages in the order they began
	skips    []skip
	failures []failure
	failed   bool
}

func (r *reporter) pkg(name string) *pkg {
	p := r.pkgs[name]
	if p == nil {
		p = &pkg{ended: map[string]string{}}
		r.pkgs[name] = p
		r.order = append(r.order, name)
	}
	return p
}

func (r *reporter) event(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.out, e.Output) // compiler errors: at once, in full
		r.out.Flush()
		return
	case "build-fail":
		r.failed = true
		return
	}
	p := r.pkg(e.Package)
	switch e.Action {
	case "output":
		p.lines = append(p.lines, line{e.Test, e.Output})
	case "pass", "fail", "skip":
		if e.Test != "" {
			p.ended[e.Test] = e.Action
			switch e.Action {
			case "skip":
				r.skips = append(r.skips, skip{e.Package, e.Test, reason(p, e.Test)})
			case "fail":
				r.failures = append(r.failures, failure{e.Package, e.Test})
				r.failed = true
			}
			return
		}
		r.end(e.Package, p, e.Action == "fail")
	}
}

// end writes a package's report once it has ended: its ok or ? line, or
// when it failed the output of its failed (or unfinished) tests and its
// own output.
func (r *reporter) end(name string, p *pkg, failed bool) {
	if !failed {
		for _, l := range p.lines {
			if l.test == "" && (strings.HasPrefix(l.text, "ok ") || strings.HasPrefix(l.text, "?")) {
				fmt.Fprint(r.out, l.text)
			}
		}
	} else {
		r.failed = true
		testFailed := false
		for _, l := range p.lines {
			if l.test == "" || p.ended[l.test] == "fail" || p.ended[l.test] == "" {
				fmt.Fprint(r.out, l.text)
			}
		}
		for _, f := range r.failures {
			testFailed = testFailed || f.pkg == name
		}
		if !testFailed {
			r.failures = append(r.failures, failure{name, ""})
		}
	}
	r.out.Flush()
	delete(r.pkgs, name)
}

// unfinished reports the packages whose end never came (go test was
// killed, or its output cut short): all their output, as a failure.
func (r *reporter) unfinished() {
	for _, name := range r.order {
		if p := r.pkgs[name]; p != nil {
			fmt.Fprintf(r.out, "testreport: %s did not finish; its output:\n", name)
			for _, l := range p.lines {
				fmt.Fprint(r.out, l.text)
			}
			r.failures = append(r.failures, failure{name, ""})
			r.failed = true
		}
	}
}

// reason returns the last message test logged, which for a skipped test is
// the one t.Skip gave, with its file and line; "(no message)" when it
// logged none.
func reason(p *pkg, test string) string {
	var msg []string
	for _, l := range p.lines {
		if l.test != test {
			continue
		}
		text := strings.TrimRight(l.text, "\n")
		switch {
		case logEntry.MatchString(text):
			msg = []string{strings.TrimSpace(text)}
		case msg != nil && strings.HasPrefix(text, "        "):
			msg = append(msg, strings.TrimSpace(text))
		case strings.HasPrefix(text, "=== ") || strings.HasPrefix(text, "--- "):
		default:
			msg = nil
		}
	}
	if msg == nil {
		return "(no message)"
	}
	return strings.Join(msg, "\n        ")
}

// summary writes the skipped tests, grouped by package and reason in the
// order they were met, and the failures.
func (r *reporter) summary() {
	fmt.Fprintf(r.out, "\n== skipped tests: %d (package, the reason given, the tests that gave it)\n", len(r.skips))
	type group struct {
		pkg, reason string
		tests       []string
	}
	var groups []*group
	byKey := map[[2]string]*group{}
	for _, s := range r.skips {
		k := [2]string{s.pkg, s.reason}
		g := byKey[k]
		if g == nil {
			g = &group{pkg: s.pkg, reason: s.reason}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.tests = append(g.tests, s.test)
	}
	for _, g := range groups {
		fmt.Fprintf(r.out, "%s: %s\n", g.pkg, g.reason)
		for _, t := range g.tests {
			fmt.Fprintf(r.out, "    %s\n", t)
		}
	}
	if len(r.failures) == 0 {
		if r.failed {
			fmt.Fprintln(r.out, "== FAILED (see the output above)")
		} else {
			fmt.Fprintln(r.out, "== no test failed")
		}
		return
	}
	fmt.Fprintf(r.out, "== FAILED: %d (their output is above)\n", len(r.failures))
	for _, f := range r.failures {
		if f.test == "" {
			fmt.Fprintf(r.out, "%s (the package itself: build, panic, timeout or TestMain)\n", f.pkg)
		} else {
			fmt.Fprintf(r.out, "%s %s\n", f.pkg, f.test)
		}
	}
}
