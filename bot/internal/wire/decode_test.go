package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// The fuzz target runs its seed corpus with every `go test`; CI adds a
// short, count-bounded fuzz run (.ci/run) and longer runs are by hand:
//
//	go test -run '^$' -fuzz '^FuzzDecodeInteraction$' -fuzztime 10m ./bot/internal/wire

// replayDir holds the recorded session of the bot's tests.
var replayDir = filepath.Join("..", "..", "testdata", "replay")

// replayBodies returns the recorded interactions under testdata/replay, the
// seeds of FuzzDecodeInteraction.
func replayBodies(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(replayDir, "*.interaction.json"))
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

// FuzzDecodeInteraction checks DecodeInteraction against discordgo's own
// decoding: whatever discordgo reads as an interaction with a type,
// DecodeInteraction reads the same (but for the clicked message, reduced to
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
		got, err := DecodeInteraction(body)
		var want discordgo.Interaction
		wantErr := json.Unmarshal(body, &want)
		if wantErr == nil && want.Type != 0 && err != nil {
			t.Fatalf("DecodeInteraction error = %v, discordgo reads it", err)
		}
		if err != nil {
			if got != nil {
				t.Fatalf("DecodeInteraction returned an interaction with error %v", err)
			}
			return
		}
		if got.Type == 0 {
			t.Fatal("DecodeInteraction returned an interaction without a type")
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
			// Of the member and the user, the handler reads who it is,
			// the name to show, and a member's roles and permissions.
			lean := func(u *discordgo.User) *discordgo.User {
				if u == nil {
					return nil
				}
				return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName}
			}
			if w.Member != nil {
				w.Member = &discordgo.Member{User: lean(w.Member.User), Nick: w.Member.Nick, Roles: w.Member.Roles,
					Permissions: w.Member.Permissions}
			}
			w.User = lean(w.User)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("DecodeInteraction read\n%+v\ndiscordgo read\n%+v", g, w)
			}
		}
	})
}

// recordedClick returns a recorded click on a board, compacted as Discord
// sends it.
func recordedClick(tb testing.TB) []byte {
	tb.Helper()
	indented, err := os.ReadFile(filepath.Join(replayDir, "03-alice-drop-1.interaction.json"))
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

// BenchmarkDecodeInteraction compares DecodeInteraction with discordgo's
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
	b.Run("DecodeInteraction", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeInteraction(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMessageID reads the ID of a message as Discord answers a follow-up,
// embeds and buttons included, and refuses what is not a message object.
func TestMessageID(t *testing.T) {
	body := `{"type":0,"content":"","mentions":[],"embeds":[{"title":"Round 2","description":"⚫⚫\n🔴🟡","color":3447003,"fields":[{"name":"a","value":"b"}]}],` +
		`"components":[{"type":1,"components":[{"type":2,"style":2,"label":"1","custom_id":"cn:drop:5:2:0:0"}]}],` +
		`"id":"1300000000000000042","channel_id":"1200000000000000001","author":{"id":"9","username":"ConnectN","bot":true},"flags":0}`
	if id, err := MessageID([]byte(body)); err != nil || id != "1300000000000000042" {
		t.Errorf("MessageID = %q, %v; want 1300000000000000042", id, err)
	}
	for _, bad := range []string{``, `[]`, `{"id":5}`, `{"id":"1"`, `not json`} {
		if id, err := MessageID([]byte(bad)); err == nil {
			t.Errorf("MessageID(%s) = %q, want an error", bad, id)
		}
	}
}

// TestDecodeInteractionOwnsItsStrings checks that nothing DecodeInteraction
// returns points into the body it was given, which the HTTP server reuses
// for the next request: a click (the message skimmed; its IDs are views
// of the body until copied) and a command (decoded whole) read the same
// after their bodies are overwritten.
func TestDecodeInteractionOwnsItsStrings(t *testing.T) {
	for name, body := range map[string][]byte{
		"click":   recordedClick(t),
		"command": []byte(`{"type":2,"id":"11","application_id":"12","token":"tok","guild_id":"13","channel_id":"14","locale":"de","guild_locale":"fr","member":{"user":{"id":"15","username":"ann","global_name":"Ann"},"nick":"A","roles":["16"]},"data":{"name":"connectn","options":[{"type":1,"name":"board"}]}}`),
		"escaped": []byte(`{"type":3,"id":"21","token":"t\u006fk","channel_id":"22","data":{"custom_id":"cn:drop:1:0:0:1"},"message":{"id":"\u0032\u0033","channel_id":"22"}}`),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeInteraction(body)
			if err != nil {
				t.Fatal(err)
			}
			want, err := DecodeInteraction(bytes.Clone(body))
			if err != nil {
				t.Fatal(err)
			}
			for k := range body {
				body[k] = 'x'
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("after the body was overwritten, the interaction reads\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}
