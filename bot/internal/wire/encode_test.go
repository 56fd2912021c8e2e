package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestEncodeSelectMenu: a response whose components are not rows of
// buttons (the bot sends none) is left to encoding/json, which encodes it
// through discordgo's methods; the bot's tests hold AppendResponse to
// encoding/json for every message the bot renders.
func TestEncodeSelectMenu(t *testing.T) {
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.SelectMenu{CustomID: "menu", Options: []discordgo.SelectMenuOption{{Label: "a", Value: "a"}}},
		}}},
	}}
	if _, ok := toWire(resp); ok {
		t.Error("toWire took a select menu for a row of buttons")
	}
	got, err := AppendResponse(nil, resp)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendResponse = %s\nencoding/json = %s", got, want)
	}
}

// TestReadBody: the signed message is the timestamp followed by the whole
// body, whatever length was declared and whatever buffer is passed, a body
// of the declared length takes one allocation (the buffer) without a
// buffer, and none into a buffer large enough (the last request's).
func TestReadBody(t *testing.T) {
	const ts = "1700000000"
	for _, n := range []int{0, 1, 511, 512, 513, 5000} {
		body := bytes.Repeat([]byte("x"), n)
		for _, declared := range []int64{int64(n), -1, 0, int64(n) + 100, int64(n) / 2} {
			for _, dst := range [][]byte{nil, make([]byte, 3), make([]byte, 0, 600), bytes.Repeat([]byte("y"), 6000)} {
				got, err := ReadBody(dst, bytes.NewReader(body), ts, declared)
				if err != nil || string(got) != ts+string(body) {
					t.Errorf("body of %d bytes, %d declared, buffer of %d: got %d bytes (%v), want %d", n, declared, cap(dst), len(got), err, len(ts)+n)
				}
			}
		}
	}
	body := bytes.Repeat([]byte("x"), 5000)
	r := bytes.NewReader(body)
	for _, c := range []struct {
		dst  []byte
		want float64
	}{{nil, 1}, {make([]byte, 0, len(ts)+len(body)+1), 0}} {
		allocs := testing.AllocsPerRun(100, func() {
			r.Reset(body)
			if _, err := ReadBody(c.dst, r, ts, int64(len(body))); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != c.want {
			t.Errorf("reading a body of the declared length into a buffer of %d: %.0f allocations, want %.0f", cap(c.dst), allocs, c.want)
		}
	}
}

// TestAppendResponseButtons: rows of buttons held by value and by pointer,
// a button without a style (Primary, as its MarshalJSON writes it), a row
// without buttons and one with an empty list, and no rows at all, encode
// as encoding/json encodes them through discordgo's methods, and the
// buttons held by pointer are left as they were.
func TestAppendResponseButtons(t *testing.T) {
	ptr := &discordgo.Button{Label: "2", Style: discordgo.SecondaryButton, CustomID: "b", Disabled: true}
	styleless := &discordgo.Button{Label: "3", CustomID: "c", Emoji: &discordgo.ComponentEmoji{Name: "🔁"}}
	for name, comps := range map[string][]discordgo.MessageComponent{
		"mixed": {
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: "1", CustomID: "a"}, ptr}},
			&discordgo.ActionsRow{ID: 4, Components: []discordgo.MessageComponent{styleless, discordgo.Button{Label: "URL", Style: discordgo.LinkButton, URL: "https://example.com"}}},
			discordgo.ActionsRow{},
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{}},
		},
		"none":  nil,
		"empty": {},
	} {
		resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
			Data: &discordgo.InteractionResponseData{Content: "x", Components: comps}}
		got, err := AppendResponse(nil, resp)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: AppendResponse = %s\nencoding/json = %s", name, got, want)
		}
	}
	if ptr.Style != discordgo.SecondaryButton || styleless.Style != 0 {
		t.Errorf("the buttons were changed: styles %d and %d", ptr.Style, styleless.Style)
	}
}
