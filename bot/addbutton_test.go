package bot

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/internal/wire"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// refresh is the handler of the button TestAddingAButton adds: it redraws
// the message it is on from the store, as its session now stands.
func refresh(h *Handler, ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, err := h.current(ctx, c)
	if err != nil {
		return nil, err
	}
	return updateMessage(renderSession(c.public(s), s)), nil
}

// TestAddingAButton shows what adding a button takes: one entry in the
// route table (its action, its custom_id parts, its handler) and the
// handler above; nothing else. The button, "refresh", is then driven
// through the fake Discord like any other: its custom_id, made by the
// table, is parsed back and routed, it is measured under its own kind, and
// a click for another session is refused by the same rules.
func TestAddingAButton(t *testing.T) {
	withRoutes(t, append(slices.Clip(routes), button("refresh", matchParts, refresh))) // the entry

	// The rest is the harness: the fake Discord, and the bot behind its
	// Interactions Endpoint.
	const app, guild, channel = "1100000000000000001", "1200000000000000001", "1300000000000000001"
	alice := discordtest.User{ID: "1400000000000000001", Username: "alice", GlobalName: "Alice"}
	bob := discordtest.User{ID: "1400000000000000002", Username: "bob", GlobalName: "Bob"}
	fake := discordtest.New(discordtest.WithApplicationID(app))
	defer fake.Close()
	rest, err := fake.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(context.Background(), sqlite.MemoryPath)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	h := NewHandler(store, slog.New(slog.DiscardHandler), WithMessenger(NewDiscordMessenger(rest)))
	defer h.Close(context.Background())
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	srv := httptest.NewServer(&HTTPServer{Handler: h, PublicKey: key.Public().(ed25519.PublicKey)})
	defer srv.Close()
	n := 0
	deliver := func(from discordtest.User, build func(discordtest.Envelope) []byte) *discordgo.InteractionResponse {
		t.Helper()
		n++
		e := discordtest.Envelope{ID: "150000000000000000" + string(rune('0'+n)), Token: "token-" + string(rune('a'+n)),
			AppID: app, GuildID: guild, ChannelID: channel, From: from}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.DeliverJSON(ctx, srv.URL+"/interactions", key, build(e))
		if err != nil {
			t.Fatal(err)
		}
		if err := h.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		return resp
	}

	deliver(alice, func(e discordtest.Envelope) []byte {
		return discordtest.Slash(e, "connectn", "challenge", discordtest.UserArg("opponent", bob))
	})
	s, err := store.Get(context.Background(), channel)
	if err != nil {
		t.Fatal(err)
	}
	msg := fake.ChannelMessages(channel)[0]
	customID := buttonID{Action: "refresh", Match: s.ID}.String()
	if customID != "cn:refresh:"+strconv.FormatInt(s.ID, 10) {
		t.Fatalf("the table made custom_id %q", customID)
	}
	resp := deliver(bob, func(e discordtest.Envelope) []byte { return discordtest.Click(e, msg, customID) })
	if resp.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(resp.Data.Content, "challenges you to a match") {
		t.Fatalf("refresh answered type %d: %+v", resp.Type, resp.Data)
	}
	click := discordtest.Click(discordtest.Envelope{ID: "1", Token: "t", AppID: app, GuildID: guild, ChannelID: channel, From: bob}, msg, customID)
	i, err := wire.DecodeInteraction(click)
	if err != nil {
		t.Fatal(err)
	}
	if kind := InteractionKind(i); kind != "button/refresh" {
		t.Errorf("the click is measured as %q, want button/refresh", kind)
	}
	stale := buttonID{Action: "refresh", Match: s.ID + 1}.String()
	resp = deliver(bob, func(e discordtest.Envelope) []byte { return discordtest.Click(e, msg, stale) })
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(resp.Data.Content, "moved on") {
		t.Errorf("a refresh of another session answered %+v; want the private stale refusal", resp.Data)
	}
	if after, _ := store.Get(context.Background(), channel); after.Phase != sessions.PhaseChallenge || after.ID != s.ID {
		t.Errorf("the session changed: %+v", after)
	}
}
