package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests build cmd/connectn and drive it as a separate process, as the
// command does by hand.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// connectnBinary builds cmd/connectn once per test run.
func connectnBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs connectn: skipped with -short")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "connectn-loadgen-test-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "connectn")
		out, err := exec.Command("go", "build", "-o", binPath, "../connectn").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("go build ../connectn: %v\n%s", binErr, binPath)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" && binErr == nil {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// runLoadgen runs the command with args and a deadline, and returns its
// exit status and output.
func runLoadgen(t *testing.T, limit time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	if ctx.Err() != nil {
		t.Fatalf("connectn-loadgen %v still running after %v\nstdout:\n%s\nstderr:\n%s", args, limit, stdout.String(), stderr.String())
	}
	if testing.Verbose() || code != 0 {
		t.Logf("stdout:\n%s\nstderr (the server's log):\n%s", stdout.String(), stderr.String())
	}
	return code, stdout.String()
}

// number returns the integer that re captures in s, failing the test when
// there is none.
func number(t *testing.T, s, re string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %q in:\n%s", re, s)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCrash runs the crash test: kill -9 of connectn serve in the middle
// of a load run of multi-round matches, a restart on the same database,
// and the checks of every acknowledged move. Besides the verdict, the test
// reads the counts the command printed.
func TestCrash(t *testing.T) {
	bin := connectnBinary(t)
	code, out := runLoadgen(t, 3*time.Minute, "-spawn", bin, "-crash", "-faults", "0", "-matches", "12", "-rows", "5", "-columns", "5",
		"-connect", "3", "-wins", "2", "-crash-after", "150", "-seed", "1")
	if code != 0 || !strings.HasSuffix(out, "PASS\n") {
		t.Fatalf("exit %d, want 0 and PASS:\n%s", code, out)
	}
	acked := number(t, out, `killed: (\d+) moves acknowledged`)
	if acked < 150 {
		t.Errorf("killed after %d acknowledged moves, want at least 150", acked)
	}
	if stored := number(t, out, `stored: (\d+) of \d+ acknowledged moves`); stored != acked {
		t.Errorf("%d of %d acknowledged moves found stored after the kill", stored, acked)
	}
	all := number(t, out, `\((\d+) moves acknowledged in all\)`)
	if final := number(t, out, `stored after the end: all (\d+) acknowledged moves`); final != all || all <= acked {
		t.Errorf("after the end: %d stored, %d acknowledged in all (%d before the kill)", final, all, acked)
	}
	if n := number(t, out, `played on: all (\d+) matches to their end`); n != 12 {
		t.Errorf("%d matches played to their end, want 12", n)
	}
	if !strings.Contains(out, "PRAGMA integrity_check: ok") {
		t.Error("no integrity check reported")
	}
}

// TestStop runs the graceful stop test: SIGTERM with a request in flight
// in every match.
func TestStop(t *testing.T) {
	bin := connectnBinary(t)
	code, out := runLoadgen(t, 2*time.Minute, "-spawn", bin, "-stop", "-faults", "0", "-matches", "30", "-crash-after", "100", "-seed", "2",
		"-rows", "4", "-columns", "4", "-connect", "3", "-wins", "3")
	if code != 0 || !strings.HasSuffix(out, "PASS\n") {
		t.Fatalf("exit %d, want 0 and PASS:\n%s", code, out)
	}
	if n := number(t, out, `SIGTERM with (\d+) requests in flight`); n == 0 {
		t.Errorf("no request in flight at the SIGTERM")
	}
	if !strings.Contains(out, "exit status 0") || !strings.Contains(out, "no -wal file left") {
		t.Errorf("exit status or store closing not reported:\n%s", out)
	}
	if n := number(t, out, `board posts left pending in the store: (\d+)`); n != 0 {
		t.Errorf("%d board posts left pending at the exit", n)
	}
}

// TestLoadRun runs both phases briefly with matches of two rounds, so that
// rounds end (the next board with the response to the click that ends a
// round, the round's message edited into its record), and reads the
// report.
func TestLoadRun(t *testing.T) {
	bin := connectnBinary(t)
	code, out := runLoadgen(t, time.Minute, "-spawn", bin, "-mode", "http", "-faults", "0", "-matches", "3", "-duration", "1s", "-rows", "4", "-columns", "4",
		"-connect", "3", "-wins", "2", "-seed", "3")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	moves := number(t, out, `(\d+) moves acknowledged`)
	if moves < 10 {
		t.Errorf("%d moves acknowledged in a second, want at least 10", moves)
	}
	all, in := number(t, out, `next board +(\d+) after`), number(t, out, `next board +\d+ after their round's end \((\d+) in the response`)
	if all == 0 || in != all {
		t.Errorf("%d next boards, %d of them in the response: want some, all in the response", all, in)
	}
	if n := number(t, out, `PATCH message ×(\d+)`); n == 0 {
		t.Error("the server edited no round's message into its record")
	}
	if strings.Contains(out, "POST follow-up") {
		t.Error("the server posted a follow-up; every next board comes with a response")
	}
	if strings.Contains(out, "errors:") {
		t.Errorf("errors reported:\n%s", out)
	}
	for _, want := range []string{"3   ping", "3  moves", "server CPU/request", "move ÷ PING"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if regexp.MustCompile(`n/a`).MatchString(out) {
		t.Errorf("CPU per request not measured:\n%s", out)
	}
}

// TestRESTFaults plays matches of two rounds while the fake REST API
// fails a fifth of the server's calls, in every way -faults knows, the
// server without a bot token: every next board arrives, none twice, and
// the server's retries by cause show in the report.
func TestRESTFaults(t *testing.T) {
	bin := connectnBinary(t)
	code, out := runLoadgen(t, 2*time.Minute, "-spawn", bin, "-mode", "http", "-matches", "4", "-duration", "3s", "-rows", "4", "-columns", "4",
		"-connect", "3", "-wins", "2", "-seed", "5", "-pings=false", "-faults", "0.2", "-fault-retry-after", "50ms")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if n := number(t, out, `next board +(\d+) after`); n == 0 {
		t.Errorf("no next board arrived:\n%s", out)
	}
	if n := number(t, out, `boards posted twice: (\d+)`); n != 0 {
		t.Errorf("%d boards posted twice:\n%s", n, out)
	}
	if strings.Contains(out, "errors:") {
		t.Errorf("errors reported:\n%s", out)
	}
	for _, cause := range []string{"429", "5xx"} {
		if !strings.Contains(out, `connectn_discord_retries_total{cause="`+cause+`"}`) {
			t.Errorf("no retry counted for %s:\n%s", cause, out)
		}
	}
}

// TestReplicas runs two replicas of the server on one SQLite file, every
// match's requests taken by each in turn, and reads both processes' CPU.
func TestReplicas(t *testing.T) {
	bin := connectnBinary(t)
	code, out := runLoadgen(t, time.Minute, "-spawn", bin, "-replicas", "2", "-route", "turn", "-faults", "0", "-db", filepath.Join(t.TempDir(), "shared.db"),
		"-matches", "3", "-duration", "1s", "-rows", "4", "-columns", "4", "-connect", "3", "-seed", "5")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if moves := number(t, out, `(\d+) moves acknowledged`); moves < 10 {
		t.Errorf("%d moves acknowledged in a second, want at least 10", moves)
	}
	if strings.Contains(out, "errors:") || regexp.MustCompile(`n/a`).MatchString(out) {
		t.Errorf("errors, or CPU not measured:\n%s", out)
	}
	one, two := number(t, out, `requests by replica: 1: (\d+)`), number(t, out, `requests by replica: 1: \d+ 2: (\d+)`)
	if one < 10 || two < 10 || one-two > 1 || two-one > 1 {
		t.Errorf("requests by replica: %d and %d, want them taken in turn", one, two)
	}
	for _, want := range []string{"replica 1's peak resident memory", "replica 2's peak resident memory"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}

func TestGenKeyAndFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-genkey"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-genkey: exit %d: %s", code, stderr.String())
	}
	m := regexp.MustCompile(`^DISCORD_PUBLIC_KEY=([0-9a-f]{64})\nCONNECTN_LOADGEN_KEY=([0-9a-f]{64})\n$`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("-genkey printed %q", stdout.String())
	}
	key, err := parseKey(m[2])
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ToLower(hexOf(key.Public().(ed25519.PublicKey))); got != m[1] {
		t.Errorf("the private key's public half is %s, printed %s", got, m[1])
	}
	for _, args := range [][]string{{"-crash"}, {"-matches", "0"}, {"-matches", "x"}, {"extra"},
		{"-replicas", "0"}, {"-replicas", "2"}, {"-pid", "x"}, {"-pid", "1,-2"}, {"-url", " , "},
		{"-route", "roundrobin"}, {"-client-work", "-1ms"}, {"-faults", "1.5"}, {"-repeat", "0"}} {
		stderr.Reset()
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, stderr.String())
		}
	}
	if _, err := parseKey("abcd"); err == nil {
		t.Error("parseKey accepted 2 bytes")
	}
}

