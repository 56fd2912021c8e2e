package game

import (
	"fmt"
)

// ActionKind is the kind of one step of a match.
type ActionKind uint8

const (
	// Drop drops a disc into a column.
	Drop ActionKind = iota
	// ForfeitRound gives up the current round.
	ForfeitRound
	// ForfeitMatch gives up the whole match.
	ForfeitMatch
)

var actionKindNames = [...]string{Drop: "drop", ForfeitRound: "forfeit-round", ForfeitMatch: "forfeit-match"}

// String returns "drop", "forfeit-round" or "forfeit-match".
func (k ActionKind) String() string {
	if int(k) < len(actionKindNames) {
		return actionKindNames[k]
	}
	return fmt.Sprintf("ActionKind(%d)", uint8(k))
}

// MarshalText encodes k as its String form. It returns an error wrapping
// ErrInvalidAction for an unknown kind.
func (k ActionKind) MarshalText() ([]byte, error) {
	if int(k) >= len(actionKindNames) {
		return nil, fmt.Errorf("action kind %d: %w", uint8(k), ErrInvalidAction)
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes a String form. It returns an error wrapping
// ErrInvalidAction for any other text.
func (k *ActionKind) UnmarshalText(b []byte) error {
	for i, name := range actionKindNames {
		if string(b) == name {
			*k = ActionKind(i)
			return nil
		}
	}
	return fmt.Errorf("action kind %q: %w", b, ErrInvalidAction)
}

// Action is one step of a match by one player. Column (zero-based) matters
// only for Drop. A match's Config plus its list of Actions is its whole
// persistent form (JSON: {"kind":"drop","player":1,"column":3}).
type Action struct {
	Kind   ActionKind `json:"kind"`
	Player Player     `json:"player"`
	Column int        `json:"column,omitempty"`
}

// String returns a short form such as "player 1 drops in column 4" (columns
// counted from 1).
func (a Action) String() string {
	switch a.Kind {
	case Drop:
		return fmt.Sprintf("%v drops in column %d", a.Player, a.Column+1)
	case ForfeitRound:
		return fmt.Sprintf("%v forfeits the round", a.Player)
	case ForfeitMatch:
		return fmt.Sprintf("%v forfeits the match", a.Player)
	}
	return fmt.Sprintf("%v: %v", a.Player, a.Kind)
}

// Apply performs one action, as Play, ForfeitRound or Forfeit would. It
// returns their errors, or one wrapping ErrInvalidAction for an unknown kind;
// on error the match is unchanged.
func (m *Match) Apply(a Action) error {
	switch a.Kind {
	case Drop:
		_, err := m.Play(a.Player, a.Column)
		return err
	case ForfeitRound:
		return m.ForfeitRound(a.Player)
	case ForfeitMatch:
		return m.Forfeit(a.Player)
	}
	return fmt.Errorf("action kind %d: %w", uint8(a.Kind), ErrInvalidAction)
}

// Replay rebuilds a match from its configuration and its actions. The
// result is identical to the match that produced them. It returns an error
// wrapping ErrInvalidConfig for a bad configuration, or the first action's
// error, prefixed with its index, when an action is illegal.
func Replay(cfg Config, actions []Action) (*Match, error) {
	m, err := NewMatch(cfg)
	if err != nil {
		return nil, err
	}
	for i, a := range actions {
		if err := m.Apply(a); err != nil {
			return nil, fmt.Errorf("replay action %d (%v): %w", i, a, err)
		}
	}
	return m, nil
}
