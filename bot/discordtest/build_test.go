package discordtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestSlash: a slash command as Discord sends it, read back by discordgo.
func TestSlash(t *testing.T) {
	bob := discordtest.User{ID: "31", Username: "bob"}
	e := envelope()
	e.Locale, e.GuildLocale = "fr", "de"
	body := discordtest.Slash(e, "connectn", "challenge", discordtest.UserArg("opponent", bob),
		discordtest.IntArg("rows", 7), discordtest.StringArg("theme", "forest"))
	i := interaction(t, body)
	if i.ID != e.ID || i.Token != e.Token || i.AppID != testApp || i.Type != discordgo.InteractionApplicationCommand || i.Version != 1 ||
		i.GuildID != testGuild || i.ChannelID != testChannel || i.Locale != "fr" || i.GuildLocale == nil || *i.GuildLocale != "de" {
		t.Errorf("interaction = %+v", i)
	}
	if i.Member == nil || i.Member.User == nil || i.Member.User.ID != alice.ID || i.Member.User.GlobalName != "Alice" || i.Member.Permissions == 0 || i.User != nil {
		t.Errorf("member = %+v, user %+v", i.Member, i.User)
	}
	d := i.ApplicationCommandData()
	if d.Name != "connectn" || d.ID != discordtest.DefaultCommandID || len(d.Options) != 1 || d.Options[0].Name != "challenge" ||
		d.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
		t.Fatalf("data = %+v", d)
	}
	opts := d.Options[0].Options
	if len(opts) != 3 || opts[0].UserValue(nil).ID != "31" || opts[1].IntValue() != 7 || opts[2].StringValue() != "forest" {
		t.Errorf("options = %+v", opts)
	}
	if u := d.Resolved.Users["31"]; u == nil || u.Username != "bob" || d.Resolved.Members["31"] == nil {
		t.Errorf("resolved = %+v", d.Resolved)
	}
	// The fields discordgo does not keep, as Discord sends them.
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	guild, _ := raw["guild"].(map[string]any)
	channel, _ := raw["channel"].(map[string]any)
	owners, _ := raw["authorizing_integration_owners"].(map[string]any)
	if guild["id"] != testGuild || guild["locale"] != "de" || channel["id"] != testChannel || channel["type"] != 0.0 ||
		owners["0"] != testGuild || raw["context"] != 0.0 || raw["app_permissions"] == nil || raw["attachment_size_limit"] == nil {
		t.Errorf("interaction JSON lacks Discord's fields: %s", body)
	}
	resolved := raw["data"].(map[string]any)["resolved"].(map[string]any)["members"].(map[string]any)["31"].(map[string]any)
	if _, ok := resolved["user"]; ok || resolved["permissions"] == nil {
		t.Errorf("a resolved member is partial (no user), with permissions: %v", resolved)
	}
	if d := interaction(t, discordtest.Slash(envelope(), "help", "")).ApplicationCommandData(); d.Name != "help" || len(d.Options) != 0 {
		t.Errorf("a command without subcommand: %+v", d)
	}
}

// TestClick: a click as Discord sends it, with the message it is on.
func TestClick(t *testing.T) {
	board := &discordgo.Message{ID: "1700000000000000001", Content: "board", Components: buttonRow("drop:1", "drop:2"),
		Embeds: []*discordgo.MessageEmbed{{Title: "Round 1"}}, Flags: discordgo.MessageFlagsEphemeral}
	i := interaction(t, discordtest.Click(envelope(), board, "drop:2"))
	if d := i.MessageComponentData(); d.CustomID != "drop:2" || d.ComponentType != discordgo.ButtonComponent {
		t.Errorf("data = %+v", d)
	}
	m := i.Message
	if m == nil || m.ID != board.ID || m.ChannelID != testChannel || m.Content != "board" || len(m.Embeds) != 1 || m.Flags != board.Flags {
		t.Fatalf("message = %+v", m)
	}
	if b := discordtest.FindButton(m.Components, "drop:2"); b == nil || b.CustomID != "drop:2" {
		t.Errorf("buttons = %+v", discordtest.Buttons(m.Components))
	}
	if m.Author == nil || m.Author.ID != testApp || !m.Author.Bot {
		t.Errorf("author = %+v, want the bot", m.Author)
	}
	if at, _ := discordgo.SnowflakeTimestamp(board.ID); !m.Timestamp.Equal(at) {
		t.Errorf("timestamp %v, want the snowflake's %v", m.Timestamp, at)
	}
}

