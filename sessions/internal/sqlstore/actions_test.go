package sqlstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

func drops(p game.Player, columns ...int) []game.Action {
	var list []game.Action
	for _, c := range columns {
		list = append(list, game.Action{Kind: game.Drop, Player: p, Column: c})
	}
	return list
}

// TestActionText: the move text of each kind of action, both players, and
// columns on both sides of each letter's wrap, and the same actions read
// back from it.
func TestActionText(t *testing.T) {
	p1, p2 := game.Player1, game.Player2
	tests := []struct {
		name    string
		actions []game.Action
		want    string
	}{
		{"none", nil, ""},
		{"player 1's columns", drops(p1, 0, 3, 25), "adz"},
		{"player 2's columns", drops(p2, 0, 3, 25), "ADZ"},
		{"columns from 26 on", append(drops(p1, 26, 51, 52, 255), drops(p2, 26, 255)...), "1a1z2a9v1A9V"},
		{"forfeits", []game.Action{{Kind: game.ForfeitRound, Player: p1}, {Kind: game.ForfeitRound, Player: p2},
			{Kind: game.ForfeitMatch, Player: p1}, {Kind: game.ForfeitMatch, Player: p2}}, "-r-R-m-M"},
		{"a forfeit between drops", append(append(drops(p1, 30), game.Action{Kind: game.ForfeitRound, Player: p2}), drops(p1, 2)...), "1e-Rc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := appendActionText(nil, tt.actions...)
			if err != nil || string(b) != tt.want {
				t.Fatalf("appendActionText(%v) = %q, %v, want %q", tt.actions, b, err, tt.want)
			}
			got, err := parseActions(b)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.actions) {
				t.Errorf("parseActions(%q) = %v, %v, want %v", b, got, err, tt.actions)
			}
		})
	}
}

// TestActionTextRefuses: actions no match holds are not encoded, and text
// in neither form is not read, each with an error wrapping
// game.ErrInvalidAction.
func TestActionTextRefuses(t *testing.T) {
	for _, a := range []game.Action{
		{Kind: game.Drop, Player: game.NoPlayer},
		{Kind: game.Drop, Player: 3},
		{Kind: game.Drop, Player: game.Player1, Column: -1},
		{Kind: 7, Player: game.Player2},
	} {
		if b, err := appendActionText(nil, a); !errors.Is(err, game.ErrInvalidAction) {
			t.Errorf("appendActionText(%+v) = %q, %v, want an error wrapping %v", a, b, err, game.ErrInvalidAction)
		}
	}
	for _, text := range []string{"?", "a b", "a,", "-", "-x", "a-", "1", "12", "a1", "0a", "99999999a", "-1", "é"} {
		if got, err := parseActions([]byte(text)); !errors.Is(err, game.ErrInvalidAction) {
			t.Errorf("parseActions(%q) = %v, %v, want an error wrapping %v", text, got, err, game.ErrInvalidAction)
		}
	}
	if got, err := parseActions([]byte(`[{"kind":`)); err == nil {
		t.Errorf("parseActions(JSON cut short) = %v, want an error", got)
	}
}

// TestActionsBothForms: a column in the JSON list (every row written
// before the move text) reads as the same actions as their move text; the
// next encoding of its match, from a cache entry in JSON, writes the whole
// list in the move text; and an export writes either form as the JSON list,
// a damaged column as its text.
func TestActionsBothForms(t *testing.T) {
	m, err := game.NewMatch(game.Config{Rows: 6, Columns: 30, Connect: 4, Wins: 2, Openers: game.Alternate, FirstOpener: game.Player1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{3, 29, 3} {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.ForfeitRound(game.Player2); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m.Actions())
	if err != nil {
		t.Fatal(err)
	}
	old := string(b) // as encoding/json wrote the column
	const text = "d1Dd-R"
	for _, form := range []string{old, text} {
		got, err := parseActions([]byte(form))
		if err != nil || fmt.Sprint(got) != fmt.Sprint(m.Actions()) {
			t.Errorf("parseActions(%s) = %v, %v, want %v", form, got, err, m.Actions())
		}
		if got := string(exportActions(form)); got != old {
			t.Errorf("exportActions(%s) = %s, want %s", form, got, old)
		}
	}
	if got := string(exportActions("")); got != "[]" {
		t.Errorf("exportActions(no action) = %s, want []", got)
	}
	if got := string(exportActions("d?")); got != `"d?"` {
		t.Errorf("exportActions(damaged) = %s, want the text as a JSON string", got)
	}

	entry := &cached{sess: &sessions.Session{Match: m.Clone()}, actions: old}
	if got, err := encodeActions(entry, m); err != nil || got != text {
		t.Errorf("encodeActions(unchanged, entry in JSON) = %q, %v, want %q", got, err, text)
	}
	if _, err := m.Play(m.ToMove(), 28); err != nil {
		t.Fatal(err)
	}
	if got, err := encodeActions(entry, m); err != nil || got != text+"1C" {
		t.Errorf("encodeActions(a move on, entry in JSON) = %q, %v, want %q", got, err, text+"1C")
	}
}
