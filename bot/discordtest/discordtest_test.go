package discordtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/connectn/connectn/bot/discordtest"
)

const waitTimeout = 5 * time.Second

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newServer starts a Server that is closed when the test ends.
func newServer(t *testing.T, opts ...discordtest.Option) *discordtest.Server {
	t.Helper()
	srv := discordtest.New(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// openSession opens a session with the server's token; it is closed before
// the server when the test ends. setup runs before Open, to add handlers.
func openSession(t *testing.T, srv *discordtest.Server, setup func(*discordgo.Session)) *discordgo.Session {
	t.Helper()
	sess, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	if setup != nil {
		setup(sess)
	}
	if err := sess.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Errorf("Session.Close: %v", err)
		}
	})
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	return sess
}

// recv receives from ch or fails the test after waitTimeout.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func restCode(t *testing.T, err error) (status, code int) {
	t.Helper()
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T) is not a *discordgo.RESTError", err, err)
	}
	if re.Message == nil {
		t.Fatalf("RESTError without a decoded message: %s", re.ResponseBody)
	}
	return re.Response.StatusCode, re.Message.Code
}

func TestOpenReady(t *testing.T) {
	t.Parallel()
	bot := &discordgo.User{ID: "4242", Username: "connectn", Bot: true}
	srv := newServer(t, discordtest.WithToken("secret"), discordtest.WithApplicationID("777"), discordtest.WithBotUser(bot))
	ready := make(chan *discordgo.Ready, 1)
	sess := openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ready <- r })
	})

	r := recv(t, ready, "READY")
	if r.User == nil || r.User.ID != "4242" || r.User.Username != "connectn" || !r.User.Bot {
		t.Errorf("READY user = %+v, want the configured bot", r.User)
	}
	if r.SessionID == "" || r.Application == nil || r.Application.ID != "777" || r.Version != 9 {
		t.Errorf("READY = session %q application %+v v%d", r.SessionID, r.Application, r.Version)
	}

	id, err := srv.WaitIdentify(waitCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if id.Token != "Bot secret" {
		t.Errorf("IDENTIFY token = %q", id.Token)
	}
	privileged := discordgo.IntentGuildMembers | discordgo.IntentGuildPresences | discordgo.IntentMessageContent
	if id.Intents&privileged != 0 {
		t.Errorf("IDENTIFY intents %b include privileged ones", id.Intents)
	}
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}

	created := make(chan *discordgo.MessageCreate, 1)
	sess.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { created <- m })
	if err := srv.Dispatch("MESSAGE_CREATE", &discordgo.Message{ID: "1", ChannelID: "2", Content: "hello", Author: &discordgo.User{ID: "3"}}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, created, "MESSAGE_CREATE"); m.Content != "hello" || m.Author.ID != "3" {
		t.Errorf("MESSAGE_CREATE = %+v", m.Message)
	}

	me, err := sess.User("@me")
	if err != nil || me.ID != "4242" {
		t.Errorf("User(@me) = %+v, %v", me, err)
	}
	app, err := sess.Application("@me")
	if err != nil || app.ID != "777" {
		t.Errorf("Application(@me) = %+v, %v", app, err)
	}
	req, err := srv.WaitRequest(waitCtx(t), func(r discordtest.Request) bool { return r.Path == "/gateway" })
	if err != nil {
		t.Fatal(err)
	}
	if req.Host != "discord.com" || req.Status != http.StatusOK {
		t.Errorf("GET /gateway came for host %q and got %d", req.Host, req.Status)
	}
}

