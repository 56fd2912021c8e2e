//go:build linux

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBinaryDiskFull checks the message for a full disk, on a small tmpfs
// filled to the last byte. Mounting needs root; elsewhere the test is
// skipped.
func TestBinaryDiskFull(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root): %v", err)
	}
	defer syscall.Unmount(dir, 0)
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 4096))
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the tmpfs: %v, want ENOSPC", err)
	}
	r := runBinary(t, t.TempDir(), map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, "serve", "-db", filepath.Join(dir, "connectn.db"))
	want := "disk full: the file system holding " + dir + " has no space left"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("got exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
}
