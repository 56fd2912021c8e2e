package bot_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/sessions"
)

func TestChallengeRefused(t *testing.T) {
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"yourself", slashChallenge(alice, alice, nil), "can't challenge yourself"},
		{"a bot", slashChallenge(alice, robot, nil), "Bots can't accept"},
		{"connect longer than rows and columns", slashChallenge(alice, bob, map[string]int{"rows": 5, "columns": 6, "connect": 7}), "Nobody could ever connect 7"},
		{"rows below Discord's minimum", slashChallenge(alice, bob, map[string]int{"rows": 3}), "`rows` must be a whole number from 4 to 12"},
		{"columns above Discord's maximum", slashChallenge(alice, bob, map[string]int{"columns": 13}), "`columns` must be a whole number from 4 to 12"},
		{"connect below minimum", slashChallenge(alice, bob, map[string]int{"connect": 2}), "`connect` must be a whole number from 3 to 12"},
		{"wins zero", slashChallenge(alice, bob, map[string]int{"wins": 0}), "`wins` must be a whole number from 1 to 9"},
		{"wins ten", slashChallenge(alice, bob, map[string]int{"wins": 10}), "`wins` must be a whole number from 1 to 9"},
		{"opponent not resolved", func() []byte {
			var m map[string]any
			json.Unmarshal(slashChallenge(alice, bob, nil), &m)
			delete(m["data"].(map[string]any), "resolved")
			b, _ := json.Marshal(m)
			return b
		}(), "couldn't understand"},
		{"in a DM", func() []byte {
			var m map[string]any
			json.Unmarshal(slashChallenge(alice, bob, nil), &m)
			delete(m, "guild_id")
			delete(m, "member")
			m["user"] = alice.json()
			b, _ := json.Marshal(m)
			return b
		}(), "played in server channels"},
		{"another command", func() []byte {
			var m map[string]any
			json.Unmarshal(slashChallenge(alice, bob, nil), &m)
			m["data"].(map[string]any)["name"] = "chess"
			b, _ := json.Marshal(m)
			return b
		}(), "don't know that command"},
		{"a modal submit", func() []byte {
			i := base(5, alice)
			i["data"] = map[string]any{"custom_id": "cn:accept:1", "components": []any{}}
			b, _ := json.Marshal(i)
			return b
		}(), "couldn't understand"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, _ := mustOpenStore(t)
			ch := newChannel(t, direct(newHandler(store)))
			mustPrivate(t, ch.command(tt.body), tt.want)
			if _, err := store.Get(context.Background(), channelID); err == nil {
				t.Fatalf("a refused challenge left a session behind")
			}
		})
	}
}

func TestAutocompleteGetsNoChoices(t *testing.T) {
	store, _ := mustOpenStore(t)
	var m map[string]any
	json.Unmarshal(slashChallenge(alice, bob, nil), &m)
	m["type"] = 4
	body, _ := json.Marshal(m)
	resp := direct(newHandler(store))(t, body)
	if resp.Type != discordgo.InteractionApplicationCommandAutocompleteResult {
		t.Fatalf("got response type %d, want 8", resp.Type)
	}
	if _, err := store.Get(context.Background(), channelID); err == nil {
		t.Fatal("an autocomplete request created a session")
	}
}

func TestChallengeDefaultsAndOptions(t *testing.T) {
	store, _ := mustOpenStore(t)
	ch := newChannel(t, direct(newHandler(store)))
	ch.command(slashChallenge(alice, bob, map[string]int{"rows": 4, "columns": 12, "connect": 12, "wins": 9}))
	s, err := store.Get(context.Background(), channelID)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Config
	if got.Rows != 4 || got.Columns != 12 || got.Connect != 12 || got.Wins != 9 {
		t.Fatalf("got config %+v, want 4x12 connect 12 wins 9", got)
	}
	if s.Phase != sessions.PhaseChallenge || s.Players[0].ID != aliceID || s.Players[1].ID != bobID || s.Players[1].Name != "Bob" {
		t.Fatalf("got session %+v", s)
	}
	ch.click(bob, "Accept")
	if n := len(buttons(ch.msg.Components)); n != 13 {
		t.Fatalf("12 columns: got %d buttons, want 13", n)
	}
	if n := len(ch.msg.Components); n != 3 {
		t.Fatalf("12 columns: got %d action rows, want 3", n)
	}
}

