package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/sessions"
)

// Test identities, shaped like Discord snowflakes.
const (
	appID     = "1100000000000000001"
	guildID   = "1200000000000000001"
	channelID = "1300000000000000001"
	aliceID   = "1400000000000000001"
	bobID     = "1400000000000000002"
	carolID   = "1400000000000000003"
	botUserID = "1100000000000000001"
)

type user struct {
	ID, Username, GlobalName string
	Bot                      bool
}

var (
	alice = user{ID: aliceID, Username: "alice", GlobalName: "Alice"}
	bob   = user{ID: bobID, Username: "bob", GlobalName: "Bob"}
	carol = user{ID: carolID, Username: "carol", GlobalName: "Carol"}
	robot = user{ID: "1400000000000000009", Username: "robot", Bot: true}
)

func (u user) json() map[string]any {
	m := map[string]any{
		"id": u.ID, "username": u.Username, "discriminator": "0",
		"global_name": nil, "avatar": nil, "public_flags": 0,
	}
	if u.GlobalName != "" {
		m["global_name"] = u.GlobalName
	}
	if u.Bot {
		m["bot"] = true
	}
	return m
}

func member(u user) map[string]any {
	return map[string]any{
		"user": u.json(), "nick": nil, "roles": []string{}, "avatar": nil,
		"joined_at": "2024-05-01T12:00:00.000000+00:00", "deaf": false, "mute": false,
		"flags": 0, "pending": false, "permissions": "2248473465835073",
	}
}

var interactionSeq atomic.Int64

// base returns the fields every guild interaction carries, as Discord sends
// them.
func base(typ int, from user) map[string]any {
	n := interactionSeq.Add(1)
	return map[string]any{
		"id":                             fmt.Sprintf("15%017d", n),
		"application_id":                 appID,
		"type":                           typ,
		"token":                          fmt.Sprintf("aW50ZXJhY3Rpb246%d", n),
		"version":                        1,
		"guild_id":                       guildID,
		"channel_id":                     channelID,
		"channel":                        map[string]any{"id": channelID, "type": 0, "guild_id": guildID, "name": "games"},
		"member":                         member(from),
		"locale":                         "en-US",
		"guild_locale":                   "en-US",
		"app_permissions":                "562949953421311",
		"entitlements":                   []any{},
		"authorizing_integration_owners": map[string]any{"0": guildID},
		"context":                        0,
	}
}

// slashChallenge returns the JSON of `/connectn challenge opponent:<opp>`
// typed by from, with extra integer options, shaped like Discord's
// APPLICATION_COMMAND interaction: the USER option resolved in
// data.resolved.users and data.resolved.members.
func slashChallenge(from, opp user, ints map[string]int) []byte {
	opts := []any{map[string]any{"type": 6, "name": "opponent", "value": opp.ID}}
	for _, name := range []string{"rows", "columns", "connect", "wins"} {
		if v, ok := ints[name]; ok {
			opts = append(opts, map[string]any{"type": 4, "name": name, "value": v})
		}
	}
	oppMember := member(opp)
	delete(oppMember, "user")
	i := base(2, from)
	i["data"] = map[string]any{
		"id":   "1600000000000000001",
		"name": "connectn",
		"type": 1,
		"options": []any{map[string]any{
			"type": 1, "name": "challenge", "options": opts,
		}},
		"resolved": map[string]any{
			"users":   map[string]any{opp.ID: opp.json()},
			"members": map[string]any{opp.ID: oppMember},
		},
		"guild_id": guildID,
	}
	b, err := json.Marshal(i)
	if err != nil {
		panic(err)
	}
	return b
}

// message is the bot's message in the channel as a Discord client holds it.
type message struct {
	ID         string
	Content    string
	Embeds     []*discordgo.MessageEmbed
	Components []discordgo.MessageComponent
}

// componentClick returns the JSON of a button click by from on msg,
// shaped like Discord's MESSAGE_COMPONENT interaction: data.custom_id and
// data.component_type, and the message the button is on.
func componentClick(from user, msg *message, customID string) []byte {
	i := base(3, from)
	i["message"] = map[string]any{
		"id":               msg.ID,
		"channel_id":       channelID,
		"type":             20,
		"content":          msg.Content,
		"embeds":           msg.Embeds,
		"components":       msg.Components,
		"author":           user{ID: botUserID, Username: "ConnectN", Bot: true}.json(),
		"timestamp":        "2026-11-22T18:00:00.000000+00:00",
		"edited_timestamp": nil,
		"flags":            0,
		"tts":              false,
		"mention_everyone": false,
		"mentions":         []any{},
		"mention_roles":    []any{},
		"attachments":      []any{},
		"pinned":           false,
	}
	i["data"] = map[string]any{"custom_id": customID, "component_type": 2}
	b, err := json.Marshal(i)
	if err != nil {
		panic(err)
	}
	return b
}

// transport delivers one interaction JSON to the bot and returns its
// response.
type transport func(t *testing.T, body []byte) *discordgo.InteractionResponse

// channel plays a Discord channel: it sends interactions through a
// transport and keeps the bot's message as a client would.
type channel struct {
	t        *testing.T
	send     transport
	msg      *message
	nextMsg  int
	lastResp *discordgo.InteractionResponse
}

func newChannel(t *testing.T, send transport) *channel {
	return &channel{t: t, send: send}
}

// command sends a slash command and returns the response. A public reply
// becomes the channel's message.
func (c *channel) command(body []byte) *discordgo.InteractionResponse {
	c.t.Helper()
	resp := c.send(c.t, body)
	c.lastResp = resp
	if resp.Type == discordgo.InteractionResponseChannelMessageWithSource && resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		c.nextMsg++
		c.msg = &message{ID: fmt.Sprintf("17%017d", c.nextMsg)}
		c.apply(resp.Data)
	}
	return resp
}

