package bot_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
)

// playStory plays what a server sees over an evening, in w: a match of
// three rounds (each round's message kept as its record, each new round
// posted below), a rematch that ends when a turn runs out, a challenge that
// expires, and the stats and leaderboard that follow.
func playStory(t *testing.T, w *env, restart func()) {
	playCompleteMatch(t, w, restart)

	// Anyone may ask for a picture of the final board: it comes privately.
	finished := w.board()
	resp := w.click(carol, finished, "Picture")
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("Picture answered type %d, want a deferred private message", resp.Type)
	}
	var pic *discordgo.Message
	for _, m := range w.fake.Messages() {
		if m.Kind == discordtest.WebhookMessageEdit && len(m.Message.Attachments) == 1 {
			pic = m.Message
		}
	}
	if pic == nil || pic.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.HasSuffix(pic.Attachments[0].Filename, ".png") {
		t.Fatalf("no private message with the board picture: %+v", pic)
	}

	// Rematch: Bob asks, Alice accepts; Bob, who did not open round 1,
	// opens (as the challenger of the rematch, he plays red); then he lets
	// his turn run out.
	resp = w.click(bob, finished, "Rematch")
	mustContain(t, "rematched message", text(resp), "🟡 **Bob** asked for a rematch: the invitation is in a new message below.")
	invite := w.board()
	if invite.ID == finished.ID {
		t.Fatal("the rematch invitation was not posted")
	}
	mustContain(t, "rematch invitation", messageText(invite), "asks you for a rematch of Connect 4")
	mustUpdate(t, w.click(alice, invite, "Accept"))
	rematch := w.board()
	mustContain(t, "rematch board", messageText(rematch), "Connect 4 · Round 1", "🔴 **Bob** to play", "🔴 **Bob** 0 – 0 **Alice** 🟡")
	w.play(bob, alice, "4", "4")
	w.clock.Advance(bot.DefaultTurnTimeout)
	if n := w.runDue(); n != 1 {
		t.Fatalf("RunDue after the turn ran out settled %d, want 1", n)
	}
	timedOut := w.public()[len(w.public())-1]
	mustContain(t, "timed-out rematch", messageText(timedOut), "⌛ 🟡 **Alice** wins by timeout: 🔴 **Bob** did not play in time.",
		"Bob **0** – **2** Alice")

	// A challenge nobody answers.
	w.send(slashChallenge(carol, bob, nil))
	challenge := w.board()
	w.clock.Advance(bot.DefaultChallengeTimeout)
	if n := w.runDue(); n != 1 {
		t.Fatalf("RunDue after the challenge ran out settled %d, want 1", n)
	}
	var expired *discordgo.Message
	for _, m := range w.public() {
		if m.ID == challenge.ID {
			expired = m
		}
	}
	mustContain(t, "expired challenge", messageText(expired), "Connect 4 challenge expired", "🔴 **Carol** vs 🟡 **Bob**", "⌛ Nobody accepted it in time.")
	if expired.Content != "" || expired.Embeds[0].Color != 0x80848E {
		t.Errorf("the expired challenge keeps content %q, colour %#x; want none, grey", expired.Content, expired.Embeds[0].Color)
	}
	if len(expired.Components) != 0 {
		t.Errorf("the expired challenge keeps buttons %q", labels(expired.Components))
	}

	resp = w.send(slash(carol, "stats", "user", alice))
	mustContain(t, "Alice's stats", text(resp), "**Matches:** 2", "**Wins:** 2", "**Win rate:** 100%", "**Streak:** 2 wins in a row")
	resp = w.send(slash(bob, "leaderboard"))
	mustContain(t, "leaderboard", text(resp), "🥇 <@"+aliceID+"> — **2–0** · 100%", "🥈 <@"+bobID+"> — **0–2** · 0%")
	if strings.Contains(text(resp), carolID) {
		t.Errorf("Carol, who never finished a match, is on the leaderboard")
	}
}