// TestSignedRequest: a request verifies as Discord's does, and not once
// tampered with.
func TestSignedRequest(t *testing.T) {
	pub, priv := newKey(0)
	body := discordtest.Ping("1", "t", testApp)
	at := time.Unix(1_800_000_000, 0)
	req, err := discordtest.SignedRequest(context.Background(), "http://bot.example/interactions", priv, at, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("X-Signature-Timestamp") != "1800000000" || req.Header.Get("Content-Type") != "application/json" ||
		!strings.HasPrefix(req.Header.Get("User-Agent"), "Discord-Interactions/") {
		t.Errorf("headers = %v", req.Header)
	}
	if !discordgo.VerifyInteraction(req, pub) {
		t.Fatal("discordgo.VerifyInteraction refused the signed request")
	}
	req, _ = discordtest.SignedRequest(context.Background(), "http://bot.example/interactions", priv, at, body)
	req.Body = io.NopCloser(bytes.NewReader(bytes.Replace(body, []byte(`"type":1`), []byte(`"type":2`), 1)))
	if discordgo.VerifyInteraction(req, pub) {
		t.Error("a tampered body verified")
	}
	if i := interaction(t, body); i.Type != discordgo.InteractionPing || i.User == nil || i.GuildID != "" {
		t.Errorf("PING = %+v", i)
	}
}

// TestDecodeResponse reads a response with its components, which
// json.Unmarshal alone cannot, and finds its buttons.
func TestDecodeResponse(t *testing.T) {
	raw, err := json.Marshal(discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{Content: "board", Flags: discordgo.MessageFlagsEphemeral,
			Components:      append(buttonRow("1", "2"), buttonRow("Forfeit")...),
			AllowedMentions: &discordgo.MessageAllowedMentions{Users: []string{"30"}}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := discordtest.DecodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Type != discordgo.InteractionResponseUpdateMessage || resp.Data.Content != "board" || resp.Data.Flags != discordgo.MessageFlagsEphemeral ||
		resp.Data.AllowedMentions == nil || resp.Data.AllowedMentions.Users[0] != "30" {
		t.Errorf("response = %+v", resp.Data)
	}
	var labels []string
	for _, b := range discordtest.Buttons(resp.Data.Components) {
		labels = append(labels, b.Label)
	}
	if strings.Join(labels, " ") != "1 2 Forfeit" || discordtest.FindButton(resp.Data.Components, "Forfeit").CustomID != "Forfeit" {
		t.Errorf("buttons %q", labels)
	}
	// Buttons reads values too, as a bot builds them.
	if b := discordtest.FindButton(buttonRow("x"), "x"); b == nil || discordtest.FindButton(buttonRow("x"), "y") != nil {
		t.Errorf("FindButton on values = %+v", b)
	}
	if _, err := discordtest.DecodeResponse([]byte(`{"type":4,"data":{"components":[{"type":99}]}}`)); err == nil {
		t.Error("an unknown component decoded")
	}
	// Other components than rows of buttons decode as discordgo decodes
	// them, and go back into a click as they came.
	menu := []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.SelectMenu{CustomID: "pick", Options: []discordgo.SelectMenuOption{{Label: "a", Value: "a"}}}}}}
	raw, _ = json.Marshal(discordgo.InteractionResponse{Type: 4, Data: &discordgo.InteractionResponseData{Content: "x", Components: menu}})
	resp, err = discordtest.DecodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := resp.Data.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu); !ok || m.CustomID != "pick" || len(m.Options) != 1 {
		t.Errorf("select menu = %#v", resp.Data.Components[0])
	}
	i := interaction(t, discordtest.Click(envelope(), &discordgo.Message{ID: "1", Components: resp.Data.Components}, "pick"))
	if m, ok := i.Message.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu); !ok || m.Options[0].Value != "a" {
		t.Errorf("select menu in a click = %#v", i.Message.Components[0])
	}
}
