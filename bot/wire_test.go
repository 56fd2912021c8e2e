package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// TestEncodeResponseIsEncodingJSON holds appendResponse to its promise: for
// every message the bot renders (boards of several sizes and themes, in
// every phase, challenge, round record, match over, analysis, help, stats,
// leaderboard, private answers), the bytes encoding/json writes through
// discordgo's MarshalJSON methods.
func TestEncodeResponseIsEncodingJSON(t *testing.T) {
	var responses []*discordgo.InteractionResponse
	for _, cfg := range []game.Config{
		{Rows: 6, Columns: 7, Connect: 4, Wins: 2},
		{Rows: 12, Columns: 12, Connect: 5, Wins: 1},
		{Rows: 4, Columns: 4, Connect: 3, Wins: 3},
	} {
		for _, th := range themes {
			round := fillRound(cfg, 7)
			for _, moves := range [][]int{nil, round[:len(round)/2], round} {
				s := testSession(t, cfg, th.Name, moves, "Alice <&> \"A\"", worstName)
				for _, msg := range allMessages(s) {
					responses = append(responses, updateMessage(msg), newMessage(msg))
				}
				responses = append(responses, forfeitPrompt(s, game.Player1))
			}
		}
	}
	help, _ := (&Handler{}).helpCommand(context.Background(), nil, nil)
	responses = append(responses, help,
		newMessage(renderLeaderboard([]sessions.Stats{{UserID: "1", Matches: 3, Wins: 2}})),
		newMessage(renderStats("1", "Bob", sessions.Stats{Matches: 1}, sessions.Stats{}, nil)),
		ephemeral("It is not your turn."),
		&discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate},
		&discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: &discordgo.InteractionResponseData{
			Components: []discordgo.MessageComponent{&discordgo.ActionsRow{Components: []discordgo.MessageComponent{&discordgo.Button{Label: "pointer, no style"}}}},
		}},
		&discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: &discordgo.InteractionResponseData{
			Components: []discordgo.MessageComponent{}, Embeds: []*discordgo.MessageEmbed{},
		}},
		// Not a row of buttons: encoding/json encodes it.
		&discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{
			Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.SelectMenu{CustomID: "menu", Options: []discordgo.SelectMenuOption{{Label: "a", Value: "a"}}},
			}}},
		}},
	)
	rows := 0
	for k, resp := range responses {
		got, err := appendResponse([]byte("x"), resp)
		if err != nil {
			t.Fatalf("response %d: appendResponse error = %v", k, err)
		}
		if got[0] != 'x' {
			t.Fatalf("response %d: appendResponse did not append: %s", k, got)
		}
		got = got[1:]
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("response %d:\nappendResponse = %s\nencoding/json  = %s", k, got, want)
		}
		if resp.Data != nil {
			rows += len(resp.Data.Components)
		}
	}
	if len(responses) < 100 || rows < 100 {
		t.Fatalf("only %d responses with %d rows of components compared", len(responses), rows)
	}
	if _, ok := toWire(responses[len(responses)-1]); ok {
		t.Error("toWire took a select menu for a row of buttons")
	}
	t.Logf("%d responses, %d rows of components", len(responses), rows)
}

// TestReadBody: the signed message is the timestamp followed by the whole
// body, whatever length was declared, and a body of the declared length
// takes one allocation (the buffer).
func TestReadBody(t *testing.T) {
	const ts = "1700000000"
	for _, n := range []int{0, 1, 511, 512, 513, 5000} {
		body := bytes.Repeat([]byte("x"), n)
		for _, declared := range []int64{int64(n), -1, 0, int64(n) + 100, int64(n) / 2} {
			got, err := readBody(bytes.NewReader(body), ts, declared)
			if err != nil || string(got) != ts+string(body) {
				t.Errorf("body of %d bytes, %d declared: got %d bytes (%v), want %d", n, declared, len(got), err, len(ts)+n)
			}
		}
	}
	body := bytes.Repeat([]byte("x"), 5000)
	r := bytes.NewReader(body)
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(body)
		if _, err := readBody(r, ts, int64(len(body))); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Errorf("reading a body of the declared length: %.0f allocations, want 1", allocs)
	}
}
