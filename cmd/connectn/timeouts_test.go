package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/bot/transport"
)

// TestSlowClientsDropped starts the interactions endpoint as serve does
// (listenOps) with short timeouts, and checks that a client that stalls in
// its headers, or in its body, has its connection closed by the server
// soon after the timeout, while a test deadline well beyond it keeps a
// missing timeout from hanging the test.
func TestSlowClientsDropped(t *testing.T) {
	saved := serverTimeouts
	serverTimeouts.readHeader, serverTimeouts.read, serverTimeouts.write = 100*time.Millisecond, 2*time.Second, 2*time.Second
	t.Cleanup(func() { serverTimeouts = saved })

	a := &app{d: deps{listen: func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }},
		log: slog.New(slog.DiscardHandler)}
	mux := http.NewServeMux()
	mux.Handle("/interactions", &transport.HTTPServer{Log: slog.New(slog.DiscardHandler)})
	l, err := a.listenOps("127.0.0.1:0", mux, "the test")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()

	// closedWithin writes req, stalls, and returns how long the server
	// took to close the connection (failing the test after limit).
	closedWithin := func(t *testing.T, req string, limit time.Duration) time.Duration {
		t.Helper()
		conn, err := net.Dial("tcp", l.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(start.Add(limit))
		var got bytes.Buffer
		_, err = io.Copy(&got, conn) // until the server closes
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("the connection is still open after %v (read %q)", limit, got.String())
		}
		return time.Since(start)
	}

	t.Run("headers never finished", func(t *testing.T) {
		took := closedWithin(t, "POST /interactions HTTP/1.1\r\nHost: bot\r\nX-Signature-Ed25519: ", 5*time.Second)
		if took > time.Second {
			t.Fatalf("closed after %v: the header timeout (100ms) did not drop it, the read timeout (2s) did", took)
		}
	})
	t.Run("body never finished", func(t *testing.T) {
		closedWithin(t, "POST /interactions HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"type\":", 6*time.Second)
	})
}

// TestServeMethodsAndPaths runs `connectn serve` and sends what a scanner
// on the public endpoint would: wrong methods get 405 with Allow, unknown
// paths 404, an unsigned POST 401; nothing gets a 5xx.
func TestServeMethodsAndPaths(t *testing.T) {
	listen, addrs := listenSpy()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		done <- runWith(t, ctx, []string{"serve", "-addr", "127.0.0.1:0", "-db", t.TempDir() + "/c.db"},
			map[string]string{"DISCORD_PUBLIC_KEY": testPublic, "CONNECTN_DISCORD_API": "http://127.0.0.1:1/api/v10"}, deps{listen: listen})
	}()
	defer func() {
		cancel()
		select {
		case r := <-done:
			if r.code != 0 {
				t.Errorf("serve: exit %d\n%s", r.code, r.stderr)
			}
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop within 15s")
		}
	}()
	var addr string
	select {
	case addr = <-addrs:
	case r := <-done:
		t.Fatalf("serve ended early: exit %d\n%s", r.code, r.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not listen within 10s")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for _, tt := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/interactions", 405, "POST"},
		{"PUT", "/interactions", 405, "POST"},
		{"DELETE", "/interactions", 405, "POST"},
		{"POST", "/interactions", 401, ""},
		{"POST", "/interactions/", 404, ""},
		{"POST", "/interactions/123/callback", 404, ""},
		{"GET", "/", 404, ""},
		{"GET", "/debug/pprof/", 404, ""},
		{"GET", "/.env", 404, ""},
		{"POST", "/metrics", 405, ""},
		{"POST", "/healthz", 405, ""},
		{"DELETE", "/readyz", 405, ""},
		{"GET", "/healthz", 200, ""},
	} {
		req, err := http.NewRequest(tt.method, "http://"+addr+tt.path, strings.NewReader(`{"type":1}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.path, err)
		}
		res.Body.Close()
		if res.StatusCode != tt.status {
			t.Errorf("%s %s: got %d, want %d", tt.method, tt.path, res.StatusCode, tt.status)
		}
		if tt.allow != "" && res.Header.Get("Allow") != tt.allow {
			t.Errorf("%s %s: Allow %q, want %q", tt.method, tt.path, res.Header.Get("Allow"), tt.allow)
		}
	}
}
