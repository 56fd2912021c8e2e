package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/sessions/sqlite"
)

// These benchmarks measure the server's side of one interaction through
// the HTTP transport, from the signed request to the encoded response,
// against a SQLite file store: a signed PING (the baseline: signature
// check, decoding, encoding) and a move (a click on a column button of a
// 6x7 board, random legal columns, a new match in a new channel when one
// ends, as connectn-loadgen plays). The figure to compare is ns/op of move
// against ping; run them with -cpuprofile to see where a move's time goes:
//
//	go test -run '^$' -bench 'ServeHTTP' -benchtime 5000x -cpuprofile cpu.out ./bot
//	go tool pprof -top -cum bot.test cpu.out

// benchServer is an HTTPServer on a SQLite file store, driven directly
// through ServeHTTP.
type benchServer struct {
	srv     *transport.HTTPServer
	channel int
	// messages counts the boards posted as new messages, for their IDs.
	messages int
	rng      *rand.Rand
	// board is the live board of the current match.
	board *discordgo.Message
}

func newBenchServer(b *testing.B) *benchServer {
	b.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "connectn.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	h := bot.NewHandler(store, slog.New(slog.DiscardHandler))
	b.Cleanup(func() { h.Close(context.Background()) })
	return &benchServer{
		srv: &transport.HTTPServer{Handler: h, PublicKey: testPublic},
		rng: rand.New(rand.NewPCG(1, 2)),
	}
}

// serve signs body now and returns the decoded 200 response.
func (s *benchServer) serve(b *testing.B, body []byte) *discordgo.InteractionResponse {
	req, err := discordtest.SignedRequest(context.Background(), "/interactions", testPrivate, time.Now(), body)
	if err != nil {
		b.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body.Bytes())
	}
	resp, err := discordtest.DecodeResponse(rec.Body.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

// in returns the envelope of an interaction by u in the current channel.
func (s *benchServer) in(u user) discordtest.Envelope {
	e := from(u)
	e.ChannelID = "13" + fmt.Sprintf("%017d", s.channel)
	return e
}

// newMatch starts a 6x7 match in a new channel.
func (s *benchServer) newMatch(b *testing.B) {
	s.channel++
	resp := s.serve(b, discordtest.Slash(s.in(alice), "connectn", "challenge", discordtest.UserArg("opponent", bob)))
	accept := discordtest.FindButton(resp.Data.Components, "Accept")
	if accept == nil {
		b.Fatalf("challenge: no Accept button: %s", resp.Data.Content)
	}
	challenge := &discordgo.Message{ID: "1700000000000000001", Content: resp.Data.Content, Embeds: resp.Data.Embeds, Components: resp.Data.Components}
	resp = s.serve(b, discordtest.Click(s.in(bob), challenge, accept.CustomID))
	if resp.Type != discordgo.InteractionResponseUpdateMessage {
		b.Fatalf("accept: response type %d: %s", resp.Type, resp.Data.Content)
	}
	s.board = &discordgo.Message{ID: challenge.ID, Content: resp.Data.Content, Embeds: resp.Data.Embeds, Components: resp.Data.Components}
}

// move clicks a random enabled column of the live board as the player it
// pings, and starts a new match when this one has no board left.
func (s *benchServer) move(b *testing.B) {
	var cols []string
	for _, btn := range discordtest.Buttons(s.board.Components) {
		if strings.HasPrefix(btn.CustomID, "cn:drop:") && !btn.Disabled {
			cols = append(cols, btn.CustomID)
		}
	}
	mover := alice
	if strings.HasPrefix(s.board.Content, "<@"+bob.ID+">") {
		mover = bob
	}
	resp := s.serve(b, discordtest.Click(s.in(mover), s.board, cols[s.rng.IntN(len(cols))]))
	switch resp.Type {
	case discordgo.InteractionResponseUpdateMessage:
	case discordgo.InteractionResponseChannelMessageWithSource:
		// A round ended: the next round's board is a new message.
		s.messages++
		s.board = &discordgo.Message{ID: fmt.Sprintf("17%017d", s.messages)}
	default:
		b.Fatalf("move: response type %d: %s", resp.Type, resp.Data.Content)
	}
	s.board.Content, s.board.Embeds, s.board.Components = resp.Data.Content, resp.Data.Embeds, resp.Data.Components
	if btns := discordtest.Buttons(resp.Data.Components); len(btns) == 0 || !strings.HasPrefix(btns[0].CustomID, "cn:drop:") {
		b.StopTimer()
		s.newMatch(b)
		b.StartTimer()
	}
}

func BenchmarkServeHTTP(b *testing.B) {
	b.Run("ping", func(b *testing.B) {
		s := newBenchServer(b)
		ping := discordtest.Ping("1500000000000000001", "dG9rZW4", appID)
		b.ReportAllocs()
		for b.Loop() {
			if r := s.serve(b, ping); r.Type != discordgo.InteractionResponsePong {
				b.Fatalf("PING: response type %d", r.Type)
			}
		}
	})
	b.Run("move", func(b *testing.B) {
		s := newBenchServer(b)
		s.newMatch(b)
		b.ReportAllocs()
		for b.Loop() {
			s.move(b)
		}
	})
}
