package discordtest_test

import (
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/connectn/connectn/bot/discordtest"
)

func TestOpenReady(t *testing.T) {
	t.Parallel()
	srv := newServer(t, discordtest.WithToken("secret"), discordtest.WithApplicationID("777"))
	ready := make(chan *discordgo.Ready, 1)
	sess := openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ready <- r })
	})

	r := recv(t, ready, "READY")
	if r.User == nil || r.User.ID != "777" || r.User.Username != srv.BotUser().Username || !r.User.Bot {
		t.Errorf("READY user = %+v, want the bot, its ID the application's", r.User)
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

// TestGatewayInteractions plays a slash command and a click on its
// answer over the gateway: the bot answers through the callback route,
// edits @original and follows up through the webhook, then updates the
// message the click is on.
func TestGatewayInteractions(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	errc := make(chan error, 4)
	openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
			if ic.Type == discordgo.InteractionMessageComponent {
				if ic.Message == nil || len(ic.Message.Components) != 1 {
					errc <- errors.New("INTERACTION_CREATE lost the message or its components")
				}
				errc <- s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
					Data: &discordgo.InteractionResponseData{Content: "undone by " + ic.Member.User.Username}})
				return
			}
			col := ic.ApplicationCommandData().Options[0].IntValue()
			errc <- s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: ic.Member.User.Username + " column " + strconv.FormatInt(col, 10),
					Components: buttonRow("undo")},
			})
			edited := "edited"
			_, err := s.InteractionResponseEdit(ic.Interaction, &discordgo.WebhookEdit{Content: &edited})
			errc <- err
			_, err = s.FollowupMessageCreate(ic.Interaction, true, &discordgo.WebhookParams{Content: "follow-up"})
			errc <- err
		})
	})

	i := &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, GuildID: "10", ChannelID: "20",
		Member: &discordgo.Member{User: &discordgo.User{ID: "30", Username: "alice"}},
		Data: discordgo.ApplicationCommandInteractionData{ID: "40", Name: "play", Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: "column", Type: discordgo.ApplicationCommandOptionInteger, Value: 3}}},
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
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data.Content != "alice column 3" ||
		discordtest.FindButton(resp.Data.Components, "undo") == nil {
		t.Errorf("response = %d %q %+v", resp.Type, resp.Data.Content, resp.Data.Components)
	}
	for range 3 {
		if err := recv(t, errc, "handler result"); err != nil {
			t.Errorf("handler REST call: %v", err)
		}
	}
	msgs := srv.Messages()
	if len(msgs) != 3 || msgs[0].Kind != discordtest.InteractionResponseMessage || msgs[1].Kind != discordtest.WebhookMessageEdit ||
		msgs[2].Kind != discordtest.FollowupMessageCreate {
		t.Fatalf("messages = %+v", msgs)
	}
	board := msgs[1].Message
	if board.ID != msgs[0].Message.ID || board.Content != "edited" || msgs[1].InteractionID != i.ID || len(board.Components) != 1 ||
		msgs[2].Message.Content != "follow-up" || msgs[2].Message.ID == board.ID {
		t.Errorf("original %+v, edit %+v, follow-up %+v", msgs[0].Message, board, msgs[2].Message)
	}

	// A click on the board, dispatched as the builders make it.
	click := discordtest.Click(envelope(), board, "undo")
	if err := srv.DispatchInteractionJSON(click); err != nil {
		t.Fatal(err)
	}
	if resp, err := srv.WaitResponse(waitCtx(t), interaction(t, click).ID); err != nil || resp.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("response to the click = %+v, %v", resp, err)
	}
	if err := recv(t, errc, "InteractionRespond"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Message(board.ID); got.Content != "undone by alice" || len(got.Components) != 1 || got.EditedTimestamp == nil {
		t.Errorf("updated message = %+v", got)
	}
	if err := srv.DispatchInteractionJSON(click); err == nil {
		t.Error("dispatching the same interaction twice succeeded")
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

	_, err = sess.Application("@me")
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

func TestResume(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	resumed := make(chan *discordgo.Resumed, 1)
	sess := openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(_ *discordgo.Session, r *discordgo.Resumed) { resumed <- r })
	})
	// discordgo keeps the session id and sequence across Close, so the
	// next Open sends RESUME instead of IDENTIFY. A close with a code
	// other than 1000 or 1001 (1012, as discordgo closes on RECONNECT)
	// keeps the session resumable.
	if err := sess.CloseWithCode(websocket.CloseServiceRestart); err != nil {
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

	// A close with 1000 ends the session, as on Discord: the RESUME of the
	// next Open is answered INVALID_SESSION, and discordgo identifies.
	ready := make(chan *discordgo.Ready, 1)
	sess.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ready <- r })
	identifies, resumes := srv.Identifies(), srv.Resumes()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitConnections(waitCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	if err := sess.Open(); err != nil {
		t.Fatal(err)
	}
	recv(t, ready, "READY after a RESUME of a session closed with 1000")
	if got, want := [2]int{srv.Identifies() - identifies, srv.Resumes() - resumes}, [2]int{1, 1}; got != want {
		t.Errorf("[IDENTIFY, RESUME] after Close and Open = %v, want %v", got, want)
	}
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
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
	if _, err := sess.Application("@me"); err == nil {
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
	if _, err := sess.Application("@me"); err != nil {
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

// TestDispatchJSONRefused: DispatchInteractionJSON refuses a body it
// cannot read, without dispatching anything.
func TestDispatchJSONRefused(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	got := make(chan string, 4)
	openSession(t, srv, func(s *discordgo.Session) {
		s.AddHandler(func(_ *discordgo.Session, ic *discordgo.InteractionCreate) { got <- ic.ID })
	})
	if err := srv.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"not JSON":           `{"id": "1", `,
		"no token":           `{"id": "1", "type": 2}`,
		"no type":            `{"id": "1", "token": "t"}`,
		"message not object": `{"id": "1", "token": "t", "type": 3, "message": 5}`,
		"message malformed":  `{"id": "1", "token": "t", "type": 3, "message": {"id": "9", "components": 5}}`,
	} {
		if err := srv.DispatchInteractionJSON([]byte(body)); err == nil {
			t.Errorf("%s: dispatched %s", name, body)
		}
	}
	click := discordtest.Click(envelope(), &discordgo.Message{ID: "9", Content: "board", Components: buttonRow("undo")}, "undo")
	if err := srv.DispatchInteractionJSON(click); err != nil {
		t.Fatal(err)
	}
	if id := recv(t, got, "INTERACTION_CREATE"); id != interaction(t, click).ID {
		t.Errorf("the first interaction received is %s, want the click's", id)
	}
	if m := srv.Message("9"); m == nil || m.Content != "board" || discordtest.FindButton(m.Components, "undo") == nil {
		t.Errorf("the message the click is on: %+v", m)
	}
}
