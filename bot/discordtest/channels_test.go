package discordtest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// deliverIn delivers a slash command of e to an endpoint that answers with
// answer, and returns the interaction.
func deliverIn(t *testing.T, srv *discordtest.Server, e discordtest.Envelope, answer func(*discordgo.Interaction) (int, string)) *discordgo.Interaction {
	t.Helper()
	pub, priv := newKey(0)
	url, _ := startEndpoint(t, pub, answer)
	body := discordtest.Slash(e, "play", "")
	if _, err := srv.DeliverJSON(waitCtx(t), url, priv, body); err != nil {
		t.Fatalf("DeliverJSON: %v", err)
	}
	return interaction(t, body)
}

// asAPIError turns the *discordgo.RESTError of a refused request into the
// fake's *discordtest.APIError, its field errors included; nil stays nil.
func asAPIError(t *testing.T, err error) error {
	t.Helper()
	if err == nil {
		return nil
	}
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T) is not a *discordgo.RESTError", err, err)
	}
	apiErr := &discordtest.APIError{Status: re.Response.StatusCode}
	if err := json.Unmarshal(re.ResponseBody, apiErr); err != nil {
		t.Fatalf("error body %q: %v", re.ResponseBody, err)
	}
	return apiErr
}

// wantRefused fails unless err is Discord's error status/code.
func wantRefused(t *testing.T, what string, err error, status, code int) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted, want %d %d", what, status, code)
		return
	}
	if gotStatus, gotCode := restCode(t, err); gotStatus != status || gotCode != code {
		t.Errorf("%s: %d %d, want %d %d", what, gotStatus, gotCode, status, code)
	}
}

// TestKeepBotOut: in a channel the bot is not a member of, every request
// with the bot token gets 403 Missing Access, the interaction's token
// still speaks, and BotTokenCalls lists the bot's attempts.
func TestKeepBotOut(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bot := session(t, srv, srv.Token())
	web := session(t, srv, "")
	const out, thread = "40", "41"
	srv.KeepBotOut(out)
	srv.MarkThread(thread, out)
	e := envelope()
	e.ChannelID, e.UserInstall = out, true
	i := deliverIn(t, srv, e, message("board"))
	original := srv.ChannelMessages(out)[0].ID

	archived := true
	calls := []struct {
		name    string
		channel string
		call    func() error
	}{
		{"send a message", out, func() error { _, err := bot.ChannelMessageSend(out, "hello"); return err }},
		{"edit the response", out, func() error { _, err := bot.ChannelMessageEdit(out, original, "edited"); return err }},
		{"start a thread", out, func() error {
			_, err := bot.ThreadStart(out, "match", discordgo.ChannelTypeGuildPublicThread, 60)
			return err
		}},
		{"edit the channel", out, func() error { _, err := bot.ChannelEdit(out, &discordgo.ChannelEdit{Name: "x"}); return err }},
		{"read the messages, a route the fake does not serve", out, func() error { _, err := bot.ChannelMessages(out, 10, "", "", ""); return err }},
		{"send in a thread of the channel", thread, func() error { _, err := bot.ChannelMessageSend(thread, "hello"); return err }},
		{"archive a thread of the channel", thread, func() error {
			_, err := bot.ChannelEdit(thread, &discordgo.ChannelEdit{Archived: &archived})
			return err
		}},
	}
	for _, c := range calls {
		wantRefused(t, c.name, c.call(), http.StatusForbidden, 50001)
	}

	// The interaction's token is the way to speak there.
	if _, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "next round"}); err != nil {
		t.Errorf("follow-up in a channel without the bot: %v", err)
	}
	content := "board, edited"
	if _, err := web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content}); err != nil {
		t.Errorf("@original edit in a channel without the bot: %v", err)
	}
	// A request without a token is not the bot's; one with a wrong bot
	// token is, and gets 401 before anything else.
	_, err := web.ChannelMessageSend(out, "x")
	wantRefused(t, "a request without a token", err, http.StatusUnauthorized, 0)
	_, err = session(t, srv, "not-the-token").ChannelMessageSend(out, "x")
	wantRefused(t, "a wrong bot token", err, http.StatusUnauthorized, 0)
	// Elsewhere the bot speaks.
	if _, err := bot.ChannelMessageSend(testChannel, "hello"); err != nil {
		t.Fatalf("a channel the bot is in: %v", err)
	}

	for _, tt := range []struct {
		channel  string
		statuses string
	}{
		{out, "403 403 403 403 403 401"},
		{thread, "403 403"},
		{testChannel, "200"},
		{"42", ""},
	} {
		var got []string
		for _, r := range srv.BotTokenCalls(tt.channel) {
			got = append(got, fmt.Sprint(r.Status))
			if !strings.HasPrefix(r.Header.Get("Authorization"), "Bot ") || !strings.HasPrefix(r.Path, "/channels/"+tt.channel) {
				t.Errorf("BotTokenCalls(%s) lists %s %s (%q)", tt.channel, r.Method, r.Path, r.Header.Get("Authorization"))
			}
		}
		if strings.Join(got, " ") != tt.statuses {
			t.Errorf("BotTokenCalls(%s) statuses = %q, want %q", tt.channel, got, tt.statuses)
		}
	}
	if m := srv.ChannelMessages(out); len(m) != 2 || m[0].Content != content || m[1].Content != "next round" {
		t.Errorf("channel without the bot = %+v, want the response and the follow-up", m)
	}
}

