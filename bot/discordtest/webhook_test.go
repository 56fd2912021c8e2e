package discordtest_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// fakeClock is a clock for WithClock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2030, 1, 2, 3, 4, 5, 600_000_000, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// tokenless returns a session without a bot token, as a bot that only
// answers HTTP interactions has.
func tokenless(t *testing.T, srv *discordtest.Server) *discordgo.Session {
	t.Helper()
	sess, err := srv.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Token != "" {
		t.Fatalf("NewSession(\"\") has token %q", sess.Token)
	}
	return sess
}

// slashCommand dispatches a new slash command in channel 20 over the
// gateway.
func slashCommand(t *testing.T, srv *discordtest.Server) *discordgo.Interaction {
	t.Helper()
	i := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: "20",
		Data: discordgo.ApplicationCommandInteractionData{Name: "play"}}
	if err := srv.DispatchInteraction(i); err != nil {
		t.Fatal(err)
	}
	return i
}

func buttonRow(ids ...string) []discordgo.MessageComponent {
	var buttons []discordgo.MessageComponent
	for _, id := range ids {
		buttons = append(buttons, discordgo.Button{Label: id, CustomID: id})
	}
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: buttons}}
}

func TestWebhookRoutesArePublic(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	openSession(t, srv, nil) // DispatchInteraction needs a gateway connection
	web := tokenless(t, srv)
	i := slashCommand(t, srv)

	if err := web.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "board"}}); err != nil {
		t.Fatalf("callback without a bot token: %v", err)
	}
	f, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "follow-up"})
	if err != nil {
		t.Fatalf("follow-up without a bot token: %v", err)
	}
	if m, err := web.InteractionResponse(i); err != nil || m.Content != "board" {
		t.Errorf("GET @original without a bot token = %+v, %v", m, err)
	}
	edited := "edited"
	if m, err := web.FollowupMessageEdit(i, f.ID, &discordgo.WebhookEdit{Content: &edited}); err != nil || m.Content != "edited" {
		t.Errorf("PATCH follow-up without a bot token = %+v, %v", m, err)
	}
	if err := web.FollowupMessageDelete(i, f.ID); err != nil {
		t.Errorf("DELETE follow-up without a bot token: %v", err)
	}
	webhook := 0
	for _, r := range srv.Requests() {
		if !strings.HasPrefix(r.Path, "/webhooks/") && !strings.HasPrefix(r.Path, "/interactions/") {
			continue // the gateway session's
		}
		webhook++
		if r.Header.Get("Authorization") != "" {
			t.Errorf("%s %s carried Authorization %q", r.Method, r.Path, r.Header.Get("Authorization"))
		}
	}

	if webhook != 5 {
		t.Errorf("%d callback and webhook requests, want 5", webhook)
	}

	// The bot token's routes still need it.
	_, err = web.ChannelMessageSend("20", "hello")
	if status, _ := restCode(t, err); status != http.StatusUnauthorized {
		t.Errorf("channel message without a bot token: status %d, want 401", status)
	}
}

func TestDeleteMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// del deletes something from the state set up below and returns
		// the error and the id of the message that must be gone ("" if
		// nothing may change).
		del      func(bot, web *discordgo.Session, i *discordgo.Interaction, ids map[string]string) (string, error)
		wantCode int // 0: 204 No Content
		wantKind discordtest.MessageKind
	}{
		{"channel message", func(bot, _ *discordgo.Session, _ *discordgo.Interaction, ids map[string]string) (string, error) {
			return ids["channel"], bot.ChannelMessageDelete("20", ids["channel"])
		}, 0, discordtest.ChannelMessageDelete},
		{"interaction response through the channel", func(bot, _ *discordgo.Session, _ *discordgo.Interaction, ids map[string]string) (string, error) {
			return ids["original"], bot.ChannelMessageDelete("20", ids["original"])
		}, 0, discordtest.ChannelMessageDelete},
		{"@original through the webhook", func(_, web *discordgo.Session, i *discordgo.Interaction, ids map[string]string) (string, error) {
			return ids["original"], web.InteractionResponseDelete(i)
		}, 0, discordtest.WebhookMessageDelete},
		{"ephemeral follow-up through the webhook", func(_, web *discordgo.Session, i *discordgo.Interaction, ids map[string]string) (string, error) {
			return ids["ephemeral"], web.FollowupMessageDelete(i, ids["ephemeral"])
		}, 0, discordtest.WebhookMessageDelete},
		{"ephemeral follow-up through the channel", func(bot, _ *discordgo.Session, _ *discordgo.Interaction, ids map[string]string) (string, error) {
			return "", bot.ChannelMessageDelete("20", ids["ephemeral"])
		}, 10008, 0},
		{"channel message in another channel", func(bot, _ *discordgo.Session, _ *discordgo.Interaction, ids map[string]string) (string, error) {
			return "", bot.ChannelMessageDelete("21", ids["channel"])
		}, 10008, 0},
		{"channel message through the webhook", func(_, web *discordgo.Session, i *discordgo.Interaction, ids map[string]string) (string, error) {
			return "", web.FollowupMessageDelete(i, ids["channel"])
		}, 10008, 0},
		{"unknown message", func(bot, _ *discordgo.Session, _ *discordgo.Interaction, _ map[string]string) (string, error) {
			return "", bot.ChannelMessageDelete("20", "1")
		}, 10008, 0},
		{"channel message without the bot token", func(_, web *discordgo.Session, _ *discordgo.Interaction, ids map[string]string) (string, error) {
			return "", web.ChannelMessageDelete("20", ids["channel"])
		}, -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			bot := openSession(t, srv, nil)
			web := tokenless(t, srv)
			i := slashCommand(t, srv)
			if err := bot.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "original"}}); err != nil {
				t.Fatal(err)
			}
			original, err := bot.InteractionResponse(i)
			if err != nil {
				t.Fatal(err)
			}
			eph, err := bot.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "private", Flags: discordgo.MessageFlagsEphemeral})
			if err != nil {
				t.Fatal(err)
			}
			channel, err := bot.ChannelMessageSend("20", "channel")
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]string{"original": original.ID, "ephemeral": eph.ID, "channel": channel.ID}
			before := len(srv.Messages())

			gone, err := tt.del(bot, web, i, ids)
			switch {
			case tt.wantCode == 0 && err != nil:
				t.Fatalf("delete: %v", err)
			case tt.wantCode == -1:
				if status, _ := restCode(t, err); status != http.StatusUnauthorized {
					t.Errorf("delete: status %d, want 401", status)
				}
			case tt.wantCode > 0:
				if _, code := restCode(t, err); code != tt.wantCode {
					t.Errorf("delete: code %d, want %d", code, tt.wantCode)
				}
			}

			msgs := srv.Messages()
			if gone == "" {
				if len(msgs) != before {
					t.Errorf("a failed delete recorded %+v", msgs[before:])
				}
				if got := len(srv.ChannelMessages("20")); got != 2 {
					t.Errorf("ChannelMessages after a failed delete: %d messages, want 2", got)
				}
				return
			}
			if len(msgs) != before+1 || msgs[before].Kind != tt.wantKind || msgs[before].Message.ID != gone {
				t.Fatalf("records after the delete = %+v, want one %v of %s", msgs[before:], tt.wantKind, gone)
			}
			wantInteraction := ""
			if tt.wantKind == discordtest.WebhookMessageDelete {
				wantInteraction = i.ID
			}
			if got := msgs[before]; got.InteractionID != wantInteraction || got.Payload != nil {
				t.Errorf("delete record: interaction %q payload %s, want %q and none", got.InteractionID, got.Payload, wantInteraction)
			}
			for _, m := range srv.ChannelMessages("20") {
				if m.ID == gone {
					t.Errorf("ChannelMessages still lists deleted message %s", gone)
				}
			}
			if _, err := bot.ChannelMessage("20", gone); err == nil {
				t.Errorf("GET of deleted message %s succeeded", gone)
			} else if _, code := restCode(t, err); code != 10008 {
				t.Errorf("GET of deleted message: code %d, want 10008", code)
			}
		})
	}
}