func TestSecondChallengeInChannel(t *testing.T) {
	store, _ := mustOpenStore(t)
	ch := newChannel(t, direct(newHandler(store)))
	ch.command(slashChallenge(alice, bob, nil))
	mustPrivate(t, ch.command(slashChallenge(carol, alice, nil)), "already has a challenge or a match")
	ch.click(bob, "Accept")
	mustPrivate(t, ch.command(slashChallenge(carol, bob, nil)), "already has a challenge or a match")
	mustUpdate(t, ch.click(alice, "Forfeit"))
	resp := ch.command(slashChallenge(carol, bob, nil))
	if resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("after the match ended a new challenge was refused: %q", resp.Data.Content)
	}
}

func TestDecline(t *testing.T) {
	for _, tt := range []struct {
		name string
		who  user
		want string
	}{
		{"by the opponent", bob, "declined the challenge"},
		{"by the challenger", alice, "withdrew the challenge"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store, _ := mustOpenStore(t)
			ch := newChannel(t, direct(newHandler(store)))
			ch.command(slashChallenge(alice, bob, nil))
			accept := findButton(t, ch.msg.Components, "Accept").CustomID
			mustPrivate(t, ch.click(carol, "Decline"), "between two other players")
			resp := ch.click(tt.who, "Decline")
			mustUpdate(t, resp)
			if !strings.Contains(text(resp), tt.want) || len(buttons(ch.msg.Components)) != 0 {
				t.Fatalf("got %q with %d buttons, want %q and none", text(resp), len(buttons(ch.msg.Components)), tt.want)
			}
			mustPrivate(t, ch.clickID(bob, accept), "moved on")
			s, _ := store.Get(context.Background(), channelID)
			if s.Phase != sessions.PhaseCancelled {
				t.Fatalf("got phase %q, want cancelled", s.Phase)
			}
		})
	}
}

func TestForfeit(t *testing.T) {
	store, _ := mustOpenStore(t)
	ch := newChannel(t, direct(newHandler(store)))
	ch.command(slashChallenge(alice, bob, map[string]int{"wins": 3}))
	ch.click(bob, "Accept")
	ch.click(alice, "4")
	mustPrivate(t, ch.click(carol, "Forfeit"), "not playing in this match")
	resp := ch.click(bob, "Forfeit")
	mustUpdate(t, resp)
	for _, want := range []string{"Bob** forfeited the match", "Alice** wins the match 1–0"} {
		if !strings.Contains(text(resp), want) {
			t.Errorf("after forfeit %q lacks %q", text(resp), want)
		}
	}
	if len(buttons(ch.msg.Components)) != 0 {
		t.Errorf("buttons left after the forfeit")
	}
	s, _ := store.Get(context.Background(), channelID)
	if s.Phase != sessions.PhaseFinished || !s.Match.Forfeited() {
		t.Fatalf("got phase %q forfeited %v, want finished by forfeit", s.Phase, s.Match.Forfeited())
	}
}

