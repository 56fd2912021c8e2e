package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/connectn/connectn/sessions/sqlite"
)

// safeBuffer is a bytes.Buffer safe for the server's log and the test to
// share.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// answerLimit is how soon the player must get the answer: Discord drops
// a first response after 3 seconds. The store waits out a write lock
// held by another process for sqlite.BusyTimeout (5 s today) whatever
// the interaction's deadline (SQLite's busy wait does not see the
// context), so while that is longer the limit is that wait and a second:
// a known limit of the store, reported to issue 10, which this test
// tightens by itself to 3 s once the store waits less.
var answerLimit = max(3*time.Second, sqlite.BusyTimeout+time.Second)

// dbFault is a way the database can fail under a running bot: cause
// brings it about on the database at path (in dir) and returns the
// function that takes it away; logs is what the server's log must say.
type dbFault struct {
	name  string
	cause func(t *testing.T, dir, path string) (undo func())
	logs  string
}

// TestDatabaseFaults plays a match on `connectn serve`, makes its database
// fail under it, and clicks: the player gets a private message saying that
// nothing was changed, within Discord's 3 seconds; the log has the error,
// explained; the match is not half-written. Once the cause is gone, the
// same click on the last acknowledged board is accepted and the match
// plays on to its end, everything acknowledged stored and the database
// intact. Faults: a write lock held by another process, the files made
// read-only under the running bot (chattr +i: writes through open files
// fail too), the disk full. The last two need root (a tmpfs to fill,
// chattr); without it they are skipped, saying so.
func TestDatabaseFaults(t *testing.T) {
	bin := connectnBinary(t)
	faults := []dbFault{
		{
			name: "locked by another process",
			cause: func(t *testing.T, dir, path string) func() {
				unlock, err := lockDatabase(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				return unlock
			},
			// SQLITE_BUSY once the store's busy timeout runs out, or the
			// interaction's deadline if that comes first.
			logs: "lock",
		},
		{
			name: "read-only",
			cause: func(t *testing.T, dir, path string) func() {
				files := []string{path, path + "-wal"}
				if out, err := exec.Command("chattr", append([]string{"+i"}, files...)...).CombinedOutput(); err != nil {
					t.Skipf("cannot make the files immutable (chattr +i needs root and ext4 or similar): %v: %s", err, out)
				}
				return func() {
					if out, err := exec.Command("chattr", append([]string{"-i"}, files...)...).CombinedOutput(); err != nil {
						t.Errorf("chattr -i: %v: %s", err, out)
					}
				}
			},
			logs: "cannot be written",
		},
		{
			name: "disk full",
			cause: func(t *testing.T, dir, path string) func() {
				filler := filepath.Join(dir, "filler")
				f, err := os.Create(filler)
				if err != nil {
					t.Fatal(err)
				}
				for err == nil {
					_, err = f.Write(make([]byte, 4096))
				}
				f.Close()
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("filling the disk: %v, want ENOSPC", err)
				}
				return func() { os.Remove(filler) }
			},
			logs: "disk full",
		},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) { testDatabaseFault(t, bin, f) })
	}
}

func testDatabaseFault(t *testing.T, bin string, f dbFault) {
	dir := t.TempDir()
	if f.name == "disk full" {
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
			t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
		}
		t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	}
	path := filepath.Join(dir, "connectn.db")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := listenDiscord("127.0.0.1:0", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, priv := generateKey()
	var logs safeBuffer
	srv, err := newServer(bin, path, priv, d.apiBase(), &logs)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.start(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.kill()
	c := newClient([]string{srv.url()}, priv, 2, routeRandom, 1)
	s := newSlot(0, c, d, 1300000000000000000, matchSettings{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, 7)
	s.keepHistory = true
	for s.phase != phasePlaying || len(s.acked) < 4 {
		if err := s.step(ctx); err != nil {
			t.Fatalf("before the fault: %v", err)
		}
	}
	board, acked := s.board, len(s.acked)

	cause := f.cause(t, filepath.Dir(path), path)
	var once sync.Once
	undo := func() { once.Do(cause) }
	t.Cleanup(undo) // before TempDir's removal: immutable files cannot be removed
	start := time.Now()
	err = s.move(ctx)
	took := time.Since(start)
	var ref *refusal
	if !errors.As(err, &ref) {
		undo()
		t.Fatalf("a click with the database %s: %v, want a private message", f.name, err)
	}
	if !strings.Contains(ref.text, "nothing was changed") {
		t.Errorf("the private message %q does not say that nothing was changed", ref.text)
	}
	if took > answerLimit {
		t.Errorf("the answer took %v, more than %v", took, answerLimit)
	}
	if s.board != board || len(s.acked) != acked {
		t.Fatal("the refused click changed the slot's board")
	}
	undo()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), f.logs) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if log := logs.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, f.logs) {
		t.Errorf("the log lacks an error saying %q:\n%s", f.logs, log)
	}

	t.Logf("the player read %q after %v; the server logged:\n%s", ref.text, took.Round(time.Millisecond), logs.String())

	// The cause is gone: the same click on the last acknowledged board.
	if err := s.move(ctx); err != nil {
		t.Fatalf("once the cause is gone, the click on the last acknowledged board: %v\nlog:\n%s", err, logs.String())
	}
	for done := s.matchesDone; s.matchesDone == done; {
		if err := s.step(ctx); err != nil {
			t.Fatalf("playing on: %v", err)
		}
	}
	code, _, err := srv.stop(10 * time.Second)
	if err != nil || code != 0 {
		t.Fatalf("stop: exit %d, %v", code, err)
	}
	if err := integrityCheck(ctx, path); err != nil {
		t.Fatal(err)
	}
	if n, _, err := checkStored(ctx, path, []*slot{s}); err != nil || n != s.acknowledged() {
		t.Fatalf("stored %d of %d acknowledged moves: %v", n, s.acknowledged(), err)
	}
}
