package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/joho/godotenv"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/metrics"
)

// A syntactically valid, made-up bot token; it must never appear in output.
const fakeToken = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhJkLm.c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"

// Test identities, shaped like Discord snowflakes.
const (
	fakeAppID = "1100000000000000001"
	guildID   = "1200000000000000001"
	channelID = "1300000000000000001"
	aliceID   = "1400000000000000001"
	bobID     = "1400000000000000002"
)

var (
	testPrivate = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	testPublic  = hex.EncodeToString(testPrivate.Public().(ed25519.PublicKey))
)

// testClient gives up after 10 seconds, so that a server that never
// answers fails the test instead of hanging the package.
var testClient = &http.Client{Timeout: 10 * time.Second}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

type result struct {
	code           int
	stdout, stderr string
}

// runWith runs connectn in-process with the variables vars (and no .env
// unless d.dotenv is set).
func runWith(t *testing.T, ctx context.Context, args []string, vars map[string]string, d deps) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	d.getenv = env(vars)
	if d.stdin == nil {
		d.stdin = strings.NewReader("")
	}
	d.stdout, d.stderr = &stdout, &stderr
	if d.newSession == nil {
		d.newSession = func(token string) (*discordgo.Session, error) { return discordgo.New("Bot " + token) }
	}
	if d.listen == nil {
		d.listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	code := run(ctx, args, d)
	return result{code, stdout.String(), stderr.String()}
}

// listenSpy returns a listen dep that reports every bound address on the
// returned channel.
func listenSpy() (func(string) (net.Listener, error), chan string) {
	addrs := make(chan string, 4)
	return func(addr string) (net.Listener, error) {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			addrs <- ln.Addr().String()
		}
		return ln, err
	}, addrs
}

func TestOverview(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runWith(t, context.Background(), args, nil, deps{})
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("got exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
			}
			for _, c := range []string{"run", "serve", "register", "invite", "config", "health", "play", "version"} {
				if !regexp.MustCompile(`(?m)^  ` + c + ` +\S`).MatchString(r.stdout) {
					t.Errorf("the overview lacks command %s:\n%s", c, r.stdout)
				}
			}
			for _, s := range settings {
				line := "  " + s.env
				if s.flag != "" {
					line += ", -" + s.flag + " " + s.arg
				}
				if s.def != "" {
					line += " (default " + s.def + ")"
				}
				if !strings.Contains(r.stdout, line+"\n") {
					t.Errorf("the overview lacks %q", line)
				}
			}
		})
	}
}