func TestCraftedCustomIDs(t *testing.T) {
	store, _ := mustOpenStore(t)
	ch := newChannel(t, direct(newHandler(store)))
	ch.command(slashChallenge(alice, bob, nil))
	ch.click(bob, "Accept")
	ch.click(alice, "4")
	before, _ := store.Get(context.Background(), channelID)
	tests := []struct{ name, customID, want string }{
		{"empty", "", "isn't one of mine"},
		{"foreign", "poll:vote:3", "isn't one of mine"},
		{"unknown action", "cn:undo:1", "isn't one of mine"},
		{"column zero", "cn:drop:1:1:0", "isn't one of mine"},
		{"negative column", "cn:drop:1:1:-1", "isn't one of mine"},
		{"leading zero", "cn:drop:1:1:04", "isn't one of mine"},
		{"column beyond the board", "cn:drop:1:1:8", "isn't on this board"},
		{"huge column", "cn:drop:1:1:99999999999999999999", "isn't one of mine"},
		{"extra part", "cn:drop:1:1:3:4", "isn't one of mine"},
		{"missing part", "cn:drop:1:1", "isn't one of mine"},
		{"another match", "cn:drop:2:1:3", "moved on"},
		{"an old ply", "cn:drop:1:0:3", "moved on"},
		{"a future ply", "cn:drop:1:7:3", "moved on"},
		{"accept after the start", "cn:accept:1", "moved on"},
		{"too long", "cn:drop:1:1:" + strings.Repeat("1", 120), "isn't one of mine"},
		{"unicode digits", "cn:drop:1:1:٣", "isn't one of mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustPrivate(t, ch.clickID(bob, tt.customID), tt.want)
		})
	}
	after, _ := store.Get(context.Background(), channelID)
	if got, want := after.Match.Plies(), before.Match.Plies(); got != want {
		t.Fatalf("crafted clicks changed the match: %d plies, want %d", got, want)
	}
}

// TestConcurrentClicks sends the same click many times at once: exactly one
// applies, the rest are answered privately as stale.
func TestConcurrentClicks(t *testing.T) {
	store, _ := mustOpenStore(t)
	ch := newChannel(t, direct(newHandler(store)))
	ch.command(slashChallenge(alice, bob, nil))
	ch.click(bob, "Accept")
	customID := findButton(t, ch.msg.Components, "4").CustomID
	body := componentClick(alice, ch.msg, customID)
	send := direct(newHandler(store))

	const clicks = 32
	var wg sync.WaitGroup
	resps := make([]*discordgo.InteractionResponse, clicks)
	for i := range clicks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = send(t, body)
		}()
	}
	wg.Wait()
	updates := 0
	for _, r := range resps {
		if r.Type == discordgo.InteractionResponseUpdateMessage {
			updates++
		} else {
			mustPrivate(t, r, "moved on")
		}
	}
	if updates != 1 {
		t.Fatalf("got %d updates, want exactly 1", updates)
	}
	s, _ := store.Get(context.Background(), channelID)
	if got := s.Match.Plies(); got != 1 {
		t.Fatalf("got %d plies, want 1", got)
	}
}

// clock is a settable test clock, safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestIdleSessionsGiveWay(t *testing.T) {
	tests := []struct {
		name   string
		accept bool
		short  time.Duration // still blocks the channel
		long   time.Duration // lets a new challenge replace it
	}{
		{"unanswered challenge", false, 14 * time.Minute, 16 * time.Minute},
		{"abandoned match", true, 23 * time.Hour, 25 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{now: fixedClock()}
			store, err := sessions.Open(context.Background(), filepath.Join(t.TempDir(), "db"), sessions.WithClock(c.Now))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			h := bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(c.Now))
			old := newChannel(t, direct(h))
			old.command(slashChallenge(alice, bob, nil))
			if tt.accept {
				old.click(bob, "Accept")
				old.click(alice, "4")
			}
			c.Advance(tt.short)
			fresh := newChannel(t, direct(h))
			mustPrivate(t, fresh.command(slashChallenge(carol, alice, nil)), "already has a challenge or a match")
			c.Advance(tt.long - tt.short)
			resp := fresh.command(slashChallenge(carol, alice, nil))
			if resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
				t.Fatalf("after %v idle the new challenge was refused: %q", tt.long, resp.Data.Content)
			}
			label := "Accept"
			if tt.accept {
				label = "3"
			}
			mustPrivate(t, old.click(bob, label), "moved on")
		})
	}
}