func TestApplicationCommandInteraction(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	errc := make(chan error, 3)
	openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
			if ic.Type != discordgo.InteractionApplicationCommand {
				return
			}
			data := ic.ApplicationCommandData()
			col := data.Options[0].IntValue()
			errc <- s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{
					Content: data.Name + " " + ic.Member.User.Username + " column " + strconv.FormatInt(col, 10),
					Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
						discordgo.Button{Label: "Undo", CustomID: "undo"},
					}}},
				},
			})
			edited := "edited"
			_, err := s.InteractionResponseEdit(ic.Interaction, &discordgo.WebhookEdit{Content: &edited})
			errc <- err
			_, err = s.FollowupMessageCreate(ic.Interaction, true, &discordgo.WebhookParams{Content: "follow-up"})
			errc <- err
		})
	})

	i := &discordgo.Interaction{
		Type:      discordgo.InteractionApplicationCommand,
		GuildID:   "10",
		ChannelID: "20",
		Member:    &discordgo.Member{User: &discordgo.User{ID: "30", Username: "alice"}},
		Data: discordgo.ApplicationCommandInteractionData{
			ID:   "40",
			Name: "play",
			Options: []*discordgo.ApplicationCommandInteractionDataOption{
				{Name: "column", Type: discordgo.ApplicationCommandOptionInteger, Value: 3},
			},
		},
	}
	if err := srv.DispatchInteraction(i); err != nil {
		t.Fatal(err)
	}
	if i.ID == "" || i.Token == "" || i.AppID != srv.ApplicationID() {
		t.Fatalf("DispatchInteraction did not fill ids: %+v", i)
	}
	resp, err := srv.WaitResponse(waitCtx(t), i.ID)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data.Content != "play alice column 3" {
		t.Errorf("response = %d %q", resp.Type, resp.Data.Content)
	}
	if len(resp.Data.Components) != 1 {
		t.Fatalf("response components = %d, want 1", len(resp.Data.Components))
	}
	if b := resp.Data.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button); b.CustomID != "undo" {
		t.Errorf("button custom id = %q", b.CustomID)
	}
	for range 3 {
		if err := recv(t, errc, "handler result"); err != nil {
			t.Errorf("handler REST call: %v", err)
		}
	}

	edit, err := srv.WaitMessage(waitCtx(t), func(m discordtest.Message) bool { return m.Kind == discordtest.WebhookMessageEdit })
	if err != nil {
		t.Fatal(err)
	}
	if edit.Message.Content != "edited" || edit.InteractionID != i.ID || edit.Message.ChannelID != "20" || len(edit.Message.Components) != 1 {
		t.Errorf("@original edit = %+v, message %+v", edit, edit.Message)
	}
	msgs := srv.Messages()
	if len(msgs) != 3 || msgs[0].Kind != discordtest.InteractionResponseMessage || msgs[2].Kind != discordtest.FollowupMessageCreate {
		t.Fatalf("messages = %+v", msgs)
	}
	if msgs[0].Message.ID != edit.Message.ID || msgs[2].Message.Content != "follow-up" || msgs[2].Message.ID == edit.Message.ID {
		t.Errorf("original %s, edit %s, follow-up %s %q", msgs[0].Message.ID, edit.Message.ID, msgs[2].Message.ID, msgs[2].Message.Content)
	}
}

