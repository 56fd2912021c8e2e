package sessions

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Reason is why an action was refused, as a code: lower-case letters,
// digits and underscores. The catalog (package locale) renders a refusal
// of reason code as message "refusal_" + code, in the reader's language.
// Reasons are declared once, as package variables, with NewReason; every
// reason declared is listed by Reasons, so that a test can require a text
// for each.
type Reason struct{ code string }

// String returns the reason's code.
func (r Reason) String() string { return r.code }

// MessageID returns the catalog message that renders a refusal for r:
// "refusal_" + its code.
func (r Reason) MessageID() string { return "refusal_" + r.code }

var (
	reasonsMu sync.Mutex
	reasons   []Reason
	codeRule  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// NewReason declares the reason code and returns it. It panics when code
// is not lower-case letters, digits and underscores, or was declared
// already: both are mistakes in the program, caught when it starts.
func NewReason(code string) Reason {
	if !codeRule.MatchString(code) {
		panic(fmt.Sprintf("sessions: reason code %q: want lower-case letters, digits and underscores", code))
	}
	reasonsMu.Lock()
	defer reasonsMu.Unlock()
	r := Reason{code}
	if slices.Contains(reasons, r) {
		panic(fmt.Sprintf("sessions: reason %q declared twice", code))
	}
	reasons = append(reasons, r)
	return r
}

// Reasons returns every reason declared so far (by this package and by
// the packages loaded that declare their own), in order of declaration.
func Reasons() []Reason {
	reasonsMu.Lock()
	defer reasonsMu.Unlock()
	return slices.Clone(reasons)
}

// Refusal is an action refused for a reason the user can mend or must
// accept (not your turn, the column is full, the board moved on), made
// where the rule is checked, and rendered to the user through the catalog
// in their language. Nothing was changed by the refused action. Args are
// the values the reason's text reads, as pairs of a field name and its
// value ("Option", "rows", "Min", 4): strings, integers, booleans, or a
// Member, which the bot shows as the member's name.
type Refusal struct {
	Reason Reason
	Args   []any
}

// Refuse returns a refusal for reason, with args as name, value pairs.
func Refuse(reason Reason, args ...any) *Refusal {
	return &Refusal{Reason: reason, Args: args}
}

// Error describes the refusal for logs: "refused: <code>" and its
// arguments.
func (r *Refusal) Error() string {
	if len(r.Args) == 0 {
		return "refused: " + r.Reason.code
	}
	var b strings.Builder
	b.WriteString("refused: ")
	b.WriteString(r.Reason.code)
	for k := 0; k+1 < len(r.Args); k += 2 {
		fmt.Fprintf(&b, " %v=%v", r.Args[k], r.Args[k+1])
	}
	return b.String()
}

// AsRefusal returns the refusal err is or wraps, and whether there is one.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// IsRefusal reports whether err is or wraps a refusal for reason.
func IsRefusal(err error, reason Reason) bool {
	r, ok := AsRefusal(err)
	return ok && r.Reason == reason
}

// The reasons of the session lifecycle's refusals.
var (
	// ReasonStale: the button belongs to a board or session that has
	// moved on.
	ReasonStale = NewReason("stale")
	// ReasonMoved: the board was posted again further down; the message
	// of the live board is not known yet.
	ReasonMoved = NewReason("moved")
	// ReasonMovedTo: the board was posted again further down, at Link.
	ReasonMovedTo = NewReason("moved_to")
	// ReasonOwnChallenge: the challenger clicked Accept.
	ReasonOwnChallenge = NewReason("own_challenge")
	// ReasonNotForYou: someone else than the two players answered a
	// challenge.
	ReasonNotForYou = NewReason("not_for_you")
	// ReasonNotYourMatch: someone else than the two players acted on a
	// match.
	ReasonNotYourMatch = NewReason("not_your_match")
	// ReasonNoMatch: there is no match being played in the channel.
	ReasonNoMatch = NewReason("no_match")
	// ReasonMatchEnded: the match is over.
	ReasonMatchEnded = NewReason("match_ended")
	// ReasonNotYourTurn: the other player is to move.
	ReasonNotYourTurn = NewReason("not_your_turn")
	// ReasonColumnFull: the column has no empty cell.
	ReasonColumnFull = NewReason("column_full")
	// ReasonNoSuchColumn: the column is not on the board.
	ReasonNoSuchColumn = NewReason("no_such_column")
	// ReasonBusy: the channel already has a challenge or a match.
	ReasonBusy = NewReason("busy")
	// ReasonSelfChallenge: a member challenged themself.
	ReasonSelfChallenge = NewReason("self_challenge")
	// ReasonBotOpponent: a member challenged a bot (other than this one).
	ReasonBotOpponent = NewReason("bot_opponent")
	// ReasonBadSettings: the match settings are impossible.
	ReasonBadSettings = NewReason("bad_settings")
	// ReasonRematchAsked: the player asked for a rematch already; the
	// invitation to Opponent (a Member) waits for an answer.
	ReasonRematchAsked = NewReason("rematch_asked")
	// ReasonRematchPending: Inviter (a Member) asked for a rematch
	// already; the player may accept it.
	ReasonRematchPending = NewReason("rematch_pending")
	// ReasonStaleBoard: the clicked board has moved on (another disc was
	// dropped since it was drawn) and the live board's message is not
	// known.
	ReasonStaleBoard = NewReason("stale_board")
	// ReasonStaleBoardTo: the clicked board has moved on; the live board
	// is at Link.
	ReasonStaleBoardTo = NewReason("stale_board_to")
	// ReasonSeatTaken: an open challenge's seat went to another member
	// (Player) first.
	ReasonSeatTaken = NewReason("seat_taken")
	// ReasonOpenWithdraw: only the challenger (Challenger) may withdraw an
	// open challenge; the others may accept it.
	ReasonOpenWithdraw = NewReason("open_withdraw")
	// ReasonNothingToEnd: a moderator's end where no challenge or match is
	// under way.
	ReasonNothingToEnd = NewReason("nothing_to_end")
)

// The refusals of admission: who may open or accept a challenge where,
// and the bounds of what a server sets.
var (
	// ReasonChannelNotAllowed: the server allows challenges in Channels
	// only.
	ReasonChannelNotAllowed = NewReason("channel_not_allowed")
	// ReasonRoleRequired: the server asks for Role to play.
	ReasonRoleRequired = NewReason("role_required")
	// ReasonRoleOpponent: the challenged member (Opponent) lacks the
	// Role the server asks for.
	ReasonRoleOpponent = NewReason("role_required_opponent")
	// ReasonCooldown: the member challenged less than Cooldown ago; they
	// may again When.
	ReasonCooldown = NewReason("cooldown")
	// ReasonConnectTooLong: a line of Connect is longer than both sides
	// of a board of Rows and Columns (Max the longest that fits).
	ReasonConnectTooLong = NewReason("connect_too_long")
	// ReasonSettingsConnect: the server's default line (Connect) would be
	// longer than both sides of its default board (Rows, Columns).
	ReasonSettingsConnect = NewReason("settings_connect")
	// ReasonDuration: a duration given for Option is not one from Min to
	// Max.
	ReasonDuration = NewReason("duration")
)
