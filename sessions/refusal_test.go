package sessions_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/connectn/connectn/sessions"
)

// packageReasons are the reasons package sessions declares, in the order
// it declares them.
var packageReasons = []sessions.Reason{
	sessions.ReasonStale,
	sessions.ReasonMoved,
	sessions.ReasonMovedTo,
	sessions.ReasonOwnChallenge,
	sessions.ReasonNotForYou,
	sessions.ReasonNotYourMatch,
	sessions.ReasonNoMatch,
	sessions.ReasonMatchEnded,
	sessions.ReasonNotYourTurn,
	sessions.ReasonColumnFull,
	sessions.ReasonNoSuchColumn,
	sessions.ReasonBusy,
	sessions.ReasonSelfChallenge,
	sessions.ReasonBotOpponent,
	sessions.ReasonBadSettings,
}

// reasonSeq numbers the reasons the tests declare: the registry lives as
// long as the test binary, so a test run again (-count) needs new codes.
var reasonSeq atomic.Int64

// freshCode returns a reason code no test has declared yet.
func freshCode(prefix string) string {
	return fmt.Sprintf("%s_%d", prefix, reasonSeq.Add(1))
}

// panicOf calls f and returns what it panicked with, nil when it returned.
func panicOf(t *testing.T, f func()) (p any) {
	t.Helper()
	defer func() { p = recover() }()
	f()
	return nil
}

func TestReasonCodes(t *testing.T) {
	tests := []struct {
		reason        sessions.Reason
		wantString    string
		wantMessageID string
	}{
		{sessions.ReasonStale, "stale", "refusal_stale"},
		{sessions.ReasonMovedTo, "moved_to", "refusal_moved_to"},
		{sessions.ReasonNotYourTurn, "not_your_turn", "refusal_not_your_turn"},
		{sessions.ReasonNoSuchColumn, "no_such_column", "refusal_no_such_column"},
	}
	for _, tt := range tests {
		t.Run(tt.wantString, func(t *testing.T) {
			if got := tt.reason.String(); got != tt.wantString {
				t.Errorf("String() = %q, want %q", got, tt.wantString)
			}
			if got := tt.reason.MessageID(); got != tt.wantMessageID {
				t.Errorf("MessageID() = %q, want %q", got, tt.wantMessageID)
			}
		})
	}
}

func TestNewReason(t *testing.T) {
	tests := []struct {
		name string
		code string
	}{
		{"letters", freshCode("lettersonly")},
		{"underscores and digits", freshCode("a_2b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sessions.NewReason(tt.code)
			if got := r.String(); got != tt.code {
				t.Errorf("String() = %q, want %q", got, tt.code)
			}
			all := sessions.Reasons()
			if got := all[len(all)-1]; got != r {
				t.Errorf("last of Reasons() = %q, want %q", got, r)
			}
		})
	}
}

func TestNewReasonPanics(t *testing.T) {
	declared := freshCode("declared_here")
	sessions.NewReason(declared)
	tests := []struct {
		name string
		code string
		want string // in the panic's message
	}{
		{"empty", "", "lower-case letters"},
		{"upper case", "Stale", "lower-case letters"},
		{"leading digit", "2fast", "lower-case letters"},
		{"leading underscore", "_x", "lower-case letters"},
		{"hyphen", "not-your-turn", "lower-case letters"},
		{"space", "not your turn", "lower-case letters"},
		{"dot", "refusal.stale", "lower-case letters"},
		{"declared by the package", "stale", "declared twice"},
		{"declared by a test", declared, "declared twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := sessions.Reasons()
			p := panicOf(t, func() { sessions.NewReason(tt.code) })
			if p == nil {
				t.Fatalf("NewReason(%q) did not panic", tt.code)
			}
			if got := fmt.Sprint(p); !strings.Contains(got, tt.want) || !strings.Contains(got, fmt.Sprintf("%q", tt.code)) {
				t.Errorf("NewReason(%q) panicked with %q, want the code and %q", tt.code, got, tt.want)
			}
			if got := sessions.Reasons(); !slices.Equal(got, before) {
				t.Errorf("Reasons() after the panic = %v, want %v (unchanged)", got, before)
			}
		})
	}
}

