package bot

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/sessions"
)

// The fuzz target runs its seed corpus with every `go test`; CI adds a
// short, count-bounded fuzz run (.ci/run) and longer runs are by hand:
//
//	go test -run '^$' -fuzz '^FuzzParseRoute$' -fuzztime 10m ./bot
//
// The interaction decoding's fuzz target is in bot/internal/wire.

// FuzzParseRoute checks that the router's parse never panics, refuses
// everything it does not accept with reasonBadCustomID (which the catalog
// renders), and that what it accepts names a button of the route table and
// reads back through customid.ID.String unchanged.
func FuzzParseRoute(f *testing.F) {
	for _, s := range []string{
		"cn:drop:1:0:0:1", "cn:accept:42", "cn:forfeit!:9", "cn:keep:1", "cn:rematch:3", "cn:decline:1",
		"cn:drop:9007199254740991:1048576:1048576:1024", "cn:drop:01:0:0:1", "cn:drop:1:0:0:0", "cn:drop:-1:0:0:1",
		"other-app:button", "cn:", "cn::", "cn:accept:1:extra", strings.Repeat("x", 10<<10), "cn:drop:1:0:0:1\x00",
		"cn:accept:+1", "cn:accept:1e3", "cn:accept:٣",
	} {
		f.Add(s)
	}
	rt := newRouter(table(features{}), nil, nil)
	f.Fuzz(func(t *testing.T, customID string) {
		id, r, err := rt.parse(customID)
		if err != nil {
			if !sessions.IsRefusal(err, reasonBadCustomID) {
				t.Fatalf("parse(%q) error = %v, want a refusal with reason bad_custom_id", customID, err)
			}
			if !utf8.ValidString(err.Error()) && utf8.ValidString(customID) {
				t.Fatalf("error text is not valid UTF-8: %q", err.Error())
			}
			if len(err.Error()) > 1200 {
				t.Fatalf("error text of %d bytes: the custom_id is not cut for the log", len(err.Error()))
			}
			return
		}
		if r == nil || r.command || r.name != id.Action {
			t.Fatalf("parse(%q) = %+v, route %+v: not the button of its action", customID, id, r)
		}
		if got := id.String(); got != customID {
			t.Fatalf("parse(%q).String() = %q", customID, got)
		}
	})
}

// TestRoutesParseBack checks that the custom_id of every button of the
// route table, with its numbers at their largest, reads back as the
// customid.ID it was made from and fits Discord's 100 characters.
func TestRoutesParseBack(t *testing.T) {
	rt := newRouter(table(features{}), nil, nil)
	for _, r := range rt.table {
		if r.command {
			continue
		}
		var parts []int64
		for _, p := range r.parts {
			parts = append(parts, p.Max)
		}
		id := customid.New(r.name, parts...)
		s := id.String()
		got, _, err := rt.parse(s)
		if err != nil || got != id {
			t.Errorf("parse(%q) = %+v, %v; want %+v", s, got, err, id)
		}
		if len(s) > 100 {
			t.Errorf("custom_id %q has %d characters; Discord takes at most 100", s, len(s))
		}
	}
}
