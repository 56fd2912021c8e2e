package bot

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/bot/internal/wire"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// TestEncodeResponseIsEncodingJSON holds wire.AppendResponse to its promise: for
// every message the bot renders (boards of several sizes and themes, in
// every phase, challenge, round record, match over, analysis, help, stats,
// leaderboard, private answers), the bytes encoding/json writes through
// discordgo's MarshalJSON methods; and wire.AppendMessage, for their data
// posted as a follow-up, to the same.
func TestEncodeResponseIsEncodingJSON(t *testing.T) {
	var responses []*discordgo.InteractionResponse
	for _, cfg := range []game.Config{
		{Rows: 6, Columns: 7, Connect: 4, Wins: 2},
		{Rows: 12, Columns: 12, Connect: 5, Wins: 1},
		{Rows: 4, Columns: 4, Connect: 3, Wins: 3},
	} {
		for _, th := range render.Themes {
			round := fillRound(cfg, 7)
			for _, moves := range [][]int{nil, round[:len(round)/2], round} {
				s := testSession(t, cfg, th.Name, moves, "Alice <&> \"A\"", worstName)
				for _, msg := range allMessages(s) {
					responses = append(responses, updateMessage(msg), newMessage(msg))
				}
				responses = append(responses, render.ForfeitPrompt(en, s, game.Player1))
			}
		}
	}
	help := renderHelp(en, DefaultTurnTimeout)
	responses = append(responses, help,
		newMessage(render.Leaderboard(en, false, []sessions.Stats{{UserID: "1", Matches: 3, Wins: 2}})),
		newMessage(render.Stats(en, false, "Bob", sessions.Stats{Matches: 1}, sessions.Stats{}, nil, "Bob", sessions.MemberRating{})),
		render.Ephemeral("It is not your turn."),
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
		got, err := wire.AppendResponse([]byte("x"), resp)
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
			// A follow-up's body: the response's data alone.
			got, err := wire.AppendMessage(nil, resp.Data)
			if err != nil {
				t.Fatalf("response %d: AppendMessage error = %v", k, err)
			}
			want, err := json.Marshal(resp.Data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("response %d's data:\nAppendMessage = %s\nencoding/json = %s", k, got, want)
			}
		}
	}
	if len(responses) < 100 || rows < 100 {
		t.Fatalf("only %d responses with %d rows of components compared", len(responses), rows)
	}
	t.Logf("%d responses, %d rows of components", len(responses), rows)
}