func TestMessageComponentInteraction(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	errc := make(chan error, 1)
	sess := openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
			if ic.Type != discordgo.InteractionMessageComponent {
				return
			}
			if ic.Message == nil || len(ic.Message.Components) != 1 {
				errc <- errors.New("INTERACTION_CREATE lost the message or its components")
				return
			}
			errc <- s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseUpdateMessage,
				Data: &discordgo.InteractionResponseData{Content: "dropped in " + ic.MessageComponentData().CustomID},
			})
		})
	})

	board, err := sess.ChannelMessageSendComplex("20", &discordgo.MessageSend{
		Content: "board",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "1", CustomID: "drop:1"},
			discordgo.Button{Label: "2", CustomID: "drop:2"},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if board.ID == "" || board.Author == nil || board.Author.ID != srv.BotUser().ID {
		t.Fatalf("sent message = %+v", board)
	}

	i := &discordgo.Interaction{
		Type:      discordgo.InteractionMessageComponent,
		ChannelID: "20",
		User:      &discordgo.User{ID: "30", Username: "bob"},
		Message:   board,
		Data:      discordgo.MessageComponentInteractionData{CustomID: "drop:2", ComponentType: discordgo.ButtonComponent},
	}
	if err := srv.DispatchInteraction(i); err != nil {
		t.Fatal(err)
	}
	resp, err := srv.WaitResponse(waitCtx(t), i.ID)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Type != discordgo.InteractionResponseUpdateMessage || resp.Data.Content != "dropped in drop:2" {
		t.Errorf("response = %d %q", resp.Type, resp.Data.Content)
	}
	if err := recv(t, errc, "InteractionRespond"); err != nil {
		t.Fatal(err)
	}

	got, err := sess.ChannelMessage("20", board.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "dropped in drop:2" || len(got.Components) != 1 || got.EditedTimestamp == nil {
		t.Errorf("updated message = %+v", got)
	}
	content := "board, edited"
	if _, err := sess.ChannelMessageEditComplex(&discordgo.MessageEdit{Channel: "20", ID: board.ID, Content: &content}); err != nil {
		t.Fatal(err)
	}
	kinds := []discordtest.MessageKind{}
	for _, m := range srv.Messages() {
		if m.Message.ID != board.ID {
			t.Errorf("unexpected message %+v", m.Message)
		}
		kinds = append(kinds, m.Kind)
	}
	want := []discordtest.MessageKind{discordtest.ChannelMessageCreate, discordtest.InteractionResponseMessage, discordtest.ChannelMessageEdit}
	if len(kinds) != len(want) || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
		t.Errorf("message kinds = %v, want %v", kinds, want)
	}
}

func TestModal(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	errc := make(chan error, 2)
	openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
			switch ic.Type {
			case discordgo.InteractionApplicationCommand:
				errc <- s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
					Type: discordgo.InteractionResponseModal,
					Data: &discordgo.InteractionResponseData{CustomID: "name-modal", Title: "Your name", Components: []discordgo.MessageComponent{
						discordgo.ActionsRow{Components: []discordgo.MessageComponent{
							discordgo.TextInput{CustomID: "name", Label: "Name", Style: discordgo.TextInputShort},
						}},
					}},
				})
			case discordgo.InteractionModalSubmit:
				value := ic.ModalSubmitData().Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.TextInput).Value
				errc <- s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
					Type: discordgo.InteractionResponseChannelMessageWithSource,
					Data: &discordgo.InteractionResponseData{Content: "hello " + value, Flags: discordgo.MessageFlagsEphemeral},
				})
			}
		})
	})

	cmd := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: "20", Data: discordgo.ApplicationCommandInteractionData{Name: "name"}}
	if err := srv.DispatchInteraction(cmd); err != nil {
		t.Fatal(err)
	}
	resp, err := srv.WaitResponse(waitCtx(t), cmd.ID)
	if err != nil || resp.Type != discordgo.InteractionResponseModal || resp.Data.Title != "Your name" {
		t.Fatalf("modal response = %+v, %v", resp, err)
	}
	if _, ok := resp.Data.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.TextInput); !ok {
		t.Errorf("modal component is %T", resp.Data.Components[0].(*discordgo.ActionsRow).Components[0])
	}

	submit := &discordgo.Interaction{Type: discordgo.InteractionModalSubmit, ChannelID: "20", Data: discordgo.ModalSubmitInteractionData{
		CustomID: "name-modal",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: "name", Value: "carol"},
		}}},
	}}
	if err := srv.DispatchInteraction(submit); err != nil {
		t.Fatal(err)
	}
	resp, err = srv.WaitResponse(waitCtx(t), submit.ID)
	if err != nil || resp.Data.Content != "hello carol" || resp.Data.Flags != discordgo.MessageFlagsEphemeral {
		t.Fatalf("modal submit response = %+v, %v", resp, err)
	}
	for range 2 {
		if err := recv(t, errc, "InteractionRespond"); err != nil {
			t.Error(err)
		}
	}
	m, err := srv.WaitMessage(waitCtx(t), func(m discordtest.Message) bool { return m.InteractionID == submit.ID })
	if err != nil || m.Message.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("ephemeral reply = %+v, %v", m, err)
	}
}

