package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGatewayRun runs -mode both briefly, with matches of two rounds so
// that rounds end (the next board comes with the response to the click
// that ends a round), then the memory phase with a few
// matches, and reads the report: the gateway phase acknowledged moves and
// finished matches without an error, the table sets both transports side
// by side, and the memory rows count every match active.
func TestGatewayRun(t *testing.T) {
	t.Parallel() // its memory phases mostly wait for the servers to settle: beside the others
	bin := connectnBinary(t)
	code, out := runLoadgen(t, 2*time.Minute, "-spawn", bin, "-mode", "both", "-faults", "0", "-matches", "3", "-duration", "1s", "-rows", "4",
		"-columns", "4", "-connect", "3", "-wins", "2", "-seed", "7", "-pings=false", "-rss", "5,12", "-rss-moves", "2")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	_, gw, ok := strings.Cut(out, "-- gateway (connectn run), 3 matches\n")
	if !ok {
		t.Fatalf("no gateway phase in:\n%s", out)
	}
	gw, _, _ = strings.Cut(gw, "\n\n")
	if moves := number(t, gw, `(\d+) moves acknowledged`); moves < 10 {
		t.Errorf("%d moves acknowledged over the gateway in a second, want at least 10", moves)
	}
	if n := number(t, gw, `matches finished (\d+)`); n == 0 {
		t.Error("no match finished over the gateway")
	}
	if n := number(t, gw, `callback ×(\d+)`); n < 10 {
		t.Errorf("%d callbacks counted, want at least 10", n)
	}
	if n := number(t, gw, `next board +\d+ after their round's end \((\d+) in the response`); n == 0 {
		t.Error("no next board arrived with a response over the gateway")
	}
	if strings.Contains(out, "errors:") || strings.Contains(gw, "refused") {
		t.Errorf("errors reported:\n%s", out)
	}
	for _, re := range []string{`(?m)^ +3 +HTTP +\d+ +\d+ .* 0$`, `(?m)^ +3 +gateway +\d+ +\d+ .* 0$`,
		`connectn serve peak resident memory: \d`, `connectn run peak resident memory: \d`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matching %q in:\n%s", re, out)
		}
	}
	if regexp.MustCompile(`(?m)^ +3 +gateway .*n/a`).MatchString(out) {
		t.Errorf("the gateway phase's CPU not measured:\n%s", out)
	}
	for _, n := range []string{"0", "5", "12"} {
		// active, opened in, failed 0, VmRSS, VmHWM, Go's limit,
		// goroutines, the gauge: one row of each server.
		re := `(?m)^ +` + n + ` +[\d.]+s +0 +[\d.]+ MiB +[\d.]+ MiB +[\d.]+ MiB +\d+ +` + n + `$`
		if got := len(regexp.MustCompile(re).FindAllString(out, -1)); got != 2 {
			t.Errorf("%d memory rows for %s active matches (%q), want one of serve and one of run, in:\n%s", got, n, re, out)
		}
	}
}

func TestGatewayFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "grpc", "-spawn", "x"},
		{"-mode", "gateway"},
		{"-mode", "both", "-spawn", "x", "-crash"},
		{"-mode", "gateway", "-spawn", "x", "-replicas", "2"},
		{"-rss", "10"},
		{"-mode", "gateway", "-spawn", "x", "-rss", "10,5"},
		{"-mode", "gateway", "-spawn", "x", "-rss", "0"},
		{"-mode", "gateway", "-spawn", "x", "-rss", "10,x"},
		{"-mode", "gateway", "-spawn", "x", "-rss-moves", "7"},
		{"-mode", "gateway", "-spawn", "x", "-rss-moves", "-1"},
		{"-spawn", "x", "-soak", "10m", "-rss", "10"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, stderr.String())
		}
	}
}

// TestDefaults checks that the load generator's defaults are a faithful
// load: both transports when it starts the servers itself, requests to
// replicas at random, every REST fault kind mixed, no bot token.
func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		mode string
	}{
		{"spawned", []string{"-spawn", "x"}, modeBoth},
		{"a server started elsewhere", nil, modeHTTP},
		{"replicas", []string{"-spawn", "x", "-replicas", "2"}, modeHTTP},
		{"soak", []string{"-spawn", "x", "-soak", "10m"}, modeHTTP},
		{"crash test", []string{"-spawn", "x", "-crash"}, modeHTTP},
		{"against the bot", []string{"-spawn", "x", "-ai-matches", "2"}, modeHTTP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if o.gw.mode != tc.mode {
				t.Errorf("mode %q, want %q", o.gw.mode, tc.mode)
			}
			if o.route != routeRandom || o.faults != defaultFaults || o.faults <= 0 || len(o.faultKinds) != len(restFaultKinds) || o.botToken {
				t.Errorf("route %q, faults %v of %v, bot token %t; want random, %v of every kind, none", o.route, o.faults, o.faultKinds, o.botToken, defaultFaults)
			}
		})
	}
}
