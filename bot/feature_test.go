package bot

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/bot/internal/wire"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// demo is the feature TestAddingAFeature adds, as a feature file declares
// one: a small type holding only what it needs (here the store's Get), its
// route rows, and its handlers. Its shapes are the ones the features to
// come need: a subcommand in a group of /connectn ("demo hint"), a
// button whose custom_id names no match (cn:hint:<puzzle>:<ply>, as a
// puzzle's Hint would), and a button of a match (cn:refresh:<match>).
type demo struct {
	store getter
	hints chan [2]int64 // the puzzle and ply each Hint click named
}

func (d *demo) routes() []route {
	puzzle := customid.Part{Name: "puzzle", Min: 1, Max: 1 << 40}
	return []route{
		command("demo hint", d.hint),
		button("hint", []customid.Part{puzzle, partPly}, d.hintButton),
		button("refresh", matchParts, d.refresh),
	}
}

// hint answers /connectn demo hint with the Hint button of puzzle 7 at ply 3.
func (d *demo) hint(_ context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	resp := render.Ephemeral("hint?")
	resp.Data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Hint", Style: discordgo.SecondaryButton, CustomID: customid.New("hint", 7, 3).String()},
	}}}
	return resp, nil
}

// hintButton records the puzzle and ply its custom_id names.
func (d *demo) hintButton(_ context.Context, c *call) (*discordgo.InteractionResponse, error) {
	d.hints <- [2]int64{c.id.Part(0), c.id.Part(1)}
	return updateMessage(&message{Content: "hinted", AllowedMentions: render.NoMentions(), Components: []discordgo.MessageComponent{}}), nil
}

// refresh redraws the message it is on from the store, as its session now
// stands.
func (d *demo) refresh(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, err := current(ctx, d.store, c)
	if err != nil {
		return nil, err
	}
	return updateMessage(render.Session(c.public(s), s)), nil
}

// TestAddingAFeature shows what adding a feature takes: a small type with
// its route rows and handlers (demo, above) and its rows mounted in the
// handler's table (in NewHandler's table; mount here); nothing else. Its
// subcommand and buttons are then driven through the fake Discord like any
// other: the group subcommand is routed and measured under its own kind,
// custom_ids of any shape are parsed back against the rows, and a click
// for another session is refused by the same rules.
func TestAddingAFeature(t *testing.T) {
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
	d := &demo{store: store, hints: make(chan [2]int64, 1)}
	h := NewHandler(store, slog.New(slog.DiscardHandler), WithMessenger(NewDiscordMessenger(rest)),
		mount(d.routes()...)) // the feature mounted
	defer h.Close(context.Background())

	// The rest is the harness: the fake Discord, and the bot behind its
	// Interactions Endpoint.
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	srv := httptest.NewServer(&transport.HTTPServer{Handler: h, PublicKey: key.Public().(ed25519.PublicKey)})
	defer srv.Close()
	n := 0
	envelope := func(from discordtest.User) discordtest.Envelope {
		n++
		return discordtest.Envelope{ID: "150000000000000000" + string(rune('0'+n)), Token: "token-" + string(rune('a'+n)),
			AppID: app, GuildID: guild, ChannelID: channel, From: from}
	}
	deliver := func(body []byte) *discordgo.InteractionResponse {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.DeliverJSON(ctx, srv.URL+"/interactions", key, body)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	kind := func(body []byte) string {
		t.Helper()
		i, err := wire.DecodeInteraction(body)
		if err != nil {
			t.Fatal(err)
		}
		return h.InteractionKind(i)
	}

	// The subcommand in a group of /connectn, and its button of another
	// shape than a match's.
	slash := discordtest.SlashGroup(envelope(alice), "connectn", "demo", "hint")
	if k := kind(slash); k != "command/demo/hint" {
		t.Errorf("/connectn demo hint is measured as %q, want command/demo/hint", k)
	}
	resp := deliver(slash)
	hintID := discordtest.Buttons(resp.Data.Components)[0].CustomID
	if hintID != "cn:hint:7:3" {
		t.Fatalf("the Hint button's custom_id is %q, want cn:hint:7:3", hintID)
	}
	msg := &discordgo.Message{ID: "1700000000000000001", ChannelID: channel, Components: resp.Data.Components}
	click := discordtest.Click(envelope(alice), msg, hintID)
	if k := kind(click); k != "button/hint" {
		t.Errorf("the Hint click is measured as %q, want button/hint", k)
	}
	if resp := deliver(click); resp.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("Hint answered type %d: %+v", resp.Type, resp.Data)
	}
	if got := <-d.hints; got != [2]int64{7, 3} {
		t.Errorf("the Hint handler read puzzle and ply %v, want [7 3]", got)
	}
	for _, bad := range []string{"cn:hint:0:3", "cn:hint:7", "cn:hint:7:3:1"} {
		if resp := deliver(discordtest.Click(envelope(alice), msg, bad)); resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
			t.Errorf("the crafted custom_id %q was not refused privately: %+v", bad, resp.Data)
		}
	}
	select {
	case got := <-d.hints:
		t.Errorf("a crafted Hint reached the handler with %v", got)
	default:
	}

	// The button of a match, next to the features' own.
	deliver(discordtest.Slash(envelope(alice), "connectn", "challenge", discordtest.UserArg("opponent", bob)))
	s, err := store.Get(context.Background(), channel)
	if err != nil {
		t.Fatal(err)
	}
	board := fake.ChannelMessages(channel)[0]
	customID := customid.New("refresh", s.ID).String()
	if customID != "cn:refresh:"+strconv.FormatInt(s.ID, 10) {
		t.Fatalf("custom_id %q", customID)
	}
	resp = deliver(discordtest.Click(envelope(bob), board, customID))
	if resp.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(resp.Data.Content, "challenges you to a match") {
		t.Fatalf("refresh answered type %d: %+v", resp.Type, resp.Data)
	}
	stale := customid.New("refresh", s.ID+1).String()
	resp = deliver(discordtest.Click(envelope(bob), board, stale))
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(resp.Data.Content, "moved on") {
		t.Errorf("a refresh of another session answered %+v; want the private stale refusal", resp.Data)
	}
	if after, _ := store.Get(context.Background(), channel); after.Phase != sessions.PhaseChallenge || after.ID != s.ID {
		t.Errorf("the session changed: %+v", after)
	}
}