func TestCommandsBulkOverwrite(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	sess, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	appID := srv.ApplicationID()
	cmds := []*discordgo.ApplicationCommand{
		{Name: "play", Description: "Start a game", Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionUser, Name: "opponent", Description: "Who to play", Required: true},
		}},
		{Name: "stats", Description: "Show statistics"},
	}
	global, err := sess.ApplicationCommandBulkOverwrite(appID, "", cmds)
	if err != nil {
		t.Fatal(err)
	}
	if len(global) != 2 || global[0].ID == "" || global[0].ApplicationID != appID || global[0].Type != discordgo.ChatApplicationCommand {
		t.Fatalf("global overwrite returned %+v", global)
	}
	if _, err := sess.ApplicationCommandBulkOverwrite(appID, "99", cmds[:1]); err != nil {
		t.Fatal(err)
	}

	if got := srv.Commands(""); len(got) != 2 || got[0].Name != "play" || got[1].Name != "stats" || got[0].ID != global[0].ID {
		t.Errorf("Commands(\"\") = %+v", got)
	}
	if got := srv.Commands("99"); len(got) != 1 || got[0].GuildID != "99" || got[0].Options[0].Name != "opponent" {
		t.Errorf("Commands(99) = %+v", got)
	}
	if got := srv.Commands("98"); got != nil {
		t.Errorf("Commands(98) = %+v, want nil", got)
	}

	// Overwriting keeps the id of a command with the same name.
	again, err := sess.ApplicationCommandBulkOverwrite(appID, "", cmds[1:])
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 || again[0].ID != global[1].ID || len(srv.Commands("")) != 1 {
		t.Errorf("second overwrite = %+v", again)
	}

	// Discord's validation: upper-case names are rejected.
	_, err = sess.ApplicationCommandBulkOverwrite(appID, "", []*discordgo.ApplicationCommand{{Name: "Play", Description: "x"}})
	if status, code := restCode(t, err); status != http.StatusBadRequest || code != 50035 {
		t.Errorf("invalid name: status %d code %d", status, code)
	}
	if len(srv.Commands("")) != 1 {
		t.Errorf("rejected overwrite changed the commands")
	}
}

func TestWrongTokenRejected(t *testing.T) {
	t.Parallel()
	srv := newServer(t, discordtest.WithToken("right"))
	sess, err := srv.NewSession("wrong")
	if err != nil {
		t.Fatal(err)
	}
	sess.LogLevel = -1 // discordgo logs the failed Open otherwise

	_, err = sess.User("@me")
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Response.StatusCode != http.StatusUnauthorized || re.Message == nil || re.Message.Message != "401: Unauthorized" {
		t.Fatalf("User(@me) with a wrong token: %v", err)
	}
	if _, err := sess.ApplicationCommandBulkOverwrite(srv.ApplicationID(), "", nil); err == nil {
		t.Error("bulk overwrite with a wrong token succeeded")
	}

	err = sess.Open()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 4004 {
		t.Fatalf("Open with a wrong token: %v, want close 4004", err)
	}
	if err := srv.DispatchInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand}); !errors.Is(err, discordtest.ErrNotConnected) {
		t.Errorf("DispatchInteraction without a connection: %v", err)
	}
}

func TestPrivilegedIntentsRejected(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	sess, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	sess.LogLevel = -1
	sess.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentMessageContent
	err = sess.Open()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 4014 {
		t.Fatalf("Open with MESSAGE_CONTENT: %v, want close 4014", err)
	}
	id, err := srv.WaitIdentify(waitCtx(t))
	if err != nil || id.Intents != discordgo.IntentsGuilds|discordgo.IntentMessageContent {
		t.Errorf("WaitIdentify = %+v, %v", id, err)
	}

	allowed := newServer(t, discordtest.WithPrivilegedIntents(discordgo.IntentMessageContent))
	openSession(t, allowed, func(s *discordgo.Session) { s.Identify.Intents |= discordgo.IntentMessageContent })
}