// TestOverviewIsTheTable checks that the overview lists every command of
// the table, in its order, with its summary, and nothing else.
func TestOverviewIsTheTable(t *testing.T) {
	r := runWith(t, context.Background(), []string{"-h"}, nil, deps{})
	_, list, _ := strings.Cut(r.stdout, "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	var want strings.Builder
	for i, c := range commands {
		if i > 0 {
			want.WriteByte('\n')
		}
		fmt.Fprintf(&want, "  %-9s %s", c.name, c.summary)
	}
	if list != want.String() {
		t.Errorf("the overview lists\n%s\nwant the table's commands\n%s", list, want.String())
	}
	for _, name := range []string{"run", "serve", "config", "health", "play", "solve", "arena", "version", "help"} {
		if findCommand(name) == nil {
			t.Errorf("the table lacks %s", name)
		}
	}
}

// TestCommandHelp checks that each command's -h, on stdout, lists exactly
// the flags it takes, each with its variable and default; a command with
// flags of its own (play, solve, arena, version) shows its usage on
// stdout; help's help is the overview.
func TestCommandHelp(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([a-z-]+) [A-Z]+ +([A-Z_]+)(, default (\S+))?$`)
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {"help", c.name}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := runWith(t, context.Background(), args, nil, deps{})
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("got exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
				}
				switch {
				case c.name == "help":
					if !strings.Contains(r.stdout, "\nCommands:\n") {
						t.Fatalf("got help starting %q, want the overview", firstLine(r.stdout))
					}
					return
				case c.main != nil && c.flags == nil:
					if want := "Usage: connectn " + c.name; !strings.HasPrefix(r.stdout, want+" ") && !strings.HasPrefix(r.stdout, want+"\n") {
						t.Fatalf("got help starting %q, want %q", firstLine(r.stdout), want)
					}
					return
				}
				usage := "Usage: connectn " + c.name + " [flags]\n"
				if c.needs.file {
					usage = "Usage: connectn " + c.name + " [flags] [FILE]\n"
				}
				if !strings.HasPrefix(r.stdout, usage) {
					t.Fatalf("got help starting %q", firstLine(r.stdout))
				}
				var got []string
				for _, m := range flagLine.FindAllStringSubmatch(r.stdout, -1) {
					s := settingByEnv(m[2])
					if s.flag != m[1] || s.def != m[4] {
						t.Errorf("flag -%s shown as %s with default %q; want -%s, default %q", m[1], m[2], m[4], s.flag, s.def)
					}
					got = append(got, m[2])
				}
				if strings.Join(got, " ") != strings.Join(c.flags, " ") {
					t.Errorf("got flags of %v, want %v", got, c.flags)
				}
			})
		}
	}
	r := runWith(t, context.Background(), []string{"play", "-h"}, nil, deps{})
	if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: connectn play [flags]") || strings.Contains(r.stdout, "-db") {
		t.Fatalf("play -h: got exit %d, stdout %q, stderr %q", r.code, firstLine(r.stdout), r.stderr)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestConfigProblems checks that every malformed or missing setting stops
// start-up with one line naming its variable, and that nothing starts.
func TestConfigProblems(t *testing.T) {
	key := map[string]string{"DISCORD_PUBLIC_KEY": testPublic}
	with := func(m map[string]string) map[string]string {
		out := map[string]string{"DISCORD_PUBLIC_KEY": testPublic}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		vars map[string]string
		want string
	}{
		{"run without a token", []string{"run"}, nil, "DISCORD_TOKEN is not set"},
		{"default command without a token", nil, nil, "DISCORD_TOKEN is not set"},
		{"register without a token", []string{"register"}, nil, "DISCORD_TOKEN is not set"},
		{"invite without an application", []string{"invite"}, nil, "DISCORD_APP_ID is not set, nor DISCORD_TOKEN"},
		{"malformed token", []string{"run"}, map[string]string{"DISCORD_TOKEN": "not a token"}, "DISCORD_TOKEN (environment): malformed"},
		{"token with two parts", []string{"run"}, map[string]string{"DISCORD_TOKEN": "abc.def"}, "DISCORD_TOKEN (environment): malformed"},
		{"serve without a public key", []string{"serve"}, nil, "DISCORD_PUBLIC_KEY is not set"},
		{"public key not hex", []string{"serve"}, map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("zz", 32)}, `DISCORD_PUBLIC_KEY="` + strings.Repeat("zz", 32) + `" (environment): malformed (not hexadecimal)`},
		{"public key too short", []string{"serve"}, map[string]string{"DISCORD_PUBLIC_KEY": "abcd"}, "DISCORD_PUBLIC_KEY=\"abcd\" (environment): malformed (2 bytes"},
		{"address without a port", []string{"serve", "-addr", "8080"}, key, `CONNECTN_ADDR="8080" (flag -addr): want host:port`},
		{"address with a port name", []string{"serve", "-addr", ":abc"}, key, `CONNECTN_ADDR=":abc" (flag -addr): the port "abc" is not a number from 0 to 65535`},
		{"address with a port out of range", []string{"serve", "-addr", "127.0.0.1:99999"}, key, `CONNECTN_ADDR="127.0.0.1:99999" (flag -addr): the port "99999" is not a number from 0 to 65535`},
		{"address with a negative port", []string{"serve"}, with(map[string]string{"CONNECTN_ADDR": ":-1"}), `CONNECTN_ADDR=":-1" (environment): the port "-1"`},
		{"address with a bad host", []string{"serve", "-addr", "my host:80"}, key, `CONNECTN_ADDR="my host:80" (flag -addr): the host "my host" is not an IP address or host name`},
		{"address from env", []string{"serve"}, with(map[string]string{"CONNECTN_ADDR": "localhost"}), `CONNECTN_ADDR="localhost" (environment)`},
		{"metrics address", []string{"run", "-metrics-addr", "127.0.0.1:70000"}, map[string]string{"DISCORD_TOKEN": fakeToken}, `CONNECTN_METRICS_ADDR="127.0.0.1:70000" (flag -metrics-addr): the port "70000" is not a number from 0 to 65535`},
		{"metrics address empty", []string{"run", "-metrics-addr", ""}, map[string]string{"DISCORD_TOKEN": fakeToken}, `CONNECTN_METRICS_ADDR="" (flag -metrics-addr): want host:port or :port, such as :8080 or 127.0.0.1:8080, or off`},
		{"profiles on every interface", []string{"serve", "-pprof-addr", ":6060"}, key, `CONNECTN_PPROF_ADDR=":6060" (flag -pprof-addr): profiles show the bot's memory and must stay on this host: want a loopback address such as 127.0.0.1:6060, or off`},
		{"profiles on a public address", []string{"run"}, map[string]string{"DISCORD_TOKEN": fakeToken, "CONNECTN_PPROF_ADDR": "0.0.0.0:6060"}, `CONNECTN_PPROF_ADDR="0.0.0.0:6060" (environment): profiles show the bot's memory and must stay on this host`},
		{"profiles on a host name", []string{"serve", "-pprof-addr", "example.com:6060"}, key, `CONNECTN_PPROF_ADDR="example.com:6060" (flag -pprof-addr): profiles show the bot's memory and must stay on this host`},
		{"bad guild", []string{"run"}, map[string]string{"DISCORD_TOKEN": fakeToken, "DISCORD_GUILD_ID": "my-server"}, `DISCORD_GUILD_ID="my-server" (environment): want a server ID`},
		{"bad app id", []string{"register", "-app-id", "x1"}, map[string]string{"DISCORD_TOKEN": fakeToken}, `DISCORD_APP_ID="x1" (flag -app-id): want the application ID`},
		{"bad log level", []string{"serve", "-log-level", "loud"}, key, `CONNECTN_LOG_LEVEL="loud" (flag -log-level): want debug, info, warn or error`},
		{"bad log format", []string{"serve"}, with(map[string]string{"CONNECTN_LOG_FORMAT": "xml"}), `CONNECTN_LOG_FORMAT="xml" (environment): want text or json`},
		{"empty db", []string{"serve", "-db", ""}, key, `CONNECTN_DB="" (flag -db): is empty`},
		{"db URL of another kind", []string{"serve", "-db", "mysql://db/connectn"}, key, `CONNECTN_DB="mysql://db/connectn" (flag -db): is a URL of an unknown kind`},
		{"postgres URL without a host", []string{"serve", "-db", "postgres:///connectn"}, key, `CONNECTN_DB="postgres:///connectn" (flag -db): has no host`},
		{"postgres URL, password masked", []string{"serve", "-db", "postgres://u:s3cret@db:99999/connectn"}, key, `CONNECTN_DB="postgres://u:xxxxx@db:99999/connectn" (flag -db): cannot be read`},
		{"db is a directory", []string{"serve", "-db", dir}, key, fmt.Sprintf(`CONNECTN_DB=%q (flag -db): %s is a directory: set CONNECTN_DB to a file inside it, such as %s`, dir, dir, filepath.Join(dir, "connectn.db"))},
		{"db is /dev/null", []string{"serve", "-db", os.DevNull}, key, `CONNECTN_DB="/dev/null" (flag -db): /dev/null is a device, not a database file`},
		{"db under a file", []string{"serve", "-db", filepath.Join(file, "x", "connectn.db")}, key, file + ` is a file, not a folder`},
		{"discord api not a URL", []string{"run", "-discord-api", "discord.com/api"}, map[string]string{"DISCORD_TOKEN": fakeToken}, `CONNECTN_DISCORD_API="discord.com/api" (flag -discord-api): want an absolute http or https URL`},
		{"discord api scheme", []string{"serve"}, with(map[string]string{"CONNECTN_DISCORD_API": "ftp://proxy/api/v9"}), `CONNECTN_DISCORD_API="ftp://proxy/api/v9" (environment): scheme "ftp": want http or https`},
		{"discord api port", []string{"serve"}, with(map[string]string{"CONNECTN_DISCORD_API": "http://proxy:0/api/v9"}), `port "0" is not a number from 1 to 65535`},
		{"discord api query", []string{"serve"}, with(map[string]string{"CONNECTN_DISCORD_API": "http://proxy/api/v9?x=1"}), `must not have a query or fragment`},
		{"discord api credentials", []string{"serve"}, with(map[string]string{"CONNECTN_DISCORD_API": "http://me:pw@proxy/api/v9"}), `must not contain a user name or password`},
		{"challenge timeout not a duration", []string{"serve", "-challenge-timeout", "5"}, key, `CONNECTN_CHALLENGE_TIMEOUT="5" (flag -challenge-timeout): not a duration`},
		{"challenge timeout zero", []string{"serve"}, with(map[string]string{"CONNECTN_CHALLENGE_TIMEOUT": "0s"}), `CONNECTN_CHALLENGE_TIMEOUT="0s" (environment): want a duration from 1s to 168h`},
		{"turn timeout negative", []string{"serve", "-turn-timeout", "-5m"}, key, `CONNECTN_TURN_TIMEOUT="-5m" (flag -turn-timeout): want a duration from 1s to 168h`},
		{"turn timeout too long", []string{"serve"}, with(map[string]string{"CONNECTN_TURN_TIMEOUT": "200h"}), `CONNECTN_TURN_TIMEOUT="200h" (environment): want a duration from 1s to 168h`},
		{"ai memory zero", []string{"serve", "-ai-memory", "0"}, key, `CONNECTN_AI_MEMORY="0" (flag -ai-memory): want a whole number from 1 to 4096`},
		{"ai memory text", []string{"serve"}, with(map[string]string{"CONNECTN_AI_MEMORY": "64MB"}), `CONNECTN_AI_MEMORY="64MB" (environment): want a whole number from 1 to 4096`},
		{"ai workers", []string{"serve", "-ai-workers", "65"}, key, `CONNECTN_AI_WORKERS="65" (flag -ai-workers): want a whole number from 1 to 64`},
		{"memory limit without a unit", []string{"serve", "-memory-limit", "64"}, key, `CONNECTN_MEMORY_LIMIT="64" (flag -memory-limit): want a size such as 32MiB or 1GiB`},
		{"memory limit in MB", []string{"run"}, map[string]string{"DISCORD_TOKEN": fakeToken, "CONNECTN_MEMORY_LIMIT": "64MB"}, `CONNECTN_MEMORY_LIMIT="64MB" (environment): want a size such as 32MiB or 1GiB`},
		{"memory limit too small", []string{"serve"}, with(map[string]string{"CONNECTN_MEMORY_LIMIT": "8MiB"}), `CONNECTN_MEMORY_LIMIT="8MiB" (environment): is below 16MiB, which the bot keeps at rest`},
		{"unknown command", []string{"launch"}, nil, `unknown command "launch"`},
		{"stray argument", []string{"serve", "extra"}, key, `unexpected argument "extra"`},
		{"flag of another command", []string{"run", "-addr", ":8080"}, map[string]string{"DISCORD_TOKEN": fakeToken}, `connectn run: no flag -addr here (it sets CONNECTN_ADDR, which run does not use)`},
		{"unknown flag", []string{"serve", "-port", "80"}, key, `connectn serve: no flag -port`},
		{"flag without value", []string{"serve", "-db"}, key, `connectn serve: flag needs an argument: -db`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, d := fakeDiscord(t)
			r := runWith(t, context.Background(), tt.args, tt.vars, d)
			if r.code != 2 {
				t.Fatalf("got exit %d, want 2; stderr:\n%s", r.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "connectn") || !strings.Contains(lines[0], tt.want) {
				t.Fatalf("got stderr %q, want one line containing %q", r.stderr, tt.want)
			}
			if strings.Contains(r.stderr, fakeToken) || strings.Contains(r.stderr, "not a token") {
				t.Fatalf("stderr shows the token:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Fatalf("stdout: %q, want nothing", r.stdout)
			}
		})
	}
}

// TestConfigProblemsAllAtOnce checks that validation goes on after the
// first problem: one line per problem.
func TestConfigProblemsAllAtOnce(t *testing.T) {
	r := runWith(t, context.Background(), []string{"serve", "-addr", ":abc", "-turn-timeout", "soon", "-db", os.DevNull},
		map[string]string{"CONNECTN_AI_WORKERS": "0", "CONNECTN_LOG_FORMAT": "xml"}, deps{})
	if r.code != 2 {
		t.Fatalf("got exit %d, want 2", r.code)
	}
	want := []string{"CONNECTN_ADDR", "CONNECTN_LOG_FORMAT", "CONNECTN_TURN_TIMEOUT", "CONNECTN_AI_WORKERS", "DISCORD_PUBLIC_KEY is not set", "CONNECTN_DB"}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), r.stderr)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], "connectn: "+w) {
			t.Errorf("line %d: got %q, want it to start with %q", i+1, lines[i], "connectn: "+w)
		}
	}
}

