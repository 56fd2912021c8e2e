package discordtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestBuildersGolden: with the zero values of the fields added for DMs,
// user installs and threads, the builders make the bytes they made before
// those fields existed, on which recorded payloads depend.
func TestBuildersGolden(t *testing.T) {
	e := discordtest.Envelope{ID: "1", Token: "t", AppID: testApp, GuildID: testGuild, ChannelID: testChannel, From: alice,
		Locale: "fr", GuildLocale: "de", ChannelName: "games", CommandID: "5"}
	bob := discordtest.User{ID: "31", Username: "bob", Bot: true}
	msg := &discordgo.Message{ID: "1700000000000000001", Content: "board", Components: buttonRow("a", "b"),
		Embeds: []*discordgo.MessageEmbed{{Title: "x"}}}
	got := bytes.Join([][]byte{
		discordtest.Slash(e, "connectn", "challenge", discordtest.UserArg("opponent", bob), discordtest.IntArg("rows", 7),
			discordtest.StringArg("s", "x")),
		discordtest.Slash(discordtest.Envelope{}, "help", ""),
		discordtest.Slash(discordtest.Envelope{}, "play", "", discordtest.UserArg("opponent", bob)),
		discordtest.Click(e, msg, "a"),
		discordtest.Click(discordtest.Envelope{}, &discordgo.Message{}, "a"),
		discordtest.Ping("1", "t", testApp),
	}, []byte("\n"))
	golden := filepath.Join("testdata", "builders.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("builders changed their output:\ngot  %s\nwant %s", got, want)
	}
}

