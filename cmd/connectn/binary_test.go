//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/connectn/connectn/bot/discordtest"
)

// These tests build the connectn binary, as a user would, and run it as a
// separate process: real signals, real pipes, a real working folder.

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// connectnBinary builds cmd/connectn once per test run and returns its
// path. The folder is world-readable so that the binary can be run as
// another user.
func connectnBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		// CI's race detector run: the binary is a process of its own,
		// which the race detector does not watch, and building it with
		// that run's cgo would compile every package once more. The
		// plain run runs these tests.
		t.Skip("-short: builds and runs the connectn binary, a process the race detector does not watch; the plain run runs it")
	}
	binOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		}
		if binDir, binErr = os.MkdirTemp("", "connectn-bin-"); binErr != nil {
			return
		}
		if binErr = os.Chmod(binDir, 0o755); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "connectn")
		cmd := exec.Command(goTool, "build", "-o", binPath, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// binaryCmd returns the binary with args in dir, with an environment holding
// only PATH and vars (nothing of the tester's own CONNECTN_ or DISCORD_
// variables).
func binaryCmd(t *testing.T, dir string, vars map[string]string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(connectnBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// binaryLimit bounds every run of the binary: a run that should end but
// does not (a check that no longer stops serve, say) is killed and fails
// its test instead of hanging the package.
const binaryLimit = 60 * time.Second

// runBounded runs cmd to its end, killing it after limit; it reports
// whether it had to.
func runBounded(cmd *exec.Cmd, limit time.Duration) (killed bool, err error) {
	if err := cmd.Start(); err != nil {
		return false, err
	}
	var k atomic.Bool
	timer := time.AfterFunc(limit, func() {
		k.Store(true)
		cmd.Process.Kill()
	})
	defer timer.Stop()
	err = cmd.Wait()
	return k.Load(), err
}

// runBinary runs the binary to its end and returns what it wrote.
func runBinary(t *testing.T, dir string, vars map[string]string, args ...string) result {
	t.Helper()
	cmd := binaryCmd(t, dir, vars, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killed, err := runBounded(cmd, binaryLimit)
	if killed {
		t.Fatalf("connectn %v still running after %v; stderr:\n%s", args, binaryLimit, stderr.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run connectn %v: %v", args, err)
	}
	return result{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

func TestBinaryHelpConfigInvite(t *testing.T) {
	dir := t.TempDir()
	r := runBinary(t, dir, nil, "-h")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "Commands:") || !strings.Contains(r.stdout, "CONNECTN_TURN_TIMEOUT, -turn-timeout DURATION (default 5m)") {
		t.Fatalf("connectn -h: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	r = runBinary(t, dir, nil, "run", "-h")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: connectn run [flags]") || strings.Contains(r.stdout, "\n  -addr ") {
		t.Fatalf("connectn run -h: exit %d, stdout:\n%s", r.code, r.stdout)
	}

	// config: a flag, the environment, .env and the defaults.
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("DISCORD_TOKEN="+fakeToken+"\nCONNECTN_TURN_TIMEOUT=2m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, dir, map[string]string{"CONNECTN_DB": "/srv/connectn.db"}, "config", "-addr", ":9000")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("connectn config: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"DISCORD_TOKEN               ******** (set, masked)      .env",
		"CONNECTN_ADDR               :9000                       flag -addr",
		"CONNECTN_DB                 /srv/connectn.db            environment",
		"CONNECTN_TURN_TIMEOUT       2m                          .env",
		"CONNECTN_CHALLENGE_TIMEOUT  5m                          default",
	} {
		if !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("connectn config lacks the line %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, fakeToken) {
		t.Fatalf("connectn config shows the token")
	}

	// invite, looking the application up with the token through
	// CONNECTN_DISCORD_API.
	fake, _ := fakeDiscord(t)
	r = runBinary(t, dir, map[string]string{"CONNECTN_DISCORD_API": fake.URL() + "/api/v9"}, "invite")
	want := "https://discord.com/oauth2/authorize?client_id=" + fakeAppID + "&integration_type=0&permissions=309237664768&scope=bot+applications.commands\n"
	if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "integration_type=1") {
		t.Fatalf("connectn invite: exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
}

// startPlay starts `connectn play` and waits for its first prompt.
func startPlay(t *testing.T) (*exec.Cmd, io.WriteCloser, *bytes.Buffer) {
	t.Helper()
	cmd := binaryCmd(t, t.TempDir(), nil, "play")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	prompt := make(chan error, 1)
	go func() {
		r := bufio.NewReader(stdout)
		var seen strings.Builder
		for {
			b, err := r.ReadByte()
			if err != nil {
				prompt <- err
				return
			}
			seen.WriteByte(b)
			if strings.HasSuffix(seen.String(), "enter a column (1-7): ") {
				prompt <- nil
				io.Copy(io.Discard, r)
				return
			}
		}
	}()
	select {
	case err := <-prompt:
		if err != nil {
			t.Fatalf("no prompt: %v; stderr %q", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no prompt within 20s")
	}
	return cmd, stdin, &stderr
}

// TestBinaryPlaySignals checks that Ctrl-C and SIGTERM end `connectn play`
// at once, waiting at a prompt, with the status a shell expects.
func TestBinaryPlaySignals(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			cmd, stdin, stderr := startPlay(t)
			defer stdin.Close()
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("connectn play still runs 10s after %v", tt.sig)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if ws.Signaled() || ws.ExitStatus() != tt.want {
				t.Fatalf("after %v: got %v, want exit status %d", tt.sig, cmd.ProcessState, tt.want)
			}
			if s := stderr.String(); strings.TrimSpace(s) != "" {
				t.Errorf("stderr: %q, want only a line break", s)
			}
		})
	}
}

// TestBinaryPlayBrokenPipe checks that `connectn play | head -c 10` ends
// quietly when head goes away.
func TestBinaryPlayBrokenPipe(t *testing.T) {
	cmd := binaryCmd(t, t.TempDir(), nil, "play")
	cmd.Stdin = strings.NewReader(strings.Repeat("1\n2\n", 50))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var killed atomic.Bool
	timer := time.AfterFunc(binaryLimit, func() { // also ends ReadFull: the pipe closes
		killed.Store(true)
		cmd.Process.Kill()
	})
	defer timer.Stop()
	io.ReadFull(r, make([]byte, 10))
	r.Close()
	err = cmd.Wait()
	if killed.Load() {
		t.Fatalf("connectn play still running after %v", binaryLimit)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	quiet := (ws.Signaled() && ws.Signal() == syscall.SIGPIPE) || (ws.Exited() && ws.ExitStatus() == 0)
	if !quiet {
		t.Errorf("got %v (%v), want an end by SIGPIPE or status 0", cmd.ProcessState, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q, want nothing", stderr.String())
	}
}

// TestBinaryDatabaseNotWritable checks the message for a database folder
// the bot cannot write: run as uid 65532 (the container's user) when the
// tests run as root, else with the folder made read-only.
func TestBinaryDatabaseNotWritable(t *testing.T) {
	dir, err := os.MkdirTemp("", "connectn-ro-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	cmd := binaryCmd(t, dir, map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, "serve", "-db", filepath.Join(data, "connectn.db"))
	uid := os.Geteuid()
	if uid == 0 {
		uid = 65532
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
	} else {
		if err := os.Chmod(data, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(data, 0o755)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if killed, _ := runBounded(cmd, binaryLimit); killed {
		t.Fatalf("connectn serve still running after %v; stderr:\n%s", binaryLimit, stderr.String())
	}
	want := data + " is not writable by uid " + strconv.Itoa(uid) + " (owner uid " + strconv.Itoa(os.Getuid())
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Fatalf("got exit %d, stderr %q; want 2 and one line containing %q", cmd.ProcessState.ExitCode(), stderr.String(), want)
	}
}

// TestBinaryFailuresLeaveNothing starts connectn as a new user would, in
// an empty folder with the default CONNECTN_DB (data/connectn.db), in ways
// that fail before the database is used: a missing or bad setting, an
// import of what is not an export. Each must leave the folder empty: no
// data/ folder, no database file.
func TestBinaryFailuresLeaveNothing(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		vars   map[string]string
		stdin  string
		code   int
		stderr string
	}{
		{name: "run without a token", args: []string{"run"}, code: 2, stderr: "DISCORD_TOKEN is not set"},
		{name: "serve without a public key", args: []string{"serve"}, code: 2, stderr: "DISCORD_PUBLIC_KEY is not set"},
		{name: "run with a bad setting", args: []string{"run", "-turn-timeout", "0s"}, vars: map[string]string{"DISCORD_TOKEN": fakeToken}, code: 2, stderr: "CONNECTN_TURN_TIMEOUT"},
		{name: "import of what is not an export", args: []string{"import"}, stdin: "hello\n", code: 1,
			stderr: "connectn import: line 1: not a ConnectN export: the first line must be its header, as connectn export writes it\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := binaryCmd(t, dir, tt.vars, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if killed, _ := runBounded(cmd, binaryLimit); killed {
				t.Fatalf("connectn %v still running after %v", tt.args, binaryLimit)
			}
			if got := cmd.ProcessState.ExitCode(); got != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", got, stderr.String(), tt.code, tt.stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("connectn %v left %v in its working folder, want nothing", tt.args, entries)
			}
		})
	}
}

// closedAddr returns a loopback address where nothing listens (a port
// just released), so that connections to it are refused.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startRunOffline starts `connectn run` with CONNECTN_DISCORD_API at an
// address that refuses connections, and waits for its first line saying
// it will try again. It returns the process, the API's address, the
// metrics address and the lines of stderr as they come.
func startRunOffline(t *testing.T) (cmd *exec.Cmd, api, ops string, lines <-chan string) {
	t.Helper()
	api, ops = closedAddr(t), closedAddr(t)
	dir := t.TempDir()
	cmd = binaryCmd(t, dir, map[string]string{"DISCORD_TOKEN": fakeToken, "CONNECTN_DISCORD_API": "http://" + api + "/api/v9"},
		"run", "-db", filepath.Join(dir, "connectn.db"), "-metrics-addr", ops)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-ch:
			if !ok {
				t.Fatal("connectn run ended before trying again")
			}
			if strings.Contains(line, "will try again") {
				want := "url=http://" + api + "/api/v9/gateway/bot"
				if !strings.Contains(line, want) || !strings.Contains(line, "retry_in=1s") || strings.Contains(line, "discord.com") {
					t.Errorf("the retry line %q does not name %s and the wait of 1s", line, want)
				}
				return cmd, api, ops, ch
			}
		case <-timeout:
			t.Fatal("no line saying connectn run will try again within 20s")
		}
	}
}

// readyz returns the status of GET /readyz at addr, 0 when nothing answers.
func readyz(addr string) int {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestBinaryRunWaitsForDiscord starts `connectn run` while the REST base
// refuses connections: it tries again with a line naming the URL called,
// is not ready, and connects once a fake Discord comes up at that address;
// then SIGINT stops it with status 0.
func TestBinaryRunWaitsForDiscord(t *testing.T) {
	cmd, api, ops, lines := startRunOffline(t)
	go func() {
		for range lines {
		}
	}()
	if code := readyz(ops); code != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz while Discord cannot be reached: %d, want 503", code)
	}
	ln, err := net.Listen("tcp", api)
	if err != nil {
		t.Fatal(err)
	}
	fake := discordtest.New(discordtest.WithToken(fakeToken), discordtest.WithApplicationID(fakeAppID), discordtest.WithListener(ln))
	defer fake.Close()
	for deadline := time.Now().Add(20 * time.Second); readyz(ops) != http.StatusOK; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("connectn run not ready within 20s of Discord coming up")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("connectn run still runs 10s after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after SIGINT, want 0", code)
	}
}

// TestBinaryRunStopsWhileRetrying sends SIGINT or SIGTERM to `connectn
// run` while it waits to try reaching Discord again: it ends within a
// second with status 0.
func TestBinaryRunStopsWhileRetrying(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, _, _, lines := startRunOffline(t)
			go func() {
				for range lines {
				}
			}()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(time.Second):
				t.Fatalf("connectn run still runs 1s after %v", sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("exit status %d after %v, want 0", code, sig)
			}
		})
	}
}
