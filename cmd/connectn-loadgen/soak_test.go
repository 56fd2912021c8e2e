package main

import (
	"bytes"
	"cmp"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSoak runs a short soak (20s, a sample every 2s, 30 % of the matches
// left to 2s deadlines) and reads the facts of its report. It does not ask
// for PASS: 20 seconds are the server's warm-up (its session cache fills),
// not a steady state.
func TestSoak(t *testing.T) {
	t.Parallel() // 20 seconds of wall time, mostly waiting: beside the others
	bin := connectnBinary(t)
	code, out := runLoadgen(t, time.Minute, "-spawn", bin, "-soak", "20s", "-soak-every", "2s", "-soak-abandon", "0.3",
		"-soak-timeout", "2s", "-matches", "6", "-faults", "0", "-seed", "3")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d, want 0 (PASS) or 1 (FAIL):\n%s", code, out)
	}
	if !strings.HasSuffix(out, "PASS\n") && !regexp.MustCompile(`\nFAIL: [^\n]+\n$`).MatchString(out) {
		t.Errorf("no verdict at the end:\n%s", out)
	}
	if n := len(regexp.MustCompile(`(?m)^\s+\d\d:\d\d\s+\d+\.\dM`).FindAllString(out, -1)); n < 12 {
		t.Errorf("%d sample lines, want the start, 10 samples and the one after the phase:\n%s", n, out)
	}
	if n := number(t, out, `deadlines fired: (\d+)`); n == 0 {
		t.Errorf("no deadline fired:\n%s", out)
	}
	if n := number(t, out, `(\d+) matches open [\d.]+m?s later`); n != 0 {
		t.Errorf("%d matches still open after the deadlines", n)
	}
	if !regexp.MustCompile(`at rest after the phase, connections closed: \d+ \(\d+ at the start; bound \+5\) ok`).MatchString(out) {
		t.Errorf("goroutines left at rest, or not reported:\n%s", out)
	}
	for _, want := range []string{"goroutines", "resident memory", "bytes per match kept", "server log at WARN or above: nothing"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the report:\n%s", want, out)
		}
	}
}

// TestSoakVerdict judges made-up samples: flat ones pass; growth of the
// resident memory or the goroutines, the database growing faster than its
// matches, a match left open or a warning in the log fail.
func TestSoakVerdict(t *testing.T) {
	flat := func(i int) soakSample {
		return soakSample{at: time.Duration(i) * time.Minute, rss: 100 << 20, heap: 40 << 20, goroutines: 30, walFile: 4 << 20,
			logical: int64(i) * 3000 * 1000, kept: int64(i) * 1000, deadlines: int64(i) * 10, abandoned: int64(i) * 10}
	}
	for _, tc := range []struct {
		name    string
		change  func(i int, s *soakSample)
		log     []string
		rest    int64  // goroutines at rest; 30 (as at the start) when 0
		matches int    // -matches; none given when 0
		want    string // in the FAIL line; "" for PASS
	}{
		{name: "flat", change: func(int, *soakSample) {}},
		{name: "noise", change: func(i int, s *soakSample) { s.rss += int64(i%3) << 20; s.goroutines += int64(i%4) * 15 }},
		{name: "rss grows", change: func(i int, s *soakSample) { s.rss += int64(i) << 20 }, want: "resident memory grew"},
		{name: "goroutines grow", change: func(i int, s *soakSample) { s.goroutines += int64(i) }, want: "goroutines grew"},
		// At 50 matches the windows' lowest may differ by half the matches
		// (requests in flight), not more.
		{name: "in flight at 50 matches", matches: 50, change: func(i int, s *soakSample) {
			if i > 20 {
				s.goroutines += 25
			}
		}},
		{name: "goroutines grow at 50 matches", matches: 50, change: func(i int, s *soakSample) { s.goroutines += 2 * int64(i) }, want: "goroutines grew"},
		{name: "database grows faster", change: func(i int, s *soakSample) { s.logical += int64(i*i) * 100_000 }, want: "faster than the matches"},
		{name: "wal grows", change: func(i int, s *soakSample) { s.walFile += int64(i) << 20 }, want: "WAL file grew"},
		{name: "goroutines left", change: func(int, *soakSample) {}, rest: 40, want: "goroutines left at rest"},
		{name: "warning", change: func(int, *soakSample) {}, log: []string{`time=x level=WARN msg="editing the board message" match=1`}, want: "warnings in the server's log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var samples []soakSample
			for i := range 31 {
				s := flat(i)
				tc.change(i, &s)
				samples = append(samples, s)
			}
			var out bytes.Buffer
			o := &options{soak: soakOptions{abandon: 0.1}}
			if tc.matches > 0 {
				o.matches = []int{tc.matches}
			}
			code := soakVerdict(&out, o, samples, samples[30], cmp.Or(tc.rest, 30), nil, newRecorder(), tc.log)
			got := out.String()
			switch {
			case tc.want == "" && (code != 0 || !strings.HasSuffix(got, "PASS\n")):
				t.Errorf("exit %d, want PASS:\n%s", code, got)
			case tc.want != "" && (code != 1 || !strings.Contains(got, "FAIL: ") || !strings.Contains(got, tc.want)):
				t.Errorf("exit %d, want FAIL with %q:\n%s", code, tc.want, got)
			}
		})
	}
	t.Run("open match", func(t *testing.T) {
		var samples []soakSample
		for i := range 31 {
			samples = append(samples, flat(i))
		}
		last := samples[30]
		last.active = 2
		var out bytes.Buffer
		if code := soakVerdict(&out, &options{}, samples, last, 30, nil, newRecorder(), nil); code != 1 || !strings.Contains(out.String(), "2 matches still open") {
			t.Errorf("exit %d, want FAIL for 2 open matches:\n%s", code, out.String())
		}
	})
}
