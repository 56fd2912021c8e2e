package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// A syntactically valid, made-up bot token; it must never appear in output.
const fakeToken = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhJkLm.c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"

var (
	testPrivate = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	testPublic  = hex.EncodeToString(testPrivate.Public().(ed25519.PublicKey))
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

type result struct {
	code           int
	stdout, stderr string
}

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

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		vars map[string]string
		want string
	}{
		{"run without a token", []string{"run"}, nil, "DISCORD_TOKEN is not set"},
		{"default command without a token", nil, nil, "DISCORD_TOKEN is not set"},
		{"register without a token", []string{"register"}, nil, "DISCORD_TOKEN is not set"},
		{"malformed token", []string{"run"}, map[string]string{"DISCORD_TOKEN": "not a token"}, "DISCORD_TOKEN is malformed"},
		{"token with two parts", []string{"run"}, map[string]string{"DISCORD_TOKEN": "abc.def"}, "DISCORD_TOKEN is malformed"},
		{"serve without a public key", []string{"serve"}, nil, "DISCORD_PUBLIC_KEY is not set"},
		{"public key not hex", []string{"serve"}, map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("zz", 32)}, "DISCORD_PUBLIC_KEY is malformed"},
		{"public key too short", []string{"serve"}, map[string]string{"DISCORD_PUBLIC_KEY": "abcd"}, "DISCORD_PUBLIC_KEY is malformed"},
		{"bad address", []string{"serve", "-addr", "8080"}, map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, "CONNECTN_ADDR / -addr \"8080\""},
		{"bad address from env", []string{"serve"}, map[string]string{"DISCORD_PUBLIC_KEY": testPublic, "CONNECTN_ADDR": "localhost"}, "CONNECTN_ADDR"},
		{"bad guild", []string{"run"}, map[string]string{"DISCORD_TOKEN": fakeToken, "DISCORD_GUILD_ID": "my-server"}, "DISCORD_GUILD_ID"},
		{"bad app id", []string{"register"}, map[string]string{"DISCORD_TOKEN": fakeToken, "DISCORD_APP_ID": "x1"}, "DISCORD_APP_ID"},
		{"bad log level", []string{"serve", "-log-level", "loud"}, map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, "CONNECTN_LOG_LEVEL"},
		{"empty db", []string{"serve", "-db", ""}, map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, "CONNECTN_DB"},
		{"unknown command", []string{"launch"}, nil, `unknown command "launch"`},
		{"stray argument", []string{"serve", "extra"}, map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runWith(t, context.Background(), tt.args, tt.vars, deps{})
			if r.code != 2 {
				t.Fatalf("got exit %d, want 2; stderr:\n%s", r.code, r.stderr)
			}
			first, _, _ := strings.Cut(r.stderr, "\n")
			if !strings.HasPrefix(first, "connectn: ") || !strings.Contains(first, tt.want) {
				t.Fatalf("got first line %q, want one line naming %q", first, tt.want)
			}
			if strings.Contains(r.stderr, fakeToken) || strings.Contains(r.stderr, "not a token") {
				t.Fatalf("stderr shows the token:\n%s", r.stderr)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	r := runWith(t, context.Background(), []string{"help"}, nil, deps{})
	if r.code != 0 || !strings.Contains(r.stdout, "connectn serve") || !strings.Contains(r.stdout, "connectn play") {
		t.Fatalf("got exit %d, stdout:\n%s", r.code, r.stdout)
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

// TestServe starts `connectn serve` with only DISCORD_PUBLIC_KEY set, as a
// new user would, answers a signed PING and the health check, and shuts down
// cleanly when its context ends.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "nested", "connectn.db")
	addrc := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runWith(t, ctx, []string{"serve", "-addr", "127.0.0.1:0", "-db", db},
			map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, deps{
				listen: func(addr string) (net.Listener, error) {
					ln, err := net.Listen("tcp", addr)
					if err == nil {
						addrc <- ln.Addr().String()
					}
					return ln, err
				},
			})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case r := <-done:
		t.Fatalf("serve ended early: exit %d\n%s", r.code, r.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not listen within 10s")
	}

	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("healthz: got %d, want 200", res.StatusCode)
	}

	body := []byte(`{"id":"1500000000000000001","application_id":"1","type":1,"token":"t","version":1}`)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req, _ := http.NewRequest(http.MethodPost, base+"/interactions", bytes.NewReader(body))
	req.Header.Set("X-Signature-Timestamp", ts)
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(testPrivate, append([]byte(ts), body...))))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(got) != `{"type":1}` {
		t.Fatalf("PING: got %d %s, want 200 {\"type\":1}", res.StatusCode, got)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("database not created: %v", err)
	}

	cancel()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("serve: got exit %d, want 0\n%s", r.code, r.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop within 15s of its context ending")
	}
}