// TestConfigCommand checks `connectn config`: every setting with its value
// and its source, the token masked.
func TestConfigCommand(t *testing.T) {
	dotenv := map[string]string{"CONNECTN_TURN_TIMEOUT": "2m", "CONNECTN_DB": "dotenv.db", "DISCORD_TOKEN": fakeToken}
	r := runWith(t, context.Background(), []string{"config", "-addr", "127.0.0.1:9000"},
		map[string]string{"CONNECTN_DB": "/srv/env.db", "CONNECTN_ADDR": ":7000"},
		deps{dotenv: func() (map[string]string, error) { return dotenv, nil }})
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("got exit %d, stderr %q", r.code, r.stderr)
	}
	want := map[string][2]string{
		"DISCORD_TOKEN":         {"******** (set, masked)", ".env"},
		"DISCORD_PUBLIC_KEY":    {"(not set)", "default"},
		"CONNECTN_ADDR":         {"127.0.0.1:9000", "flag -addr"},
		"CONNECTN_DB":           {"/srv/env.db", "environment"},
		"CONNECTN_TURN_TIMEOUT": {"2m", ".env"},
		"CONNECTN_LOG_LEVEL":    {"info", "default"},
		"CONNECTN_METRICS_ADDR": {"127.0.0.1:9464", "default"},
		"CONNECTN_DISCORD_API":  {DefaultDiscordAPI, "default"},
	}
	rows := map[string][2]string{}
	for _, line := range strings.Split(r.stdout, "\n") {
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		if len(f) == 3 {
			rows[f[0]] = [2]string{f[1], f[2]}
		}
	}
	for _, s := range settings {
		if _, ok := rows[s.env]; !ok {
			t.Errorf("config lacks %s", s.env)
		}
	}
	for name, w := range want {
		if rows[name] != w {
			t.Errorf("%s: got %q, want %q", name, rows[name], w)
		}
	}
	if strings.Contains(r.stdout, fakeToken) || strings.Contains(r.stdout, "c2VjcmV0") {
		t.Fatalf("config shows the token:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "Read .env in the working folder (3 variables).") {
		t.Errorf("config does not say it read .env:\n%s", r.stdout)
	}

	// A problem is listed after the table, and the status says so.
	r = runWith(t, context.Background(), []string{"config"}, map[string]string{"CONNECTN_AI_MEMORY": "lots"}, deps{})
	if r.code != 2 || !strings.Contains(r.stdout, "CONNECTN_AI_MEMORY") || !strings.Contains(r.stderr, `connectn: CONNECTN_AI_MEMORY="lots" (environment)`) {
		t.Fatalf("config with a problem: got exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "No .env file in the working folder.") {
		t.Errorf("config does not say there is no .env:\n%s", r.stdout)
	}
}

func TestPlay(t *testing.T) {
	in := strings.NewReader("1\n2\n1\n2\n1\n2\n1\nn\n")
	r := runWith(t, context.Background(), []string{"play", "-p1", "Ann", "-p2", "Ben"}, nil, deps{stdin: in})
	if r.code != 0 {
		t.Fatalf("got exit %d; stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"Ann (x) connects 4 and wins round 1", "Game over", "Play again? (y/n)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("play output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runWith(t, context.Background(), []string{"play", "-rows", "zero"}, nil, deps{})
	if r.code != 2 || !strings.Contains(r.stderr, "-rows") {
		t.Fatalf("bad flag: got exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// get returns the status and body of GET url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := testClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestServe starts `connectn serve` with only DISCORD_PUBLIC_KEY set, as a
// new user would: the health endpoints, `connectn health`, a signed PING
// and a challenge, the metrics they moved, and a clean stop.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "nested", "connectn.db")
	listen, addrs := listenSpy()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runWith(t, ctx, []string{"serve", "-addr", "127.0.0.1:0", "-db", db, "-log-format", "json"},
			map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, deps{listen: listen})
	}()
	var addr string
	select {
	case addr = <-addrs:
	case r := <-done:
		t.Fatalf("serve ended early: exit %d\n%s", r.code, r.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not listen within 10s")
	}
	base := "http://" + addr

	if code, body := get(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("healthz: got %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 200 || body != "ready\n" {
		t.Fatalf("readyz: got %d %q, want 200 ready", code, body)
	}
	h := runWith(t, context.Background(), []string{"health", "-addr", addr, "-metrics-addr", "off"}, nil, deps{})
	if h.code != 0 || h.stdout != "ok: connectn serve at "+addr+" is ready\n" {
		t.Fatalf("connectn health: got exit %d, stdout %q, stderr %q", h.code, h.stdout, h.stderr)
	}

	post := func(body []byte) (int, string) {
		req, err := discordtest.SignedRequest(context.Background(), base+"/interactions", testPrivate, time.Now(), body)
		if err != nil {
			t.Fatal(err)
		}
		res, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post(discordtest.Ping("1500000000000000001", "t", "1")); code != 200 || body != `{"type":1}` {
		t.Fatalf("PING: got %d %s, want 200 {\"type\":1}", code, body)
	}
	if code, body := post(discordtest.Slash(from(alice, channelID), "connectn", "challenge", discordtest.UserArg("opponent", bob))); code != 200 || !strings.Contains(body, `"type":4`) {
		t.Fatalf("challenge: got %d %s", code, body)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("database not created: %v", err)
	}

	_, metrics := get(t, base+"/metrics")
	for _, want := range []string{
		`connectn_interactions_total{kind="ping",outcome="ok"} 1`,
		`connectn_interactions_total{kind="command/challenge",outcome="ok"} 1`,
		`connectn_interaction_duration_seconds_count{kind="command/challenge"} 1`,
		`connectn_build_info{goversion=`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	cancel()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("serve: got exit %d, want 0\n%s", r.code, r.stderr)
		}
		// Every log line is one JSON object.
		for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["level"] == nil || rec["msg"] == nil {
				t.Errorf("log line is not a slog JSON record: %q", line)
			}
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop within 15s of its context ending")
	}

	h = runWith(t, context.Background(), []string{"health", "-addr", addr, "-metrics-addr", "off"}, nil, deps{})
	if h.code != 1 || !strings.Contains(h.stderr, "connectn health: not healthy: connectn serve at "+addr+": nothing listens there") {
		t.Fatalf("connectn health after the stop: got exit %d, stderr %q", h.code, h.stderr)
	}
}

func TestOpsReadiness(t *testing.T) {
	ready := func(ctx context.Context) error { return fmt.Errorf("database is locked") }
	h := httptest.NewServer(opsMux(metrics.New(metrics.Options{}), ready))
	defer h.Close()
	srv := h.URL
	if code, body := get(t, srv+"/readyz"); code != 503 || body != "not ready: database is locked\n" {
		t.Fatalf("readyz: got %d %q, want 503 and the reason", code, body)
	}
	if code, _ := get(t, srv+"/healthz"); code != 200 {
		t.Fatalf("healthz: got %d, want 200 while the process runs", code)
	}
	res, err := testClient.Post(srv+"/healthz", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST /healthz: got %d, want 405", res.StatusCode)
	}
}

func TestLoopback(t *testing.T) {
	tests := []struct{ in, want string }{
		{":8080", "127.0.0.1:8080"},
		{"0.0.0.0:8080", "127.0.0.1:8080"},
		{"[::]:8080", "[::1]:8080"},
		{"10.1.2.3:9", "10.1.2.3:9"},
		{"localhost:9464", "localhost:9464"},
	}
	for _, tt := range tests {
		if got := loopback(tt.in); got != tt.want {
			t.Errorf("loopback(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEnvExample checks that .env.example lists every setting with its
// default and its flag, and that the file as shipped is a valid
// configuration once the two required values are filled in.
func TestEnvExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".env.example"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, s := range settings {
		line := s.env + "=" + s.def
		if s.def != "" || (s.env != "DISCORD_TOKEN" && s.env != "DISCORD_PUBLIC_KEY") {
			line = "# " + line
		}
		if !strings.Contains(text, "\n"+line+"\n") {
			t.Errorf(".env.example lacks the line %q", line)
		}
		if s.flag != "" && !strings.Contains(text, "-"+s.flag+".") {
			t.Errorf(".env.example does not name the flag -%s", s.flag)
		}
	}
	vars, err := godotenv.Unmarshal(text)
	if err != nil {
		t.Fatal(err)
	}
	vars["DISCORD_TOKEN"], vars["DISCORD_PUBLIC_KEY"] = fakeToken, testPublic
	r := runWith(t, context.Background(), []string{"config"}, nil, deps{dotenv: func() (map[string]string, error) { return vars, nil }})
	if r.code != 0 {
		t.Fatalf("connectn config with .env.example filled in: exit %d\n%s", r.code, r.stderr)
	}
}