func TestDiscordRulesEnforced(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	sess := openSession(t, srv, nil)

	dispatch := func() *discordgo.Interaction {
		i := &discordgo.Interaction{
			Type:      discordgo.InteractionApplicationCommand,
			ChannelID: "20",
			Data:      discordgo.ApplicationCommandInteractionData{Name: "play"},
		}
		if err := srv.DispatchInteraction(i); err != nil {
			t.Fatal(err)
		}
		return i
	}

	// Follow-ups and @original need an answered interaction.
	i := dispatch()
	_, err := sess.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "too early"})
	if _, code := restCode(t, err); code != 10015 {
		t.Errorf("follow-up before the response: code %d, want 10015", code)
	}

	// An empty message is rejected, and WaitResponse reports it.
	err = sess.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{}})
	if _, code := restCode(t, err); code != 50006 {
		t.Errorf("empty response: code %d, want 50006", code)
	}
	if _, err := srv.WaitResponse(waitCtx(t), i.ID); err == nil || !strings.Contains(err.Error(), "Cannot send an empty message") {
		t.Errorf("WaitResponse after a rejected response: %v", err)
	}

	// Deferring works once; a second response is rejected; then @original
	// can be edited, and the edit must not be empty or too long.
	if err := sess.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}); err != nil {
		t.Fatal(err)
	}
	if resp, err := srv.WaitResponse(waitCtx(t), i.ID); err != nil || resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Errorf("WaitResponse after deferring = %+v, %v", resp, err)
	}
	err = sess.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Content: "again"}})
	if _, code := restCode(t, err); code != 40060 {
		t.Errorf("second response: code %d, want 40060", code)
	}
	long := strings.Repeat("x", 2001)
	_, err = sess.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &long})
	if _, code := restCode(t, err); code != 50035 {
		t.Errorf("2001 characters: code %d, want 50035", code)
	}
	ok := "done"
	if m, err := sess.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &ok}); err != nil || m.Content != "done" || m.Flags&discordgo.MessageFlagsLoading != 0 {
		t.Errorf("edit of the deferred @original = %+v, %v", m, err)
	}

	// Custom ids must be unique within a message.
	dup := dispatch()
	err = sess.InteractionRespond(dup, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "board", Components: []discordgo.MessageComponent{
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.Button{Label: "1", CustomID: "col"},
				discordgo.Button{Label: "2", CustomID: "col"},
			}},
		}},
	})
	if _, code := restCode(t, err); code != 50035 || !strings.Contains(err.Error(), "COMPONENT_CUSTOM_ID_DUPLICATED") {
		t.Errorf("duplicate custom ids: %v", err)
	}

	// Unknown interactions, and updates of a slash command, are rejected.
	err = sess.InteractionRespond(&discordgo.Interaction{ID: "1", Token: "nope"}, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource})
	if _, code := restCode(t, err); code != 10062 {
		t.Errorf("unknown interaction: code %d, want 10062", code)
	}
	upd := dispatch()
	err = sess.InteractionRespond(upd, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: &discordgo.InteractionResponseData{Content: "x"}})
	if _, code := restCode(t, err); code != 50035 {
		t.Errorf("UPDATE_MESSAGE for a slash command: code %d, want 50035", code)
	}

	// The bot cannot edit messages it does not know or did not write.
	other := &discordgo.Message{ID: "555", ChannelID: "20", Content: "hi", Author: &discordgo.User{ID: "30"}}
	if err := srv.DispatchInteraction(&discordgo.Interaction{Type: discordgo.InteractionMessageComponent, ChannelID: "20", Message: other,
		Data: discordgo.MessageComponentInteractionData{CustomID: "x", ComponentType: discordgo.ButtonComponent}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.ChannelMessageEdit("20", "555", "mine now"); err == nil {
		t.Error("edited another user's message")
	} else if _, code := restCode(t, err); code != 50005 {
		t.Errorf("edit of another user's message: code %d, want 50005", code)
	}
	if _, err := sess.ChannelMessageEdit("20", "556", "x"); err == nil {
		t.Error("edited an unknown message")
	} else if _, code := restCode(t, err); code != 10008 {
		t.Errorf("edit of an unknown message: code %d, want 10008", code)
	}
}

func TestTransportAndErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	client := &http.Client{Transport: srv.Transport()}
	get := func(method, url, auth string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s %s: body %q is not JSON: %v", method, url, body, err)
		}
		return resp.StatusCode, v
	}

	status, v := get("GET", "https://discord.com/api/v9/gateway", "")
	if url, _ := v["url"].(string); status != 200 || !strings.HasPrefix(url, "ws://127.0.0.1:") {
		t.Errorf("GET /gateway = %d %v", status, v)
	}
	auth := "Bot " + srv.Token()
	if status, v := get("GET", "https://discord.com/api/v9/gateway/bot", ""); status != 401 || v["message"] != "401: Unauthorized" || v["code"] != 0.0 {
		t.Errorf("GET /gateway/bot without a token = %d %v", status, v)
	}
	if status, v := get("GET", "https://discord.com/api/v10/gateway/bot", auth); status != 200 || v["shards"] != 1.0 {
		t.Errorf("GET /gateway/bot = %d %v", status, v)
	}
	if status, v := get("GET", "https://discord.com/api/v9/no/such/route", auth); status != 404 || v["message"] != "404: Not Found" {
		t.Errorf("unknown route = %d %v", status, v)
	}
	if status, v := get("DELETE", "https://discord.com/api/v9/users/@me", auth); status != 405 || v["code"] != 0.0 {
		t.Errorf("wrong method = %d %v", status, v)
	}
	if status, v := get("GET", "https://discord.com/api/v9/oauth2/applications/@me", auth); status != 200 || v["id"] != srv.ApplicationID() {
		t.Errorf("GET /oauth2/applications/@me = %d %v", status, v)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 || reqs[3].Path != "/no/such/route" || reqs[3].Status != 404 || reqs[0].Host != "discord.com" {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestResume(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	resumed := make(chan *discordgo.Resumed, 1)
	sess := openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(_ *discordgo.Session, r *discordgo.Resumed) { resumed <- r })
	})
	// discordgo keeps the session id and sequence across Close, so the
	// next Open sends RESUME instead of IDENTIFY.
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitConnections(waitCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	if err := sess.Open(); err != nil {
		t.Fatal(err)
	}
	recv(t, resumed, "RESUMED")
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if err := srv.DispatchInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Data: discordgo.ApplicationCommandInteractionData{Name: "x"}}); err != nil {
		t.Errorf("DispatchInteraction after RESUME: %v", err)
	}
}