func TestClockTimestampsAndTokenExpiry(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := newServer(t, discordtest.WithClock(clock.Now))
	bot := openSession(t, srv, nil)
	web := tokenless(t, srv)
	start := clock.Now()

	i := slashCommand(t, srv)
	if id, _ := discordgo.SnowflakeTimestamp(i.ID); !id.Equal(start.Truncate(time.Millisecond)) {
		t.Errorf("interaction id %s is from %v, want the clock's %v", i.ID, id, start)
	}
	if err := web.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "board"}}); err != nil {
		t.Fatal(err)
	}
	original, err := web.InteractionResponse(i)
	if err != nil {
		t.Fatal(err)
	}
	if !original.Timestamp.Equal(start) || original.EditedTimestamp != nil {
		t.Errorf("timestamps = %v, edited %v; want %v, nil", original.Timestamp, original.EditedTimestamp, start)
	}

	clock.Advance(time.Minute)
	content := "moved"
	edited, err := web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content})
	if err != nil {
		t.Fatal(err)
	}
	if edited.EditedTimestamp == nil || !edited.EditedTimestamp.Equal(start.Add(time.Minute)) || !edited.Timestamp.Equal(start) {
		t.Errorf("after an edit: timestamp %v, edited %v; want %v, %v", edited.Timestamp, edited.EditedTimestamp, start, start.Add(time.Minute))
	}

	// The token lives WebhookTokenLifetime: usable until the last instant.
	clock.Advance(discordtest.WebhookTokenLifetime - time.Minute - time.Nanosecond)
	if _, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "last call"}); err != nil {
		t.Fatalf("follow-up just before the token expires: %v", err)
	}
	clock.Advance(time.Nanosecond)

	calls := []struct {
		name string
		call func() error
	}{
		{"follow-up", func() error {
			_, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "too late"})
			return err
		}},
		{"GET @original", func() error { _, err := web.InteractionResponse(i); return err }},
		{"PATCH @original", func() error {
			_, err := web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content})
			return err
		}},
		{"DELETE @original", func() error { return web.InteractionResponseDelete(i) }},
		{"with the bot token too", func() error { _, err := bot.InteractionResponse(i); return err }},
	}
	for _, c := range calls {
		err := c.call()
		if err == nil {
			t.Errorf("%s after %v succeeded", c.name, discordtest.WebhookTokenLifetime)
			continue
		}
		var re *discordgo.RESTError
		if status, code := restCode(t, err); status != http.StatusUnauthorized || code != 50027 ||
			!errors.As(err, &re) || re.Message.Message != "Invalid Webhook Token" {
			t.Errorf("%s after expiry: %v, want 401 Invalid Webhook Token (50027)", c.name, err)
		}
	}

	// An unknown token is still unknown, and the bot token still edits the
	// message through the channel.
	_, err = web.FollowupMessageCreate(&discordgo.Interaction{AppID: srv.ApplicationID(), Token: "nope"}, true, &discordgo.WebhookParams{Content: "x"})
	if _, code := restCode(t, err); code != 10015 {
		t.Errorf("unknown token: code %d, want 10015", code)
	}
	if m, err := bot.ChannelMessageEdit("20", original.ID, "edited by the bot"); err != nil || !m.EditedTimestamp.Equal(clock.Now()) {
		t.Errorf("channel edit after expiry = %+v, %v", m, err)
	}
}

func TestChannelMessages(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bot := openSession(t, srv, nil)

	board, err := bot.ChannelMessageSendComplex("20", &discordgo.MessageSend{Content: "board", Components: buttonRow("drop:1", "drop:2")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bot.ChannelMessageSend("21", "elsewhere"); err != nil {
		t.Fatal(err)
	}
	i := slashCommand(t, srv)
	if err := bot.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "only you", Flags: discordgo.MessageFlagsEphemeral}}); err != nil {
		t.Fatal(err)
	}
	followup, err := bot.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "for all"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bot.ChannelMessageEdit("20", board.ID, "board, moved"); err != nil {
		t.Fatal(err)
	}
	// A user's message, older than the rest, arrives last with a button
	// click on it.
	user := &discordgo.Message{ID: "555", ChannelID: "20", Content: "hi", Author: &discordgo.User{ID: "30"}}
	if err := srv.DispatchInteraction(&discordgo.Interaction{Type: discordgo.InteractionMessageComponent, ChannelID: "20", Message: user,
		Data: discordgo.MessageComponentInteractionData{CustomID: "x", ComponentType: discordgo.ButtonComponent}}); err != nil {
		t.Fatal(err)
	}

	got := srv.ChannelMessages("20")
	var ids, contents []string
	for _, m := range got {
		ids = append(ids, m.ID)
		contents = append(contents, m.Content)
	}
	want := []string{"555", board.ID, followup.ID}
	if len(got) != len(want) || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Fatalf("ChannelMessages(20) = %v %q, want ids %v", ids, contents, want)
	}
	if got[1].Content != "board, moved" || got[1].EditedTimestamp == nil || len(got[1].Components) != 1 {
		t.Errorf("board = %q edited %v with %d component rows, want the edited board with its row", got[1].Content, got[1].EditedTimestamp, len(got[1].Components))
	} else if b := got[1].Components[0].(*discordgo.ActionsRow).Components[1].(*discordgo.Button); b.CustomID != "drop:2" {
		t.Errorf("second button = %q, want drop:2", b.CustomID)
	}
	if got[0].Author.ID != "30" || got[2].Content != "for all" {
		t.Errorf("user message by %s, follow-up %q", got[0].Author.ID, got[2].Content)
	}
	if got := srv.ChannelMessages("22"); got != nil {
		t.Errorf("ChannelMessages of an empty channel = %v, want nil", got)
	}
}