// TestPrivateContexts: interactions in the bot's DM, in group DMs and DMs
// between users, and in servers through a user install, delivered to a
// bot: where its token may post, where a thread may open, and Discord's
// limit of 5 follow-ups for an app that is not installed where it is used.
func TestPrivateContexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*discordtest.Envelope)
		// post and thread are the status and code of a message and a
		// thread by the bot token in the channel (0 for accepted).
		post, postCode, thread, threadCode int
		followups                          int // follow-ups accepted before 40094; 0 for no limit
	}{
		{"server that installed the app", func(*discordtest.Envelope) {}, 0, 0, 0, 0, 0},
		{"server through a user install", func(e *discordtest.Envelope) { e.UserInstall = true }, 0, 0, 0, 0, 5},
		{"bot DM", func(e *discordtest.Envelope) { e.Context = discordgo.InteractionContextBotDM }, 0, 0, 400, 50003, 5},
		{"group DM", func(e *discordtest.Envelope) { e.Context = discordgo.InteractionContextPrivateChannel }, 403, 50001, 403, 50001, 5},
		{"DM between users", func(e *discordtest.Envelope) {
			e.Context, e.ChannelType = discordgo.InteractionContextPrivateChannel, discordgo.ChannelTypeDM
		}, 403, 50001, 403, 50001, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			bot := session(t, srv, srv.Token())
			web := session(t, srv, "")
			e := envelope()
			tt.edit(&e)
			i := deliverIn(t, srv, e, message("board"))
			if m := srv.ChannelMessages(testChannel); len(m) != 1 || (m[0].GuildID != "") != (e.Context == 0) {
				t.Errorf("response = %+v, want one message, with a guild in a server only", m)
			}

			_, err := bot.ChannelMessageSend(testChannel, "with the bot token")
			if tt.post == 0 && err != nil {
				t.Errorf("bot token message: %v", err)
			} else if tt.post != 0 {
				wantRefused(t, "bot token message", err, tt.post, tt.postCode)
			}
			_, err = bot.ThreadStart(testChannel, "match", discordgo.ChannelTypeGuildPublicThread, 60)
			if tt.thread == 0 && err != nil {
				t.Errorf("thread: %v", err)
			} else if tt.thread != 0 {
				wantRefused(t, "thread", err, tt.thread, tt.threadCode)
			}

			n := 0
			for ; n < 6; n++ {
				if _, err = web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: fmt.Sprint("round ", n)}); err != nil {
					break
				}
			}
			switch {
			case tt.followups == 0 && err != nil:
				t.Errorf("follow-up %d: %v, want no limit", n+1, err)
			case tt.followups != 0:
				if n != tt.followups {
					t.Errorf("%d follow-ups accepted, want %d", n, tt.followups)
				}
				wantRefused(t, "one follow-up too many", err, http.StatusBadRequest, 40094)
			}
		})
	}
}

