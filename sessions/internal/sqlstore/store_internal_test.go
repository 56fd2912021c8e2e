package sqlstore

import (
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

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

func TestRebind(t *testing.T) {
	q := `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`
	if got := (Dialect{}).Rebind(q); got != q {
		t.Errorf("Rebind() for ? placeholders = %q, want it unchanged", got)
	}
	if got, want := (Dialect{Numbered: true}).Rebind(q), `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`; got != want {
		t.Errorf("Rebind() numbered = %q, want %q", got, want)
	}
}

// TestEncodeActionsAppends checks that the actions column grows by the new
// actions only and reads back as the whole list.
func TestEncodeActionsAppends(t *testing.T) {
	m, err := game.NewMatch(game.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	empty, err := encodeActions(nil, m.Actions())
	if err != nil || empty != "[]" {
		t.Fatalf("encodeActions(no actions) = %q, %v, want []", empty, err)
	}
	prev := &cached{sess: &sessions.Session{Match: m.Clone()}, actions: empty}
	for _, c := range []int{3, 4, 3} {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
		got, err := encodeActions(prev, m.Actions())
		if err != nil {
			t.Fatal(err)
		}
		whole, _ := encodeActions(nil, m.Actions())
		if got != whole {
			t.Fatalf("appended encoding = %s, want %s", got, whole)
		}
		prev = &cached{sess: &sessions.Session{Match: m.Clone()}, actions: got}
	}
	if got, _ := encodeActions(prev, m.Actions()); got != prev.actions {
		t.Errorf("encodeActions(unchanged) = %s, want the stored text %s", got, prev.actions)
	}
	other, _ := game.NewMatch(game.DefaultConfig())
	other.Play(game.Player1, 0)
	if got, _ := encodeActions(prev, other.Actions()); got != `[{"kind":"drop","player":1}]` {
		t.Errorf("encodeActions(not a continuation) = %s, want the list encoded whole", got)
	}
}

func TestCacheBounded(t *testing.T) {
	c := newCache(2)
	for id := range int64(5) {
		c.put(id, &cached{revision: id})
	}
	if got := c.len(); got != 2 {
		t.Errorf("entries = %d, want at most 2", got)
	}
	c.put(9, &cached{revision: 3})
	if c.get(9, 4) != nil || c.get(9, 3) == nil {
		t.Error("get() must return an entry at its own revision only")
	}
	off := newCache(0)
	off.put(1, &cached{})
	if off.get(1, 0) != nil || off.len() != 0 {
		t.Error("a cache of size 0 keeps nothing")
	}
}