func TestServerClosedFirst(t *testing.T) {
	t.Parallel()
	srv := discordtest.New()
	sess, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	sess.LogLevel = -1 // discordgo logs the lost connection otherwise
	disconnected := make(chan struct{}, 2)
	sess.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) { disconnected <- struct{}{} })
	if err := sess.Open(); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	recv(t, disconnected, "Disconnect")
	if _, err := sess.User("@me"); err == nil {
		t.Error("REST call after Server.Close succeeded")
	}
	if err := sess.Close(); err != nil {
		t.Error(err)
	}
}

// TestCloseIsClean runs alone (not in parallel) so that it can check that
// Session.Close then Server.Close leave no goroutine behind.
func TestCloseIsClean(t *testing.T) {
	before := runtime.NumGoroutine()

	srv := discordtest.New()
	sess, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	disconnected := make(chan struct{}, 1)
	sess.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		select {
		case disconnected <- struct{}{}:
		default:
		}
	})
	if err := sess.Open(); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.User("@me"); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	recv(t, disconnected, "Disconnect")
	if err := srv.WaitConnections(waitCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	if err := srv.DispatchInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand}); !errors.Is(err, discordtest.ErrNotConnected) {
		t.Errorf("DispatchInteraction after Session.Close: %v", err)
	}
	srv.Close()
	srv.Close() // idempotent
	if _, err := srv.WaitResponse(waitCtx(t), "1"); !errors.Is(err, discordtest.ErrClosed) {
		t.Errorf("WaitResponse after Close: %v", err)
	}

	// Goroutines end asynchronously (handler goroutines, transport loops),
	// so poll the count until a deadline.
	deadline := time.Now().Add(waitTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		<-tick.C
	}
}
