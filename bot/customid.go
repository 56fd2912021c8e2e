package bot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxCustomIDLength is Discord's limit on a component's custom_id, in
// characters.
const maxCustomIDLength = 100

// errBadCustomID means a component's custom_id is not one this bot makes:
// malformed, foreign or crafted.
var errBadCustomID = errors.New("unrecognised custom_id")

// action is what a button asks for.
type action string

// The actions, each the second part of its buttons' custom_ids.
const (
	actAccept       action = "accept"
	actDecline      action = "decline"
	actDrop         action = "drop"
	actForfeit      action = "forfeit"  // asks for a confirmation
	actForfeitYes   action = "forfeit!" // the confirmation
	actForfeitNo    action = "keep"     // the confirmation declined
	actRematch      action = "rematch"
	actPicture      action = "picture"
	actAnalysis     action = "analysis"
	maxMatchID             = 1<<53 - 1
	maxPly                 = 1 << 20
	maxPostSequence        = 1 << 20
	maxColumnNumber        = 1 << 10
)

// routeParts is how many colon-separated parts each action's custom_id has.
var routeParts = map[action]int{ // at most maxRouteParts
	actAccept: 3, actDecline: 3, actForfeit: 3, actForfeitYes: 3, actForfeitNo: 3, actRematch: 3, actPicture: 3, actAnalysis: 3,
	actDrop: 6,
}

// maxRouteParts is the most parts a custom_id has (a drop's).
const maxRouteParts = 6

// route is a parsed button custom_id. Every button names the match (the
// session ID) it belongs to; a column button also names the board message
// it is on (the session's PostSeq when it was drawn), the ply it was drawn
// at and its column, so a click on an older board message, or on a board
// that has moved on, is recognised.
//
// Forms ("cn" is the prefix of every custom_id this bot makes):
//
//	cn:accept:<match>     cn:decline:<match>
//	cn:forfeit:<match>    cn:forfeit!:<match>    cn:keep:<match>
//	cn:rematch:<match>    cn:picture:<match>    cn:analysis:<match>
//	cn:drop:<match>:<post>:<ply>:<column>   column counted from 1
type route struct {
	Action action
	Match  int64
	Post   int
	Ply    int
	Column int // 1-based; only for actDrop
}

// String formats r as a custom_id that parseRoute reads back.
func (r route) String() string { return string(r.append(make([]byte, 0, 48))) }

// append appends the custom_id of r to b, built by hand: a board's buttons
// make seven or more of these per click.
func (r route) append(b []byte) []byte {
	b = append(append(append(b, "cn:"...), r.Action...), ':')
	b = strconv.AppendInt(b, r.Match, 10)
	if r.Action == actDrop {
		for _, n := range []int{r.Post, r.Ply, r.Column} {
			b = strconv.AppendInt(append(b, ':'), int64(n), 10)
		}
	}
	return b
}

// parseRoute reads a custom_id made by route.String. Anything else (another
// prefix, an unknown action, a missing or extra part, a number with a sign,
// leading zeros or out of range, more than 100 characters) returns an error
// wrapping errBadCustomID. Numbers are only checked for form here; whether
// they fit the session is the handler's business.
func parseRoute(customID string) (route, error) {
	bad := func(why string) (route, error) {
		return route{}, fmt.Errorf("custom_id %.100q: %s: %w", customID, why, errBadCustomID)
	}
	if len(customID) > maxCustomIDLength {
		return bad("too long")
	}
	// The parts, split without allocating: n counts them all, parts keeps
	// as many as a route has.
	var parts [maxRouteParts]string
	n := 0
	for rest, more := customID, true; more; n++ {
		var part string
		part, rest, more = strings.Cut(rest, ":")
		if n < len(parts) {
			parts[n] = part
		}
	}
	if n < 3 || parts[0] != "cn" {
		return bad("not ours")
	}
	r := route{Action: action(parts[1])}
	want, known := routeParts[r.Action]
	if !known {
		return bad("unknown action")
	}
	if n != want {
		return bad("wrong number of parts")
	}
	id, ok := parseNatural(parts[2], maxMatchID)
	if !ok || id < 1 {
		return bad("bad match id")
	}
	r.Match = id
	if r.Action == actDrop {
		post, ok := parseNatural(parts[3], maxPostSequence)
		if !ok {
			return bad("bad post sequence")
		}
		ply, ok := parseNatural(parts[4], maxPly)
		if !ok {
			return bad("bad ply")
		}
		column, ok := parseNatural(parts[5], maxColumnNumber)
		if !ok || column < 1 {
			return bad("bad column")
		}
		r.Post, r.Ply, r.Column = int(post), int(ply), int(column)
	}
	return r, nil
}

// parseNatural reads a decimal integer from 0 to limit written without sign
// or leading zeros, as route.String writes them.
func parseNatural(s string, limit int64) (int64, bool) {
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
