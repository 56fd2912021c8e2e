// Package customid makes and reads the custom_ids of the bot's buttons:
// "cn:<action>" followed by up to MaxParts natural numbers, each after a
// colon ("cn:drop:42:3:17:4", "cn:join:7", "cn:forget"). A button's maker
// writes its parts with New; the route table declares, per action, the
// parts it expects (Part), and Parse reads a custom_id back against them.
// A custom_id is parsed, never trusted: anything Parse does not read back
// exactly is refused.
package customid

import (
	"strconv"
	"strings"
)

// Prefix starts every custom_id this bot makes.
const Prefix = "cn"

// MaxParts is the most numbers a custom_id holds after its action.
const MaxParts = 4

// ID is a button's custom_id: its action and its numbers.
type ID struct {
	// Action names the button ("drop", "join"); it routes the click.
	Action string
	n      int
	parts  [MaxParts]int64
}

// New returns the custom_id of action with parts, in order. It panics
// with more than MaxParts parts: a mistake in the program.
func New(action string, parts ...int64) ID {
	if len(parts) > MaxParts {
		panic("customid: more than MaxParts parts for " + action)
	}
	id := ID{Action: action, n: len(parts)}
	copy(id.parts[:], parts)
	return id
}

// Len returns how many parts id has.
func (id ID) Len() int { return id.n }

// Part returns part k (from 0) of id, 0 when id has no such part.
func (id ID) Part(k int) int64 {
	if k < 0 || k >= id.n {
		return 0
	}
	return id.parts[k]
}

// String formats id as its custom_id, which Parse reads back.
func (id ID) String() string { return string(id.Append(make([]byte, 0, 48))) }

// Append appends the custom_id of id to b, built by hand: a board's
// buttons make seven or more of these per click.
func (id ID) Append(b []byte) []byte {
	b = append(append(b, Prefix+":"...), id.Action...)
	for _, v := range id.parts[:id.n] {
		b = strconv.AppendInt(append(b, ':'), v, 10)
	}
	return b
}

// Part declares one number of a custom_id after its action: its name (for
// the log) and its bounds.
type Part struct {
	Name     string
	Min, Max int64
}

// Error says why Parse refused a custom_id.
type Error struct{ Why string }

func (e *Error) Error() string { return e.Why }

// Parse reads s, a custom_id made by ID.String, for an action that parts
// knows (it returns the action's parts, and false for an action it does
// not know). Anything else (another prefix, an unknown action, a missing
// or extra part, a number with a sign, leading zeros or out of its part's
// range) returns an *Error saying why. Numbers are only checked for form
// and range here; whether they fit a session is the handler's business.
func Parse(s string, parts func(action string) ([]Part, bool)) (ID, error) {
	bad := func(why string) (ID, error) { return ID{}, &Error{Why: why} }
	// The fields, split without allocating: n counts them all, fields
	// keeps as many as a custom_id may have.
	var fields [2 + MaxParts]string
	n := 0
	for rest, more := s, true; more; n++ {
		var f string
		f, rest, more = strings.Cut(rest, ":")
		if n < len(fields) {
			fields[n] = f
		}
	}
	if n < 2 || fields[0] != Prefix {
		return bad("not ours")
	}
	want, ok := parts(fields[1])
	if !ok {
		return bad("unknown action")
	}
	if n != 2+len(want) {
		return bad("wrong number of parts")
	}
	id := ID{Action: fields[1], n: len(want)}
	for k, p := range want {
		v, ok := natural(fields[2+k], p.Max)
		if !ok || v < p.Min {
			return bad("bad " + p.Name)
		}
		id.parts[k] = v
	}
	return id, nil
}

// natural reads a decimal integer from 0 to limit written without sign or
// leading zeros, as ID.String writes them.
func natural(s string, limit int64) (int64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n <= limit
}
