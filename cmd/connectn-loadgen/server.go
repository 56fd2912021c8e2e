package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/connectn/connectn/bot/discordtest"
)

// clockTicks is the unit of utime and stime in /proc/<pid>/stat: USER_HZ,
// which Linux fixes at 100 per second for user space whatever the kernel's
// own tick rate (see proc(5)).
const clockTicks = 100

// cpuTime returns the CPU time (user + system) the process pid has used so
// far, from fields 14 and 15 of /proc/<pid>/stat, to the nearest 10 ms.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read the server's CPU time: %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count the fields after its closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("read the server's CPU time: unexpected /proc/PID/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("read the server's CPU time: unexpected /proc/PID/stat")
	}
	// f[0] is field 3 (state), so utime (14) is f[11] and stime (15) f[12].
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("read the server's CPU time: %w", err)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// peakRSS returns the most resident memory the process pid has held, from
// VmHWM in /proc/<pid>/status.
func peakRSS(pid int) (int64, error) { return procStatus(pid, "VmHWM:") }

// procStatus returns the field (such as "VmRSS:") of /proc/<pid>/status,
// in bytes: an error when the process or the field is not there.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/PID/status", field)
}

// server is a `connectn serve` (or `connectn run`) process this program
// started.
type server struct {
	bin, db string
	addr    string // host:port of the interactions endpoint
	env     []string
	log     io.Writer
	// args is the command line after bin, and probe the path on addr
	// polled until it answers 200: nil and "" mean `serve -addr addr -db
	// db` and /healthz (newServer); gateway mode's are run's (newRunServer).
	args  []string
	probe string
	// key signs the PING by which start makes sure that the server
	// answering on addr is this one (serve mode).
	key     ed25519.PrivateKey
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	exitErr error
}

// generateKey returns a fresh Ed25519 key pair.
func generateKey() (ed25519.PublicKey, ed25519.PrivateKey) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return pub, priv
}

// freeAddr returns a loopback address with a port nobody listens on now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// newServer prepares `bin serve` on a free loopback port with the database
// db, verifying with key's public key and calling back the REST API at api.
// Its log goes to logw.
func newServer(bin, db string, key ed25519.PrivateKey, api string, logw io.Writer, extraEnv ...string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	pub := key.Public().(ed25519.PublicKey)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"DISCORD_PUBLIC_KEY=" + hex.EncodeToString(pub), "CONNECTN_DISCORD_API=" + api,
		"CONNECTN_LOG_LEVEL=warn"}
	return &server{bin: bin, db: db, addr: addr, env: append(env, extraEnv...), log: logw, key: key}, nil
}

// errNotOurs is start's error when the endpoint on a server's address
// refuses a PING signed with the server's key: another process listens on
// the port (freeAddr's port was taken, for example by a second generator,
// between choosing it and the server's start), and this server could not.
var errNotOurs = errors.New("another server answers on its port")

// startTries bounds start's attempts on a fresh port after errNotOurs.
const startTries = 3

// url returns the interactions endpoint.
func (s *server) url() string { return "http://" + s.addr + "/interactions" }

// pid returns the process ID of the running server.
func (s *server) pid() int { return s.cmd.Process.Pid }

// start starts the server and waits until GET /healthz (or s.probe)
// answers 200. In serve mode it then sends a PING signed with s.key, which
// only this server accepts: if another answers (errNotOurs), it stops this
// one and starts it again on a fresh port, up to startTries times, so that
// two generators started at once never drive one server.
func (s *server) start(ctx context.Context) error {
	for try := 1; ; try++ {
		err := s.startOnce(ctx)
		if !errors.Is(err, errNotOurs) || try == startTries {
			return err
		}
		s.kill()
		addr, ferr := freeAddr()
		if ferr != nil {
			return ferr
		}
		s.addr = addr
	}
}

// startOnce is one attempt of start on s.addr.
func (s *server) startOnce(ctx context.Context) error {
	args, probe := s.args, s.probe
	if args == nil {
		args, probe = []string{"serve", "-addr", s.addr, "-db", s.db}, "/healthz"
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.cmd, s.done, s.exitErr = cmd, make(chan struct{}), nil
	go func() {
		s.exitErr = cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.addr+probe, nil)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				if s.args != nil || s.key == nil {
					return nil
				}
				return s.answersOurs(ctx)
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("connectn %s exited at start: %v", args[0], s.exitErr)
		case <-ctx.Done():
			s.kill()
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("connectn %s did not answer %s with 200 within 20s", args[0], probe)
		}
	}
}

// answersOurs sends the interactions endpoint a PING signed with s.key: a
// 401 means the endpoint verifies with another key (errNotOurs).
func (s *server) answersOurs(ctx context.Context) error {
	req, err := discordtest.SignedRequest(ctx, s.url(), s.key, time.Now(), discordtest.Ping("1", "check", appID))
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("PING %s: %w", s.url(), err)
	}
	res.Body.Close()
	switch res.StatusCode {
	case http.StatusOK:
		return nil
	case http.StatusUnauthorized:
		return fmt.Errorf("%s: %w", s.addr, errNotOurs)
	}
	return fmt.Errorf("PING %s: HTTP %d", s.url(), res.StatusCode)
}

// kill sends SIGKILL and waits for the process to be gone.
func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// stop sends SIGTERM and waits up to limit for the exit; it returns the
// exit status, how long the exit took, and an error if the process was
// still running at limit (it is then killed).
func (s *server) stop(limit time.Duration) (int, time.Duration, error) {
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return -1, 0, err
	}
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode(), time.Since(start), nil
	case <-time.After(limit):
		s.kill()
		return -1, time.Since(start), fmt.Errorf("still running %v after SIGTERM", limit)
	}
}