func TestStoryOverTheGateway(t *testing.T) {
	w := newGatewayEnv(t, guildID)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := w.fake.WaitIdentify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Intents != 0 {
		t.Errorf("IDENTIFY asked for intents %d, want none", id.Intents)
	}
	cmds := w.fake.Commands(guildID)
	if len(cmds) != 2 || cmds[0].Name != "connectn" || cmds[1].Name != "connectn-admin" {
		t.Fatalf("guild commands: got %+v, want connectn and connectn-admin", cmds)
	}
	if global := w.fake.Commands(""); len(global) != 0 {
		t.Errorf("with a guild set, %d commands were registered globally", len(global))
	}
	playStory(t, w, nil)
}

func TestStoryOverHTTP(t *testing.T) {
	w := newEnv(t)
	playStory(t, w, w.restart)
	for _, r := range w.fake.Requests() {
		if r.Header.Get("Authorization") != "" {
			t.Fatalf("%s %s carried a token: the bot has none in this test", r.Method, r.Path)
		}
	}
}

// TestRateLimitedFollowUp: Discord answers a follow-up (a rematch
// invitation) with a 429; the bot waits retry_after and tries again, and
// the invitation arrives.
func TestRateLimitedFollowUp(t *testing.T) {
	w := newFaultEnv(t, 15*time.Second, 2*time.Second, 250*time.Millisecond)
	finished := w.finishForRematch()
	w.fake.FailNext(func(r discordtest.Request) bool {
		return r.Method == "POST" && strings.HasPrefix(r.Path, "/webhooks/")
	}, 429, 0, 20*time.Millisecond)
	w.click(bob, finished, "Rematch")
	msgs := w.public()
	if len(msgs) != 2 {
		t.Fatalf("%d messages after a rate-limited follow-up, want 2", len(msgs))
	}
	mustContain(t, "invitation", messageText(msgs[1]), "asks you for a rematch")
	limited := 0
	for _, r := range w.fake.Requests() {
		if r.Status == 429 {
			limited++
		}
	}
	if limited != 1 {
		t.Errorf("%d requests answered 429, want 1", limited)
	}
}

// TestFollowUpCrossesTheAnswer: over HTTP, Discord may not have applied a
// response when the bot's next call through the interaction's webhook
// reaches it, and answers 10015 Unknown Webhook or 10008 Unknown Message;
// the bot tries again shortly. For a follow-up (a rematch invitation), the
// invitation arrives; for the read of the message a response made (the
// next round's board, the board /connectn board posts again, read at once
// when the bot has a token), the session learns its ID.
func TestFollowUpCrossesTheAnswer(t *testing.T) {
	t.Run("a follow-up", func(t *testing.T) {
		w := newFaultEnv(t, 15*time.Second, 2*time.Second, 250*time.Millisecond)
		finished := w.finishForRematch()
		w.fake.FailNext(postsFollowUp, 404, discordgo.ErrCodeUnknownWebhook, 0)
		w.click(bob, finished, "Rematch")
		msgs := w.public()
		if len(msgs) != 2 {
			t.Fatalf("%d messages after a follow-up that crossed the answer, want 2", len(msgs))
		}
		mustContain(t, "invitation", messageText(msgs[1]), "asks you for a rematch")
		if n := w.requests("POST", isWebhook); n != 2 {
			t.Errorf("%d follow-ups posted, want 2 (the one refused, then the invitation)", n)
		}
	})
	t.Run("the next round's board", func(t *testing.T) {
		w := newFaultEnv(t, 15*time.Second, 2*time.Second, 250*time.Millisecond)
		w.withBotToken(true)
		w.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
		reads := func() int {
			return w.requests("GET", func(p string) bool { return strings.HasSuffix(p, "/messages/@original") })
		}
		before := reads() // the challenge's
		w.fake.FailNext(func(r discordtest.Request) bool {
			return r.Method == "GET" && strings.HasSuffix(r.Path, "/messages/@original")
		}, 404, discordgo.ErrCodeUnknownWebhook, 0)
		w.play(alice, bob, "1", "2", "1", "2", "1")
		msgs := w.public()
		if len(msgs) != 2 {
			t.Fatalf("%d messages, want the round 1 record and round 2's board", len(msgs))
		}
		if s := w.session(); s.MessageID != msgs[1].ID {
			t.Errorf("the session's board message %q; want %q", s.MessageID, msgs[1].ID)
		}
		if n := reads() - before; n != 2 {
			t.Errorf("%d reads of @original, want 2 (the one refused, then the board)", n)
		}
	})
	t.Run("the ID of a new board", func(t *testing.T) {
		w := newFaultEnv(t, 15*time.Second, 2*time.Second, 250*time.Millisecond)
		w.withBotToken(true)
		w.startMatch(nil)
		w.fake.FailNext(func(r discordtest.Request) bool {
			return r.Method == "GET" && strings.HasSuffix(r.Path, "/messages/@original")
		}, 404, discordgo.ErrCodeUnknownMessage, 0)
		w.send(slash(bob, "board"))
		if s := w.session(); s.MessageID != w.board().ID {
			t.Errorf("the session's board message %q, want the new %q", s.MessageID, w.board().ID)
		}
	})
}

