package main

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestStartOnATakenPort starts a server on the port another server (of
// another key) already listens on, as two generators started at once may:
// start must notice that the endpoint answering is not its own and move to
// a fresh port, so that the second generator drives its own server.
// Without the signed PING of start, start returns with the second server
// dead and its address the first's (the PING below then gets 401).
func TestStartOnATakenPort(t *testing.T) {
	bin := connectnBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := listenDiscord("127.0.0.1:0", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var logs safeBuffer
	_, keyA := generateKey()
	a, err := newServer(bin, filepath.Join(t.TempDir(), "a.db"), keyA, d.apiBase(), &logs)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.start(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.kill()
	_, keyB := generateKey()
	b, err := newServer(bin, filepath.Join(t.TempDir(), "b.db"), keyB, d.apiBase(), &logs)
	if err != nil {
		t.Fatal(err)
	}
	b.addr = a.addr // the port freeAddr chose was taken meanwhile
	if err := b.start(ctx); err != nil {
		t.Fatalf("start on a taken port: %v\n%s", err, logs.String())
	}
	defer b.kill()
	if b.addr == a.addr {
		t.Fatalf("the second server kept the first's address %s", a.addr)
	}
	req, err := discordtest.SignedRequest(ctx, b.url(), keyB, time.Now(), discordtest.Ping("2", "t", appID))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("PING signed with the second server's key to %s: HTTP %d, want 200", b.url(), res.StatusCode)
	}
}
