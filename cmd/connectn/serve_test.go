package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestServeWorksWithoutToken runs `connectn serve` as a server owner would
// without a bot token, with CONNECTN_DISCORD_API pointing at a fake Discord
// that also calls the endpoint with signed interactions. When a round ends,
// the next round's board is the response and the round's message becomes
// its record through the interaction's webhook (no token sent); when a
// turn runs out, the
// scheduler edits the board; /metrics counts the deadline and the active
// matches.
func TestServeWorksWithoutToken(t *testing.T) {
	fake := discordtest.New(discordtest.WithToken(fakeToken), discordtest.WithApplicationID(fakeAppID))
	defer fake.Close()
	listen, addrs := listenSpy()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	d := deps{listen: listen, newSession: func(token string) (*discordgo.Session, error) {
		if token != "" {
			t.Errorf("serve made a session with a token it was not given")
		}
		return discordgo.New("")
	}}
	go func() {
		done <- runWith(t, ctx, []string{"serve", "-addr", "127.0.0.1:0", "-db", t.TempDir() + "/c.db", "-turn-timeout", "2s"},
			map[string]string{"DISCORD_PUBLIC_KEY": testPublic, "CONNECTN_DISCORD_API": fake.URL() + "/api/v10"}, d)
	}()
	var addr string
	select {
	case addr = <-addrs:
	case r := <-done:
		t.Fatalf("serve ended early: exit %d\n%s", r.code, r.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not listen within 10s")
	}
	endpoint := "http://" + addr + "/interactions"
	deliver := func(body []byte) *discordgo.InteractionResponse {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.DeliverJSON(ctx, endpoint, testPrivate, body)
		if err != nil {
			t.Fatalf("deliver: %v", err)
		}
		return resp
	}
	newest := func() *discordgo.Message {
		msgs := fake.ChannelMessages(channelID)
		if len(msgs) == 0 {
			t.Fatal("no message in the channel")
		}
		return msgs[len(msgs)-1]
	}
	click := func(who discordtest.User, label string) *discordgo.InteractionResponse {
		t.Helper()
		m := newest()
		b := discordtest.FindButton(m.Components, label)
		if b == nil {
			t.Fatalf("no button %q on %q", label, m.Content)
		}
		return deliver(discordtest.Click(from(who, channelID), m, b.CustomID))
	}

	deliver(discordtest.Slash(from(alice, channelID), "connectn", "challenge", discordtest.UserArg("opponent", bob),
		discordtest.IntArg("rows", 4), discordtest.IntArg("columns", 4), discordtest.IntArg("connect", 3)))
	click(bob, "Accept")
	for k, c := range []string{"1", "2", "1", "2", "1"} {
		click([]discordtest.User{alice, bob}[k%2], c)
	}
	wait, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer waitCancel()
	// The click that ends round 1 is answered with round 2's board; the
	// round's message becomes its record by an edit through the webhook.
	if _, err := fake.WaitMessage(wait, func(m discordtest.Message) bool {
		return m.Kind == discordtest.WebhookMessageEdit && len(m.Message.Embeds) > 0 && strings.Contains(m.Message.Embeds[0].Title, "Round 1 result")
	}); err != nil {
		t.Fatalf("round 1's message never became its record: %v", err)
	}
	msgs := fake.ChannelMessages(channelID)
	if len(msgs) != 2 || !strings.Contains(msgs[0].Embeds[0].Title, "Round 1 result") || !strings.Contains(msgs[1].Embeds[0].Title, "Round 2") {
		t.Fatalf("channel after round 1: %d messages", len(msgs))
	}
	for _, r := range fake.Requests() {
		if strings.HasPrefix(r.Path, "/webhooks/") && r.Header.Get("Authorization") != "" {
			t.Errorf("%s %s sent an Authorization header", r.Method, r.Path)
		}
	}
	_, metrics := get(t, "http://"+addr+"/metrics")
	if n, ok := metricValue(metrics, "connectn_active_matches"); !ok || n != 1 {
		t.Errorf("connectn_active_matches = %v (present %v), want 1", n, ok)
	}

	// Bob opens round 2 and lets his 2 s turn run out; the scheduler,
	// running on the real clock, forfeits the match for him and edits the
	// board through the webhook.
	if _, err := fake.WaitMessage(wait, func(m discordtest.Message) bool {
		return m.Kind == discordtest.WebhookMessageEdit && m.Message.ID == msgs[1].ID &&
			len(m.Message.Embeds) > 0 && strings.Contains(m.Message.Embeds[0].Description, "did not play in time")
	}); err != nil {
		t.Fatalf("the turn never ran out on the board: %v", err)
	}
	_, metrics = get(t, "http://"+addr+"/metrics")
	if n, ok := metricValue(metrics, `connectn_deadlines_fired_total{kind="turn"}`); !ok || n != 1 {
		t.Errorf("deadlines fired (turn) = %v (present %v), want 1", n, ok)
	}
	if n, _ := metricValue(metrics, "connectn_active_matches"); n != 0 {
		t.Errorf("connectn_active_matches = %v after the match ended, want 0", n)
	}
	cancel()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("serve: exit %d\n%s", r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "aW50ZXJhY3Rpb24") {
			t.Errorf("an interaction token was logged:\n%s", r.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop within 15s")
	}
}

// TestServeProfiles: with CONNECTN_PPROF_ADDR set, serve serves Go's
// profiles there, and only there: the interactions endpoint's address has
// none.
func TestServeProfiles(t *testing.T) {
	listen, addrs := listenSpy()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runWith(t, ctx, []string{"serve", "-addr", "127.0.0.1:0", "-pprof-addr", "127.0.0.1:0", "-db", t.TempDir() + "/c.db"},
			map[string]string{"DISCORD_PUBLIC_KEY": testPublic}, deps{listen: listen})
	}()
	var got []string
	for len(got) < 2 {
		select {
		case a := <-addrs:
			got = append(got, a)
		case r := <-done:
			t.Fatalf("serve ended early: exit %d\n%s", r.code, r.stderr)
		case <-time.After(10 * time.Second):
			t.Fatalf("serve listened on %d addresses within 10s, want 2", len(got))
		}
	}
	profiles, endpoint := got[0], got[1]
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://" + profiles + "/debug/pprof/goroutine?debug=1"); code != 200 || !strings.Contains(body, "goroutine profile:") {
		t.Errorf("profiles' address: %d %.200q, want 200 and a goroutine profile", code, body)
	}
	if code, _ := get("http://" + endpoint + "/debug/pprof/goroutine?debug=1"); code != 404 {
		t.Errorf("the endpoint's address answered the profiles with %d, want 404", code)
	}
	cancel()
	if r := <-done; r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}