func TestGatewayRegistersGlobally(t *testing.T) {
	w := newGatewayEnv(t, "")
	if got := w.fake.Commands(""); len(got) != 2 || got[0].Name != "connectn" || got[1].Name != "connectn-admin" {
		t.Fatalf("global commands: got %+v, want connectn and connectn-admin", got)
	}
}

func TestGatewayBadToken(t *testing.T) {
	fake := discordtest.New(discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID))
	defer fake.Close()
	store, _ := mustOpenStore(t, clocktest.New())
	s, err := fake.NewSession("MTE.wrong.token")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := &transport.Gateway{Session: s, Handler: bot.NewHandler(store, slog.New(slog.DiscardHandler)), Log: slog.New(slog.DiscardHandler)}
	if err := g.Run(ctx); err == nil {
		t.Fatal("Run with a wrong token: got nil error")
	}
}

// TestPlayTheBotOverHTTP plays a match against the real engine through the
// HTTP transport: every click's answer already holds the bot's reply, and
// the finished match offers Analysis.
func TestPlayTheBotOverHTTP(t *testing.T) {
	w := newEnv(t, bot.WithAI(ai.NewEngine(ai.Options{TableMB: 8, Workers: 2, Seed: 3})))
	resp := w.send(slash(alice, "challenge", "rows", 5, "columns", 6, "connect", 4, "wins", 1, "level", "perfect"))
	mustContain(t, "board", text(resp), "**Connect N**", "against the bot (perfect)")
	for k := 0; k < 15; k++ {
		s, err := w.store.Get(context.Background(), channelID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Phase != sessions.PhasePlaying {
			break
		}
		before := s.Match.Plies()
		b := w.board()
		var col string
		for _, btn := range buttons(b.Components) {
			if !btn.Disabled && btn.Label != "Forfeit match" {
				col = btn.Label
				break
			}
		}
		resp := w.click(alice, b, col)
		mustUpdate(t, resp)
		s, _ = w.store.Get(context.Background(), channelID)
		if s.Phase == sessions.PhasePlaying && s.Match.Plies() != before+2 {
			t.Fatalf("move %d: %d plies after one click from %d, want the bot's reply in the same response", k, s.Match.Plies(), before)
		}
	}
	final := w.board()
	if got := labels(final.Components); got != "Rematch Picture Analysis" {
		t.Fatalf("the match did not end with the bot's win on the board: buttons %q\n%s", got, messageText(final))
	}
	mustContain(t, "final", messageText(final), "Connect N** wins")
}