func (c *channel) apply(d *discordgo.InteractionResponseData) {
	c.msg.Content = d.Content
	c.msg.Embeds = d.Embeds
	c.msg.Components = d.Components
}

// click clicks the button labelled label on the channel's message as from,
// and returns the response; an UPDATE_MESSAGE changes the message.
func (c *channel) click(from user, label string) *discordgo.InteractionResponse {
	c.t.Helper()
	b := findButton(c.t, c.msg.Components, label)
	if b.Disabled {
		c.t.Fatalf("button %q is disabled", label)
	}
	return c.clickID(from, b.CustomID)
}

// clickID clicks a button by its custom_id, which may be stale or crafted.
func (c *channel) clickID(from user, customID string) *discordgo.InteractionResponse {
	c.t.Helper()
	resp := c.send(c.t, componentClick(from, c.msg, customID))
	c.lastResp = resp
	if resp.Type == discordgo.InteractionResponseUpdateMessage {
		c.apply(resp.Data)
	}
	return resp
}

// buttons returns every button of components, in order.
func buttons(components []discordgo.MessageComponent) []discordgo.Button {
	var out []discordgo.Button
	for _, row := range components {
		var inner []discordgo.MessageComponent
		switch r := row.(type) {
		case discordgo.ActionsRow:
			inner = r.Components
		case *discordgo.ActionsRow:
			inner = r.Components
		}
		for _, comp := range inner {
			switch b := comp.(type) {
			case discordgo.Button:
				out = append(out, b)
			case *discordgo.Button:
				out = append(out, *b)
			}
		}
	}
	return out
}

func findButton(t *testing.T, components []discordgo.MessageComponent, label string) discordgo.Button {
	t.Helper()
	var labels []string
	for _, b := range buttons(components) {
		if b.Label == label {
			return b
		}
		labels = append(labels, b.Label)
	}
	t.Fatalf("no button %q on the message; buttons: %q", label, labels)
	return discordgo.Button{}
}

// text returns everything a user reads in a response: content and embeds.
func text(resp *discordgo.InteractionResponse) string {
	if resp == nil || resp.Data == nil {
		return ""
	}
	var sb strings.Builder
	sb.WriteString(resp.Data.Content)
	for _, e := range resp.Data.Embeds {
		sb.WriteString("\n" + e.Title + "\n" + e.Description)
		if e.Footer != nil {
			sb.WriteString("\n" + e.Footer.Text)
		}
	}
	return sb.String()
}

// mustPrivate fails unless resp is an ephemeral message containing want.
func mustPrivate(t *testing.T, resp *discordgo.InteractionResponse, want string) {
	t.Helper()
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("got response type %d (%q), want a private message containing %q", resp.Type, text(resp), want)
	}
	if !strings.Contains(resp.Data.Content, want) {
		t.Fatalf("got private message %q, want it to contain %q", resp.Data.Content, want)
	}
}

// mustUpdate fails unless resp updates the message.
func mustUpdate(t *testing.T, resp *discordgo.InteractionResponse) {
	t.Helper()
	if resp.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("got response type %d (%q), want UPDATE_MESSAGE (7)", resp.Type, text(resp))
	}
}

// mustOpenStore opens a store in a fresh temporary folder, closed when the
// test ends.
func mustOpenStore(t *testing.T) (*sessions.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "connectn.db")
	store, err := sessions.Open(context.Background(), path, sessions.WithClock(fixedClock))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store, path
}

func fixedClock() time.Time { return time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC) }

// direct returns a transport that decodes the JSON as discordgo does and
// calls the handler.
func direct(h *bot.Handler) transport {
	return func(t *testing.T, body []byte) *discordgo.InteractionResponse {
		t.Helper()
		var i discordgo.Interaction
		if err := json.Unmarshal(body, &i); err != nil {
			t.Fatalf("decode interaction: %v", err)
		}
		resp, err := h.Handle(context.Background(), &i)
		if err != nil {
			t.Fatalf("Handle: %v", err)
		}
		// Round-trip the response through JSON, as both transports do.
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("encode response: %v", err)
		}
		return decodeResponse(t, b)
	}
}

// decodeResponse reads an interaction response as Discord would receive it.
func decodeResponse(t *testing.T, b []byte) *discordgo.InteractionResponse {
	t.Helper()
	var raw struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data *struct {
			Content         string                            `json:"content"`
			Flags           discordgo.MessageFlags            `json:"flags"`
			Embeds          []*discordgo.MessageEmbed         `json:"embeds"`
			Components      []json.RawMessage                 `json:"components"`
			AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("decode response %s: %v", b, err)
	}
	resp := &discordgo.InteractionResponse{Type: raw.Type}
	if raw.Data != nil {
		resp.Data = &discordgo.InteractionResponseData{
			Content: raw.Data.Content, Flags: raw.Data.Flags, Embeds: raw.Data.Embeds,
			AllowedMentions: raw.Data.AllowedMentions,
		}
		for _, c := range raw.Data.Components {
			comp, err := discordgo.MessageComponentFromJSON(c)
			if err != nil {
				t.Fatalf("decode component %s: %v", c, err)
			}
			resp.Data.Components = append(resp.Data.Components, comp)
		}
	}
	return resp
}

// newHandler returns a handler on store that logs nowhere.
func newHandler(store bot.Store) *bot.Handler {
	return bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(fixedClock))
}