// TestThreadStart: Start Thread without Message through discordgo's
// ThreadStartComplex, with Discord's validation and refusals.
func TestThreadStart(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bot := session(t, srv, srv.Token())
	// The fake learns the guild of a channel from an interaction there.
	deliverIn(t, srv, envelope(), message("hello"))
	parent, err := bot.ThreadStart(testChannel, "parent", discordgo.ChannelTypeGuildPublicThread, 60)
	if err != nil {
		t.Fatal(err)
	}
	srv.DenyThreads("23")
	srv.MarkThread("24", testChannel)
	e := envelope()
	e.ChannelID, e.ChannelType, e.ParentID, e.ChannelName = "25", discordgo.ChannelTypeGuildPrivateThread, testChannel, "secret"
	deliverIn(t, srv, e, message("in a thread"))

	public := func(name string) *discordgo.ThreadStart {
		return &discordgo.ThreadStart{Name: name, Type: discordgo.ChannelTypeGuildPublicThread, AutoArchiveDuration: 60}
	}
	tests := []struct {
		limitCase
		channel string
		data    *discordgo.ThreadStart
		status  int // of a refusal that is not a 50035
		code    int
		// What the thread is, when accepted.
		typ       discordgo.ChannelType
		archive   int
		invitable bool
	}{
		{limitCase: limitCase{"thread.name", "a public thread named in 100", true, "", ""}, channel: testChannel, data: public(text(100)),
			typ: discordgo.ChannelTypeGuildPublicThread, archive: 60},
		{limitCase: limitCase{"", "no type is a private thread, no duration a day", true, "", ""}, channel: testChannel,
			data: &discordgo.ThreadStart{Name: "secret"}, typ: discordgo.ChannelTypeGuildPrivateThread, archive: 1440},
		{limitCase: limitCase{"", "a private thread closed to invitations", true, "", ""}, channel: "22",
			data: &discordgo.ThreadStart{Name: "secret", Type: discordgo.ChannelTypeGuildPrivateThread, AutoArchiveDuration: 10080, Invitable: false},
			typ:  discordgo.ChannelTypeGuildPrivateThread, archive: 10080},
		{limitCase: limitCase{"thread.name", "a name of 101", false, "name", "BASE_TYPE_BAD_LENGTH"}, channel: testChannel, data: public(text(101))},
		{limitCase: limitCase{"thread.name", "an empty name", false, "name", "BASE_TYPE_BAD_LENGTH"}, channel: testChannel, data: public("")},
		{limitCase: limitCase{"", "an announcement thread", false, "type", "BASE_TYPE_CHOICES"}, channel: testChannel,
			data: &discordgo.ThreadStart{Name: "x", Type: discordgo.ChannelTypeGuildNewsThread}},
		{limitCase: limitCase{"", "an archive after 30 minutes", false, "auto_archive_duration", "BASE_TYPE_CHOICES"}, channel: testChannel,
			data: &discordgo.ThreadStart{Name: "x", Type: discordgo.ChannelTypeGuildPublicThread, AutoArchiveDuration: 30}},
		{limitCase: limitCase{"", "a slow mode of 6 hours and a second", false, "rate_limit_per_user", "NUMBER_TYPE_MAX"}, channel: testChannel,
			data: &discordgo.ThreadStart{Name: "x", Type: discordgo.ChannelTypeGuildPublicThread, RateLimitPerUser: 21601}},
		{limitCase: limitCase{name: "a channel without the permission"}, channel: "23", data: public("x"), status: 403, code: 50013},
		{limitCase: limitCase{name: "in a thread the bot opened"}, channel: parent.ID, data: public("x"), status: 400, code: 50024},
		{limitCase: limitCase{name: "in a thread marked"}, channel: "24", data: public("x"), status: 400, code: 50024},
		{limitCase: limitCase{name: "in a thread an interaction came from"}, channel: "25", data: public("x"), status: 400, code: 50024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := bot.ThreadStartComplex(tt.channel, tt.data)
			if tt.status != 0 {
				wantRefused(t, "thread", err, tt.status, tt.code)
				return
			}
			checkLimit(t, tt.limitCase, asAPIError(t, err))
			if !tt.ok {
				return
			}
			guild := ""
			if tt.channel == testChannel {
				guild = testGuild
			}
			md := th.ThreadMetadata
			if th.Type != tt.typ || th.ParentID != tt.channel || th.GuildID != guild || th.OwnerID != srv.ApplicationID() || th.Name != tt.data.Name ||
				md == nil || md.Archived || md.Locked || md.AutoArchiveDuration != tt.archive || md.Invitable != tt.invitable || th.MemberCount != 1 {
				t.Errorf("thread = %+v (%+v), want a %d thread of %s in guild %q, archived after %d", th, md, tt.typ, tt.channel, guild, tt.archive)
			}
			if got, ok := srv.Thread(th.ID); !ok || got != (discordtest.Thread{ID: th.ID, ParentID: tt.channel, GuildID: guild, Name: tt.data.Name,
				Type: tt.typ, AutoArchiveDuration: tt.archive}) {
				t.Errorf("Thread(%s) = %+v, %t", th.ID, got, ok)
			}
			r, err := srv.WaitRequest(waitCtx(t), func(r discordtest.Request) bool {
				return r.Method == http.MethodPost && r.Status == http.StatusCreated && strings.Contains(string(r.Response), `"id":"`+th.ID+`"`)
			})
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(r.Response, &raw); err != nil {
				t.Fatal(err)
			}
			member, _ := raw["member"].(map[string]any)
			if member["user_id"] != srv.ApplicationID() || raw["message_count"] != 0.0 {
				t.Errorf("the answer lacks the bot's thread member or the counts: %s", r.Response)
			}
		})
	}
	coverKinds(t, "thread", tests, func(k int) limitCase { return tests[k].limitCase })

	var ids []string
	for _, th := range srv.Threads() {
		ids = append(ids, th.ID)
	}
	if len(ids) != 6 || ids[0] != parent.ID || ids[1] != "24" || ids[2] != "25" {
		t.Errorf("Threads = %v, want the parent, the marked one, the interaction's and the 3 accepted ones, in that order", ids)
	}
	if th, ok := srv.Thread("25"); !ok || th.Name != "secret" || th.Type != discordgo.ChannelTypeGuildPrivateThread || th.ParentID != testChannel || th.GuildID != testGuild {
		t.Errorf("the thread of the interaction = %+v, %t", th, ok)
	}
	if _, ok := srv.Thread(testChannel); ok {
		t.Error("a text channel is a thread")
	}
}

