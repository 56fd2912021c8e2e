package bot

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// The fuzz targets run their seed corpus with every `go test`; CI adds a
// short, count-bounded fuzz run (.ci/run) and longer runs are by hand:
//
//	go test -run '^$' -fuzz '^FuzzDecodeInteraction$' -fuzztime 10m ./bot
//	go test -run '^$' -fuzz '^FuzzParseRoute$' -fuzztime 10m ./bot

// replayBodies returns the recorded interactions under testdata/replay, the
// seeds of FuzzDecodeInteraction.
func replayBodies(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "replay", "*.interaction.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no recorded interactions under testdata/replay: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzDecodeInteraction checks decodeInteraction against discordgo's own
// decoding: whatever discordgo reads as an interaction with a type,
// decodeInteraction reads the same (but for the clicked message, reduced to
// its ID and channel, and the member and user, reduced to their IDs and
// names); it never panics; and what it reads goes through the handler's
// routing without a panic.
func FuzzDecodeInteraction(f *testing.F) {
	for _, b := range replayBodies(f) {
		f.Add(b)
	}
	for _, s := range []string{
		`{"type":1}`, `{"type":99,"id":"1"}`, `{"type":3,"data":null}`, `{"type":3,"data":[]}`,
		`{"type":3,"data":{"custom_id":"cn:drop:1:0:0:1"},"message":{"id":"5","components":[{"type":1}]}}`,
		`{"type":2,"data":{"name":"connectn","options":[{"type":1,"name":"challenge","options":[{"type":6,"name":"opponent","value":"2"}]}]}}`,
		`{"type":3,"message":{"id":7}}`, `{"type":3,"member":{"user":null}}`, `[]`, `null`, `{"type":"1"}`,
		// What the skim of the message must read as discordgo does.
		`{"type":3,"data":{},"message":{"id":"1","channel_id":"2"},"MESSAGE":{"ID":"3"}}`,
		`{"type":3,"data":{},"message":{"id":"1"},"message":null}`, `{"type":3,"data":{},"message":null,"Message":{"channel_id":"4"}}`,
		`{"type":3,"data":{},"m\\u0065ssage":{"id":"5"}}`, `{"type":3,"data":{},"message":{"\\u0069d":"6"}}`,
		`{"type":3,"data":{},"message":{"id":"\\u0037"}}`, `{"type":3,"data":{},"message":{"id":"1","id":null}}`,
		`{"type":3,"data":{},"message":{"id":null,"components":[{"custom_id":"\\"}{"}],"id":"8"}}`, `{"type":3,"data":{},"message":[]}`,
		`{"type":3,"data":{},"message":{"id":"9"}`, `{"type":3,"data":{},"message":{"id":"1"}} {}`, `{"type":3,"data":{},"message":"x"}`,
		`{"type":3,"data":{},"message":{"content":"\\\\","id":"1","embeds":[{"title":"}\\\"]"}],"channel_id":"2"}}`,
		" { \"type\" : 3 ,\n\"data\" : { } , \"message\"\t: { \"id\" : \"1\" , \"channel_id\":\"2\" } } ",
		`{"type":3,"data":{},"message":nul}`, `{"type":3,"data":{},"message":{"id":"1",}}`, `{"type":3,"data":{},"message":{"id":"\u00e9"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodeInteraction(body)
		var want discordgo.Interaction
		wantErr := json.Unmarshal(body, &want)
		if wantErr == nil && want.Type != 0 && err != nil {
			t.Fatalf("decodeInteraction error = %v, discordgo reads it", err)
		}
		if err != nil {
			if got != nil {
				t.Fatalf("decodeInteraction returned an interaction with error %v", err)
			}
			return
		}
		if got.Type == 0 {
			t.Fatal("decodeInteraction returned an interaction without a type")
		}
		if wantErr == nil {
			if (got.Message == nil) != (want.Message == nil) {
				t.Fatalf("message: got %+v, discordgo read %+v", got.Message, want.Message)
			}
			if want.Message != nil {
				if got.Message.ID != want.Message.ID || got.Message.ChannelID != want.Message.ChannelID {
					t.Fatalf("message: got %+v, want ID %q channel %q", got.Message, want.Message.ID, want.Message.ChannelID)
				}
			}
			g, w := *got, want
			g.Message, w.Message = nil, nil
			// Of the member and the user, the handler reads who it is
			// and the name to show.
			lean := func(u *discordgo.User) *discordgo.User {
				if u == nil {
					return nil
				}
				return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName}
			}
			if w.Member != nil {
				w.Member = &discordgo.Member{User: lean(w.Member.User), Nick: w.Member.Nick}
			}
			w.User = lean(w.User)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("decodeInteraction read\n%+v\ndiscordgo read\n%+v", g, w)
			}
		}
		// The routing that follows reads the data as its type says.
		switch got.Type {
		case discordgo.InteractionMessageComponent:
			r, err := parseRoute(got.Data.(discordgo.MessageComponentInteractionData).CustomID)
			if err == nil && buttonRoutes[r.Action] == nil {
				t.Fatalf("route %+v has no handler", r)
			}
		case discordgo.InteractionApplicationCommand:
			_ = got.ApplicationCommandData()
		}
	})
}

// FuzzParseRoute checks that parseRoute never panics, accepts only
// custom_ids of at most 100 characters, refuses everything else with an
// error wrapping errBadCustomID, and that what it accepts reads back
// through route.String unchanged.
func FuzzParseRoute(f *testing.F) {
	for _, s := range []string{
		"cn:drop:1:0:0:1", "cn:accept:42", "cn:forfeit!:9", "cn:keep:1", "cn:rematch:3", "cn:decline:1",
		"cn:drop:9007199254740991:1048576:1048576:1024", "cn:drop:01:0:0:1", "cn:drop:1:0:0:0", "cn:drop:-1:0:0:1",
		"other-app:button", "cn:", "cn::", "cn:accept:1:extra", strings.Repeat("x", 10<<10), "cn:drop:1:0:0:1\x00",
		"cn:accept:+1", "cn:accept:1e3", "cn:accept:٣",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		r, err := parseRoute(id)
		if err != nil {
			if !errors.Is(err, errBadCustomID) {
				t.Fatalf("parseRoute(%q) error = %v, want one wrapping errBadCustomID", id, err)
			}
			if msg, ok := userMessage(err); !ok || msg == "" {
				t.Fatalf("parseRoute(%q) error %v has no message for the user", id, err)
			}
			if !utf8.ValidString(err.Error()) && utf8.ValidString(id) {
				t.Fatalf("error text is not valid UTF-8: %q", err.Error())
			}
			if len(err.Error()) > 1200 {
				t.Fatalf("error text of %d bytes: the custom_id is not cut for the log", len(err.Error()))
			}
			return
		}
		if len(id) > maxCustomIDLength {
			t.Fatalf("parseRoute accepted a custom_id of %d characters", len(id))
		}
		if buttonRoutes[r.Action] == nil {
			t.Fatalf("parseRoute(%q) = %+v, an action without a handler", id, r)
		}
		if got := r.String(); got != id {
			t.Fatalf("parseRoute(%q).String() = %q", id, got)
		}
	})
}

// recordedClick returns a recorded click on a board, compacted as Discord
// sends it.
func recordedClick(tb testing.TB) []byte {
	tb.Helper()
	indented, err := os.ReadFile(filepath.Join("testdata", "replay", "03-alice-drop-1.interaction.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var body bytes.Buffer
	if err := json.Compact(&body, indented); err != nil {
		tb.Fatal(err)
	}
	return body.Bytes()
}

// TestSkimMessage checks that a click's message is skimmed, not decoded:
// the JSON decoder is handed the body with the message's value replaced by
// null (the fuzz target checks that what comes out is what discordgo reads).
func TestSkimMessage(t *testing.T) {
	body := recordedClick(t)
	rest, msg, ok := skimMessage(body)
	if !ok {
		t.Fatal("the recorded click was not skimmed")
	}
	if msg == nil || msg.ID != "1700000000000000001" || msg.ChannelID != "1300000000000000001" {
		t.Fatalf("message %+v, want ID 1700000000000000001 in channel 1300000000000000001", msg)
	}
	if !bytes.Contains(rest, []byte(`"message":null`)) || bytes.Contains(rest, []byte("embeds")) || len(rest) > len(body)/2 {
		t.Fatalf("the message is left in what is decoded (%d of %d bytes): %s", len(rest), len(body), rest)
	}
	// Strings that end in escaped backslashes or hold escaped quotes and
	// brackets, and whitespace everywhere, are skimmed right.
	for _, s := range []string{
		`{"type":3,"message":{"content":"\\\\","id":"1","embeds":[{"title":"}\\\"]\\\\"}],"channel_id":"2"},"data":{}}`,
		" { \"type\" : 3 ,\n\"message\"\t: { \"id\" : \"1\" , \"x\": [ 1 , { } ], \"channel_id\":\"2\" } , \"data\":{} } ",
		`{"type":3,"Message":{"id":"7"},"message":{"channel_id":"2","ID":"1"},"data":{"custom_id":"\"message\":{}"}}`,
	} {
		rest, msg, ok := skimMessage([]byte(s))
		if !ok || msg == nil || msg.ID != "1" || msg.ChannelID != "2" {
			t.Errorf("skimMessage(%s) = %+v, %v; want ID 1 in channel 2", s, msg, ok)
			continue
		}
		var back map[string]any
		if err := json.Unmarshal(rest, &back); err != nil || back["message"] != nil || back["type"] != 3.0 || back["data"] == nil {
			t.Errorf("skimMessage(%s) left %s (%v)", s, rest, err)
		}
	}
	for _, s := range []string{`[]`, `{"type":3}`, `{"type":3,"m\u0065ssage":{"id":"5"}}`, `{"type":3,"message":[]}`, `{"type":3,"message":{"id":7}}`} {
		if _, _, ok := skimMessage([]byte(s)); ok {
			t.Errorf("skimMessage(%s) reports a skim; want the body decoded whole", s)
		}
	}
}

// TestRoutesParseBack checks that the custom_id of every action, with its
// numbers at their largest, reads back as the route it was made from.
func TestRoutesParseBack(t *testing.T) {
	for a := range routeParts {
		r := route{Action: a, Match: maxMatchID}
		if a == actDrop {
			r.Post, r.Ply, r.Column = maxPostSequence, maxPly, maxColumnNumber
		}
		got, err := parseRoute(r.String())
		if err != nil || got != r {
			t.Errorf("parseRoute(%q) = %+v, %v; want %+v", r.String(), got, err, r)
		}
	}
}

// BenchmarkDecodeInteraction compares decodeInteraction with discordgo's
// decoding on a recorded click, which carries the whole board message.
func BenchmarkDecodeInteraction(b *testing.B) {
	body := recordedClick(b)
	b.Run("discordgo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var i discordgo.Interaction
			if err := json.Unmarshal(body, &i); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeInteraction", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeInteraction(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