func TestPercentiles(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	p50, p90, p99, mx := percentiles(d)
	if p50 != 50*time.Millisecond || p90 != 90*time.Millisecond || p99 != 99*time.Millisecond || mx != 100*time.Millisecond {
		t.Fatalf("got %v %v %v %v, want 50ms 90ms 99ms 100ms", p50, p90, p99, mx)
	}
	if a, b, c, e := percentiles(nil); a+b+c+e != 0 {
		t.Fatal("percentiles of nothing are not zero")
	}
}

func TestCPUTime(t *testing.T) {
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := range 1_000_000 {
			x += i
		}
		if after, _ := cpuTime(os.Getpid()); after-before >= 50*time.Millisecond {
			return
		}
	}
	t.Fatalf("cpuTime did not grow by 50ms in 5s of busy work (%d)", x)
}

func TestTokens(t *testing.T) {
	c := &client{}
	seq, e := c.next("1300000000000000042", player(userBase+1))
	if channel, original, ok := resolve(e.Token); !ok || channel != "1300000000000000042" || original != strconv.FormatInt(originalBase+seq, 10) ||
		e.ID != strconv.FormatInt(interBase+seq, 10) {
		t.Errorf("resolve(%q) = %s, %s, %t; id %s", e.Token, channel, original, ok, e.ID)
	}
	for _, tok := range []string{"aW50ZXJhY3Rpb24", "lg", "lgx1", "lg13x", "lg13xa"} {
		if _, _, ok := resolve(tok); ok {
			t.Errorf("resolve read %q, a token that is not ours", tok)
		}
	}
	r := parseCustomID("cn:drop:12:3:45:6")
	if !r.OK || r.Match != 12 || r.Post != 3 || r.Ply != 45 || r.Column != 6 {
		t.Errorf("parseCustomID = %+v", r)
	}
	if parseCustomID("cn:drop:12:3").OK || parseCustomID("xx:accept:1").OK {
		t.Error("parseCustomID accepted a malformed custom_id")
	}
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// TestReplicaEnv checks that each replica serves its profiles on a port of
// its own, and that nothing else in -server-env changes.
func TestReplicaEnv(t *testing.T) {
	env := envList{"CONNECTN_LOG_LEVEL=info", "CONNECTN_PPROF_ADDR=127.0.0.1:6081"}
	tests := []struct {
		name    string
		env     envList
		k       int
		want    envList
		wantErr bool
	}{
		{"the first replica", env, 0, env, false},
		{"the second", env, 1, envList{"CONNECTN_LOG_LEVEL=info", "CONNECTN_PPROF_ADDR=127.0.0.1:6082"}, false},
		{"the fourth, IPv6", envList{"CONNECTN_PPROF_ADDR=[::1]:6081"}, 3, envList{"CONNECTN_PPROF_ADDR=[::1]:6084"}, false},
		{"profiles off", envList{"CONNECTN_PPROF_ADDR=off"}, 1, envList{"CONNECTN_PPROF_ADDR=off"}, false},
		{"no profiles", envList{"CONNECTN_LOG_LEVEL=info"}, 1, envList{"CONNECTN_LOG_LEVEL=info"}, false},
		{"a port that is not a number", envList{"CONNECTN_PPROF_ADDR=localhost:pprof"}, 1, nil, true},
		{"past the last port", envList{"CONNECTN_PPROF_ADDR=127.0.0.1:65535"}, 1, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replicaEnv(tt.env, tt.k)
			if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
				t.Errorf("replicaEnv(%q, %d) = %q, %v; want %q (error: %t)", tt.env, tt.k, got, err, tt.want, tt.wantErr)
			}
		})
	}
	if env[1] != "CONNECTN_PPROF_ADDR=127.0.0.1:6081" {
		t.Errorf("replicaEnv changed the list it was given: %q", env)
	}
}