func TestReasons(t *testing.T) {
	got := sessions.Reasons()
	if len(got) < len(packageReasons) {
		t.Fatalf("Reasons() = %v, want at least the package's %v", got, packageReasons)
	}
	// The package's own reasons are declared first, before any test's.
	if !slices.Equal(got[:len(packageReasons)], packageReasons) {
		t.Errorf("Reasons()[:%d] = %v, want %v", len(packageReasons), got[:len(packageReasons)], packageReasons)
	}
	got[0] = sessions.ReasonBusy
	if again := sessions.Reasons(); again[0] != sessions.ReasonStale {
		t.Errorf("Reasons()[0] after changing a copy = %q, want %q: Reasons must return a copy", again[0], sessions.ReasonStale)
	}
}

func TestRefusalError(t *testing.T) {
	tests := []struct {
		name string
		r    *sessions.Refusal
		want string
	}{
		{"no arguments", sessions.Refuse(sessions.ReasonStale), "refused: stale"},
		{"one pair", sessions.Refuse(sessions.ReasonMovedTo, "Link", "https://discord.com/channels/1/2/3"),
			"refused: moved_to Link=https://discord.com/channels/1/2/3"},
		{"two pairs", sessions.Refuse(sessions.ReasonBadSettings, "Option", "rows", "Min", 4),
			"refused: bad_settings Option=rows Min=4"},
		{"an unpaired last argument is left out", sessions.Refuse(sessions.ReasonBadSettings, "Option", "rows", "Min"),
			"refused: bad_settings Option=rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRefuse(t *testing.T) {
	r := sessions.Refuse(sessions.ReasonMovedTo, "Link", "x")
	if r.Reason != sessions.ReasonMovedTo {
		t.Errorf("Reason = %q, want %q", r.Reason, sessions.ReasonMovedTo)
	}
	if want := []any{"Link", "x"}; !slices.Equal(r.Args, want) {
		t.Errorf("Args = %v, want %v", r.Args, want)
	}
}

func TestAsRefusalAndIsRefusal(t *testing.T) {
	refusal := sessions.Refuse(sessions.ReasonColumnFull, "Column", 3)
	other := errors.New("disk full")
	tests := []struct {
		name      string
		err       error
		wantFound bool
	}{
		{"nil", nil, false},
		{"a plain error", other, false},
		{"the refusal itself", refusal, true},
		{"wrapped once", fmt.Errorf("drop: %w", refusal), true},
		{"wrapped twice", fmt.Errorf("update: %w", fmt.Errorf("drop: %w", refusal)), true},
		{"beside a sentinel, as the lifecycle wraps game errors", fmt.Errorf("%w: %w", refusal, other), true},
		{"joined", errors.Join(other, refusal), true},
		{"formatted without %w", fmt.Errorf("drop: %v", refusal), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := sessions.AsRefusal(tt.err)
			if found != tt.wantFound {
				t.Fatalf("AsRefusal(%v) found %t, want %t", tt.err, found, tt.wantFound)
			}
			if found && got != refusal {
				t.Errorf("AsRefusal(%v) = %v, want %v", tt.err, got, refusal)
			}
			if got := sessions.IsRefusal(tt.err, sessions.ReasonColumnFull); got != tt.wantFound {
				t.Errorf("IsRefusal(%v, column_full) = %t, want %t", tt.err, got, tt.wantFound)
			}
			if sessions.IsRefusal(tt.err, sessions.ReasonNotYourTurn) {
				t.Errorf("IsRefusal(%v, not_your_turn) = true, want false", tt.err)
			}
		})
	}
}