// TestContexts: interactions in a server (installed there or through a
// member's own install), in the bot's DM, in group DMs and DMs between
// users, and in threads, as Discord sends them, from Slash and Click alike.
func TestContexts(t *testing.T) {
	t.Parallel()
	type want struct {
		context     float64
		owners      map[string]any
		permissions string
		channelType float64
		inGuild     bool
		parent      any // the channel's parent_id; nil for none or null
		thread      bool
		recipients  bool // a DM's recipients: the acting user
		groupOwner  bool
	}
	guild := map[string]any{"0": testGuild}
	user := map[string]any{"1": alice.ID}
	tests := []struct {
		name string
		edit func(*discordtest.Envelope)
		want want
	}{
		{"server that installed the app", func(*discordtest.Envelope) {},
			want{0, guild, "562949953421311", 0, true, nil, false, false, false}},
		{"server through a user install", func(e *discordtest.Envelope) { e.UserInstall = true },
			want{0, user, "562949953863680", 0, true, nil, false, false, false}},
		{"app permissions given", func(e *discordtest.Envelope) { e.UserInstall, e.AppPermissions = true, "1024" },
			want{0, user, "1024", 0, true, nil, false, false, false}},
		{"channel in a category", func(e *discordtest.Envelope) { e.ParentID = "19" },
			want{0, guild, "562949953421311", 0, true, "19", false, false, false}},
		{"public thread", func(e *discordtest.Envelope) {
			e.ChannelType, e.ParentID = discordgo.ChannelTypeGuildPublicThread, testChannel
		},
			want{0, guild, "562949953421311", 11, true, testChannel, true, false, false}},
		{"bot DM", func(e *discordtest.Envelope) { e.Context = discordgo.InteractionContextBotDM },
			want{1, user, "562949953863680", 1, false, nil, false, true, false}},
		{"bot DM, user install ignored", func(e *discordtest.Envelope) { e.Context, e.UserInstall = discordgo.InteractionContextBotDM, true },
			want{1, user, "562949953863680", 1, false, nil, false, true, false}},
		{"group DM", func(e *discordtest.Envelope) { e.Context = discordgo.InteractionContextPrivateChannel },
			want{2, user, "562949953601536", 3, false, nil, false, true, true}},
		{"DM between users", func(e *discordtest.Envelope) {
			e.Context, e.ChannelType = discordgo.InteractionContextPrivateChannel, discordgo.ChannelTypeDM
		}, want{2, user, "562949953601536", 1, false, nil, false, true, false}},
	}
	bob := discordtest.User{ID: "31", Username: "bob"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := envelope()
			e.Locale, e.GuildLocale = "fr", "de"
			tt.edit(&e)
			slash := discordtest.Slash(e, "connectn", "challenge", discordtest.UserArg("opponent", bob))
			click := discordtest.Click(e, &discordgo.Message{ID: "1700000000000000001", Content: "board", Components: buttonRow("x")}, "x")
			for kind, body := range map[string][]byte{"slash": slash, "click": click} {
				var raw map[string]any
				if err := json.Unmarshal(body, &raw); err != nil {
					t.Fatal(err)
				}
				checkContext(t, kind, raw, tt.want.context, tt.want.owners, tt.want.permissions)
				ch, _ := raw["channel"].(map[string]any)
				if ch["id"] != testChannel || ch["type"] != tt.want.channelType || ch["parent_id"] != tt.want.parent {
					t.Errorf("%s: channel %v, want type %v, parent %v", kind, ch, tt.want.channelType, tt.want.parent)
				}
				_, hasGuild := ch["guild_id"]
				_, metadata := ch["thread_metadata"]
				rec, _ := ch["recipients"].([]any)
				_, owner := ch["owner_id"]
				switch {
				case hasGuild != tt.want.inGuild:
					t.Errorf("%s: channel guild_id present %t, want %t: %v", kind, hasGuild, tt.want.inGuild, ch)
				case metadata != tt.want.thread:
					t.Errorf("%s: thread_metadata present %t, want %t: %v", kind, metadata, tt.want.thread, ch)
				case (len(rec) == 1 && rec[0].(map[string]any)["id"] == alice.ID) != tt.want.recipients:
					t.Errorf("%s: recipients %v, want the acting user: %t", kind, rec, tt.want.recipients)
				case tt.want.groupOwner && ch["owner_id"] != alice.ID, !tt.want.groupOwner && !tt.want.thread && owner:
					t.Errorf("%s: owner_id %v, want alice for a group DM only", kind, ch["owner_id"])
				}
				for _, k := range []string{"guild", "guild_id", "guild_locale", "member"} {
					if _, ok := raw[k]; ok != tt.want.inGuild {
						t.Errorf("%s: %s present %t, want %t", kind, k, ok, tt.want.inGuild)
					}
				}
				if u, ok := raw["user"].(map[string]any); ok == tt.want.inGuild || (ok && (u["id"] != alice.ID || u["global_name"] != "Alice")) {
					t.Errorf("%s: user %v (present %t), want the full user outside a server only", kind, raw["user"], ok)
				}
				if raw["locale"] != "fr" {
					t.Errorf("%s: locale %v, want fr", kind, raw["locale"])
				}
				// discordgo reads it as a bot will.
				i := interaction(t, body)
				if (i.Member == nil) == tt.want.inGuild || (i.User == nil) != tt.want.inGuild || float64(i.Context) != tt.want.context {
					t.Errorf("%s: discordgo reads member %v, user %v, context %d", kind, i.Member, i.User, i.Context)
				}
			}
			d := interaction(t, slash).ApplicationCommandData()
			if _, member := d.Resolved.Members[bob.ID]; d.Resolved.Users[bob.ID] == nil || member != tt.want.inGuild {
				t.Errorf("resolved = %+v, want bob's user, and his member in a server only", d.Resolved)
			}
		})
	}
}

// checkContext checks the fields of an interaction's JSON that say where
// it happens and who authorised it.
func checkContext(t *testing.T, kind string, raw map[string]any, context float64, owners map[string]any, permissions string) {
	t.Helper()
	got, _ := raw["authorizing_integration_owners"].(map[string]any)
	if raw["context"] != context || raw["app_permissions"] != permissions || fmt.Sprint(got) != fmt.Sprint(owners) {
		t.Errorf("%s: context %v, app_permissions %v, owners %v; want %v, %v, %v", kind, raw["context"], raw["app_permissions"], got,
			context, permissions, owners)
	}
}
