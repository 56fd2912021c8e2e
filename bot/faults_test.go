package bot_test

import (
	"testing"
	"time"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
)

// TestLostFollowUpPostedOnce: the follow-up with the next round's board is
// made but its answer is lost (a reset, a stall); the bot, a member with
// its token, finds the board in the channel before posting again, so
// exactly one board message appears and the session learns its ID.
// Without the look (send's findPosted), the retry posts a second board.
func TestLostFollowUpPostedOnce(t *testing.T) {
	for _, f := range []discordtest.Fault{discordtest.FaultLostReset, discordtest.FaultLostStall} {
		t.Run(f.String(), func(t *testing.T) {
			e := newEnv(t, bot.WithRetry(3*time.Second, 300*time.Millisecond, 5*time.Millisecond))
			e.withBotToken(true)
			e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
			e.fake.Inject(postsFollowUp, f, 0)
			e.play(alice, bob, "1", "2", "1", "2", "1")
			msgs := e.public()
			if len(msgs) != 2 {
				t.Fatalf("%d messages, want the round 1 board and one round 2 board", len(msgs))
			}
			mustContain(t, "round 2 board", messageText(msgs[1]), "Round 2")
			if s := e.session(); !s.PostDue.IsZero() || s.MessageID != msgs[1].ID {
				t.Errorf("after the post: due %v, message %q, want none, %q", s.PostDue, s.MessageID, msgs[1].ID)
			}
			e.play(bob, alice, "1")
		})
	}
}

// TestGlobalRateLimitHoldsEverything: a global 429 on the follow-up keeps
// the bot from sending any request until its retry_after has passed; then
// the board is posted.
func TestGlobalRateLimitHoldsEverything(t *testing.T) {
	const wait = 400 * time.Millisecond
	e := newEnv(t, bot.WithRetry(3*time.Second, time.Second, 5*time.Millisecond))
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
	e.fake.Inject(postsFollowUp, discordtest.FaultGlobalRateLimit, wait)
	e.play(alice, bob, "1", "2", "1", "2", "1")
	if n := len(e.public()); n != 2 {
		t.Fatalf("%d messages, want the round 2 board too", n)
	}
	var limited time.Time
	for _, r := range e.fake.Requests() {
		switch {
		case r.Fault == "global-429":
			limited = r.At
		case !limited.IsZero() && r.At.Sub(limited) < wait && r.Path != "/interactions":
			t.Errorf("%s %s sent %v after the global 429, within its %v", r.Method, r.Path, r.At.Sub(limited), wait)
		}
	}
	if limited.IsZero() {
		t.Fatal("no global 429 was served")
	}
}

// TestLostFollowUpPlayedOnBeforeTheLook: the follow-up with the next
// round's board is made but its answer is lost, and before the bot looks
// for it the players, who see it, play on it (which changes its buttons'
// plies). The look still knows it by its match and post sequence, so no
// second (stale) board is posted. With the look matching the custom_ids
// exactly, as it first did, the retry posts the round's first board again
// under the one being played.
func TestLostFollowUpPlayedOnBeforeTheLook(t *testing.T) {
	e := newEnv(t, bot.WithRetry(5*time.Second, time.Second, 400*time.Millisecond))
	e.withBotToken(true)
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
	e.fake.Inject(postsFollowUp, discordtest.FaultLostReset, 0)
	e.play(alice, bob, "1", "2", "1", "2")
	// The click that ends round 1, without waiting for the post.
	last := e.board()
	e.deliver(componentClick(alice, last, findButton(t, last.Components, "1").CustomID))
	deadline := time.Now().Add(5 * time.Second)
	for len(e.public()) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the lost post did not appear")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Bob starts round 2 on the board that was posted, before the retry.
	lost := e.public()[1]
	mustUpdate(t, e.deliver(componentClick(bob, lost, findButton(t, lost.Components, "3").CustomID)))
	e.idle()
	msgs := e.public()
	if len(msgs) != 2 {
		for _, m := range msgs[1:] {
			t.Logf("message %s: %q", m.ID, messageText(m))
		}
		t.Fatalf("%d messages, want the round 1 board and the one round 2 board", len(msgs))
	}
	if s := e.session(); s.MessageID != lost.ID || !s.PostDue.IsZero() {
		t.Errorf("session: message %q, post due %v; want %q, none", s.MessageID, s.PostDue, lost.ID)
	}
	e.play(alice, bob, "4")
}
