package bot_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
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
	srv     *bot.HTTPServer
	channel int
	rng     *rand.Rand
	// the live board of the current match
	board   *benchMessage
	boardID string
}

type benchMessage struct {
	Content         string          `json:"content"`
	Flags           int             `json:"flags"`
	Embeds          json.RawMessage `json:"embeds"`
	Components      json.RawMessage `json:"components"`
	AllowedMentions *struct {
		Users []string `json:"users"`
	} `json:"allowed_mentions"`
}

type benchResponse struct {
	Type int           `json:"type"`
	Data *benchMessage `json:"data"`
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
		srv: &bot.HTTPServer{Handler: h, PublicKey: testPublic},
		rng: rand.New(rand.NewPCG(1, 2)),
	}
}

// serve signs body now and returns the decoded 200 response.
func (s *benchServer) serve(b *testing.B, body []byte) *benchResponse {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	sig := ed25519.Sign(testPrivate, append([]byte(ts), body...))
	req := httptest.NewRequest(http.MethodPost, "/interactions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
	req.Header.Set("X-Signature-Timestamp", ts)
	rec := httptest.NewRecorder()
	s.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body.Bytes())
	}
	var resp benchResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		b.Fatal(err)
	}
	return &resp
}

// click returns a click by from on the live board's button customID.
func (s *benchServer) click(from user, customID string) []byte {
	ch := "13" + fmt.Sprintf("%017d", s.channel)
	i := base(3, from)
	i["channel_id"] = ch
	i["channel"].(map[string]any)["id"] = ch
	i["message"] = map[string]any{
		"id": s.boardID, "channel_id": ch, "type": 20, "content": s.board.Content,
		"embeds": s.board.Embeds, "components": s.board.Components,
		"author":    user{ID: botUserID, Username: "ConnectN", Bot: true}.json(),
		"timestamp": "2026-11-22T18:00:00.000000+00:00", "flags": 0, "attachments": []any{}, "mentions": []any{},
	}
	i["data"] = map[string]any{"custom_id": customID, "component_type": 2}
	return mustJSON(i)
}

// buttonsOf returns the custom_ids (enabled only, unless all) and labels
// of a message's buttons.
func buttonsOf(b *testing.B, m *benchMessage) (ids, labels []string) {
	var rows []struct {
		Components []struct {
			Label    string `json:"label"`
			CustomID string `json:"custom_id"`
			Disabled bool   `json:"disabled"`
		} `json:"components"`
	}
	if len(m.Components) > 0 {
		if err := json.Unmarshal(m.Components, &rows); err != nil {
			b.Fatal(err)
		}
	}
	for _, r := range rows {
		for _, c := range r.Components {
			if !c.Disabled {
				ids, labels = append(ids, c.CustomID), append(labels, c.Label)
			}
		}
	}
	return ids, labels
}

// newMatch starts a 6x7 match in a new channel.
func (s *benchServer) newMatch(b *testing.B) {
	s.channel++
	ch := "13" + fmt.Sprintf("%017d", s.channel)
	resp := s.serve(b, inChannel(slashChallenge(alice, bob, nil), ch))
	ids, _ := buttonsOf(b, resp.Data)
	s.board, s.boardID = resp.Data, "1700000000000000001"
	resp = s.serve(b, s.click(bob, ids[0]))
	if resp.Type != 7 {
		b.Fatalf("accept: response type %d: %s", resp.Type, resp.Data.Content)
	}
	s.board = resp.Data
}

// move clicks a random enabled column of the live board as the player it
// names, and starts a new match when this one has no board left.
func (s *benchServer) move(b *testing.B) {
	ids, _ := buttonsOf(b, s.board)
	var cols []string
	for _, id := range ids {
		if strings.HasPrefix(id, "cn:drop:") {
			cols = append(cols, id)
		}
	}
	mover := alice
	if s.board.AllowedMentions != nil && len(s.board.AllowedMentions.Users) == 1 && s.board.AllowedMentions.Users[0] == bob.ID {
		mover = bob
	}
	resp := s.serve(b, s.click(mover, cols[s.rng.IntN(len(cols))]))
	if resp.Type != int(discordgo.InteractionResponseUpdateMessage) {
		b.Fatalf("move: response type %d: %s", resp.Type, resp.Data.Content)
	}
	s.board = resp.Data
	if ids, _ := buttonsOf(b, resp.Data); len(ids) == 0 || !strings.HasPrefix(ids[0], "cn:drop:") {
		b.StopTimer()
		s.newMatch(b)
		b.StartTimer()
	}
}

func BenchmarkServeHTTP(b *testing.B) {
	b.Run("ping", func(b *testing.B) {
		s := newBenchServer(b)
		ping := []byte(`{"id":"1500000000000000001","application_id":"` + appID + `","type":1,"token":"dG9rZW4","version":1,"user":{"id":"643945264868098049","username":"discord"}}`)
		b.ReportAllocs()
		for b.Loop() {
			if r := s.serve(b, ping); r.Type != 1 {
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