// TestThreadLifecycle: messages in a thread, archiving by the bot and by
// inactivity, unarchiving by a message, locking, and the edits Discord
// refuses on an archived thread.
func TestThreadLifecycle(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := newServer(t, discordtest.WithClock(clock.Now))
	bot := session(t, srv, srv.Token())
	th, err := bot.ThreadStart(testChannel, "alice vs bob", discordgo.ChannelTypeGuildPublicThread, 60)
	if err != nil {
		t.Fatal(err)
	}
	state := func() discordtest.Thread {
		t.Helper()
		got, ok := srv.Thread(th.ID)
		if !ok {
			t.Fatalf("Thread(%s) unknown", th.ID)
		}
		return got
	}
	yes, no := true, false
	edit := func(d discordgo.ChannelEdit) (*discordgo.Channel, error) { return bot.ChannelEdit(th.ID, &d) }

	board, err := bot.ChannelMessageSend(th.ID, "board")
	if err != nil || board.ChannelID != th.ID {
		t.Fatalf("message in the thread = %+v, %v", board, err)
	}
	if m := srv.ChannelMessages(th.ID); len(m) != 1 {
		t.Errorf("thread messages = %+v", m)
	}

	// The bot archives it: edits are refused until it is reopened.
	ch, err := edit(discordgo.ChannelEdit{Archived: &yes})
	if err != nil || ch.ThreadMetadata == nil || !ch.ThreadMetadata.Archived || !ch.ThreadMetadata.ArchiveTimestamp.Equal(clock.Now()) {
		t.Fatalf("archive = %+v, %v", ch, err)
	}
	if !state().Archived {
		t.Error("Thread says it is not archived")
	}
	_, err = bot.ChannelMessageEdit(th.ID, board.ID, "board, edited")
	wantRefused(t, "message edit in an archived thread", err, http.StatusBadRequest, 50083)
	_, err = edit(discordgo.ChannelEdit{Name: "renamed"})
	wantRefused(t, "rename of an archived thread", err, http.StatusBadRequest, 50083)

	// A message reopens it.
	clock.Advance(time.Minute)
	if _, err := bot.ChannelMessageSend(th.ID, "round 2"); err != nil {
		t.Fatalf("message in an archived thread: %v", err)
	}
	if got := state(); got.Archived {
		t.Errorf("after a message: %+v, want it open", got)
	}
	if _, err := bot.ChannelMessageEdit(th.ID, board.ID, "board, edited"); err != nil {
		t.Errorf("message edit in the reopened thread: %v", err)
	}

	// An hour without a message archives it, as Discord does.
	clock.Advance(59 * time.Minute)
	if state().Archived {
		t.Error("archived a minute early")
	}
	clock.Advance(time.Minute)
	if !state().Archived {
		t.Error("not archived after its auto_archive_duration")
	}
	_, err = bot.ChannelMessageEdit(th.ID, board.ID, "too late")
	wantRefused(t, "message edit after the thread archived itself", err, http.StatusBadRequest, 50083)

	// Reopened, renamed and kept a week; then locked and archived: a
	// message no longer reopens it.
	ch, err = edit(discordgo.ChannelEdit{Archived: &no, Name: "alice beat bob", AutoArchiveDuration: 10080})
	if err != nil || ch.Name != "alice beat bob" || ch.ThreadMetadata.Archived || ch.ThreadMetadata.AutoArchiveDuration != 10080 {
		t.Fatalf("reopen and rename = %+v, %v", ch, err)
	}
	if _, err := edit(discordgo.ChannelEdit{Archived: &yes, Locked: &yes}); err != nil {
		t.Fatal(err)
	}
	_, err = bot.ChannelMessageSend(th.ID, "rematch?")
	wantRefused(t, "message in a locked archived thread", err, http.StatusBadRequest, 50083)
	want := discordtest.Thread{ID: th.ID, ParentID: testChannel, Name: "alice beat bob", Type: discordgo.ChannelTypeGuildPublicThread,
		AutoArchiveDuration: 10080, Archived: true, Locked: true}
	if got := state(); got != want {
		t.Errorf("Thread = %+v, want %+v", got, want)
	}
	if m := srv.ChannelMessages(th.ID); len(m) != 2 {
		t.Errorf("thread messages = %d, want the 2 accepted", len(m))
	}

	// What Modify Channel refuses.
	for _, tt := range []struct {
		limitCase
		channel string
		data    discordgo.ChannelEdit
		status  int // of a refusal that is not a 50035
		code    int
	}{
		{limitCase: limitCase{"thread.name", "a name of 101", false, "name", "BASE_TYPE_BAD_LENGTH"}, channel: th.ID, data: discordgo.ChannelEdit{Archived: &no, Name: text(101)}},
		{limitCase: limitCase{"", "an archive after 2 hours", false, "auto_archive_duration", "BASE_TYPE_CHOICES"}, channel: th.ID,
			data: discordgo.ChannelEdit{Archived: &no, AutoArchiveDuration: 120}},
		{limitCase: limitCase{name: "a channel that is not a thread"}, channel: testChannel, data: discordgo.ChannelEdit{Name: "x"}, status: 404, code: 10003},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bot.ChannelEdit(tt.channel, &tt.data)
			if tt.status != 0 {
				wantRefused(t, "edit", err, tt.status, tt.code)
				return
			}
			checkLimit(t, tt.limitCase, asAPIError(t, err))
		})
	}
	if got := state(); got != want {
		t.Errorf("refused edits changed the thread: %+v", got)
	}
}

