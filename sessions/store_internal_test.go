package sessions

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestConnectionPragmas checks that every pooled connection gets the DSN's
// settings, not just the first one.
func TestConnectionPragmas(t *testing.T) {
	st, err := Open(t.Context(), filepath.Join(t.TempDir(), "connectn.db"))
	if err != nil {
		t.Fatalf("Open() error = %v", err)
	}
	defer st.Close()

	// Hold every connection of the pool at once so each one is checked.
	for i := range maxOpenConns {
		conn, err := st.db.Conn(t.Context())
		if err != nil {
			t.Fatalf("Conn() error = %v", err)
		}
		defer conn.Close()
		tests := []struct {
			pragma string
			want   string
		}{
			{pragma: "journal_mode", want: "wal"},
			{pragma: "busy_timeout", want: "5000"},
			{pragma: "foreign_keys", want: "1"},
			{pragma: "synchronous", want: "1"}, // NORMAL
			{pragma: "user_version", want: fmt.Sprint(len(migrations))},
		}
		for _, tt := range tests {
			var got string
			if err := conn.QueryRowContext(t.Context(), "PRAGMA "+tt.pragma).Scan(&got); err != nil {
				t.Fatalf("connection %d: PRAGMA %s error = %v", i, tt.pragma, err)
			}
			if got != tt.want {
				t.Errorf("connection %d: PRAGMA %s = %q, want %q", i, tt.pragma, got, tt.want)
			}
		}
	}
}

func TestKeyedMutexForgetsIdleKeys(t *testing.T) {
	var k keyedMutex
	unlock, err := k.lock(t.Context(), "a")
	if err != nil {
		t.Fatalf("lock() error = %v", err)
	}
	unlock()
	if got := len(k.m); got != 0 {
		t.Errorf("keys held after unlock = %d, want 0", got)
	}
}