// TestWebhookMessageDelete: the bot deletes @original and follow-ups
// through the interaction's webhook.
func TestWebhookMessageDelete(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := newServer(t, discordtest.WithClock(clock.Now))
	web := session(t, srv, "")
	i := answered(t, srv, message("board"))
	original := srv.ChannelMessages(testChannel)[0]
	f, err := web.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "next round"})
	if err != nil {
		t.Fatal(err)
	}
	other := answered(t, srv, message("other"))

	wantRefused(t, "delete through another interaction's webhook", web.FollowupMessageDelete(other, f.ID), http.StatusNotFound, 10008)
	if err := web.FollowupMessageDelete(i, f.ID); err != nil {
		t.Fatalf("delete a follow-up: %v", err)
	}
	wantRefused(t, "delete it again", web.FollowupMessageDelete(i, f.ID), http.StatusNotFound, 10008)
	if err := web.InteractionResponseDelete(i); err != nil {
		t.Fatalf("delete @original: %v", err)
	}
	_, err = web.InteractionResponse(i)
	wantRefused(t, "GET the deleted @original", err, http.StatusNotFound, 10008)
	content := "x"
	_, err = web.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &content})
	wantRefused(t, "edit the deleted @original", err, http.StatusNotFound, 10008)

	if srv.Message(f.ID) != nil || srv.Message(original.ID) != nil {
		t.Error("Message returns a deleted message")
	}
	if m := srv.ChannelMessages(testChannel); len(m) != 1 || m[0].Content != "other" {
		t.Errorf("ChannelMessages = %+v, want only the other interaction's", m)
	}
	var deleted []string
	for _, m := range srv.Messages() {
		if m.Kind == discordtest.WebhookMessageDelete {
			deleted = append(deleted, m.Message.ID+" "+m.Message.Content)
			if m.InteractionID != i.ID || m.Payload != nil {
				t.Errorf("delete record = %+v", m)
			}
		}
	}
	if strings.Join(deleted, ", ") != f.ID+" next round, "+original.ID+" board" {
		t.Errorf("deletions recorded = %q", deleted)
	}
	r, err := srv.WaitRequest(waitCtx(t), func(r discordtest.Request) bool {
		return r.Method == http.MethodDelete && r.Status == http.StatusNoContent
	})
	if err != nil || r.Path != fmt.Sprintf("/webhooks/%s/%s/messages/%s", testApp, i.Token, f.ID) || len(r.Response) != 0 {
		t.Errorf("first delete = %+v, %v", r, err)
	}
	if got := discordtest.WebhookMessageDelete.String(); got != "WebhookMessageDelete" {
		t.Errorf("String() = %q", got)
	}

	clock.Advance(discordtest.WebhookTokenLifetime)
	o := srv.ChannelMessages(testChannel)[0]
	wantRefused(t, "delete after the token expired", web.FollowupMessageDelete(other, o.ID), http.StatusUnauthorized, 50027)
	if srv.Message(o.ID) == nil {
		t.Error("a refused delete deleted the message")
	}
}
