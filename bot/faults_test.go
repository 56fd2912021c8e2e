package bot_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/sessions"
)

// finishForRematch plays a match of one round won (4x4, connect 3) to its
// end in e and returns its last message, on which Bob's Rematch click has
// the invitation posted as a follow-up: the way a post goes that is not
// the response to a click (a rematch, the next round's board after the
// bot's late reply).
func (e *env) finishForRematch() *discordgo.Message {
	e.t.Helper()
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3, "wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1")
	return e.board()
}

// TestLostFollowUpPostedOnce: the follow-up with a rematch invitation is
// made but its answer is lost (a reset, a stall); the bot, a member with
// its token, finds the invitation in the channel before posting again, so
// exactly one appears and the session learns its ID. Without the look
// (send's findPosted), the retry posts a second invitation.
func TestLostFollowUpPostedOnce(t *testing.T) {
	for _, f := range []discordtest.Fault{discordtest.FaultLostReset, discordtest.FaultLostStall} {
		t.Run(f.String(), func(t *testing.T) {
			e := newFaultEnv(t, 3*time.Second, 300*time.Millisecond, 5*time.Millisecond)
			e.withBotToken(true)
			finished := e.finishForRematch()
			e.fake.Inject(postsFollowUp, f, 0)
			e.click(bob, finished, "Rematch")
			msgs := e.public()
			if len(msgs) != 2 {
				t.Fatalf("%d messages, want the finished match and one invitation", len(msgs))
			}
			mustContain(t, "invitation", messageText(msgs[1]), "asks you for a rematch")
			if s := e.session(); !s.PostDue.IsZero() || s.MessageID != msgs[1].ID {
				t.Errorf("after the post: due %v, message %q, want none, %q", s.PostDue, s.MessageID, msgs[1].ID)
			}
			mustUpdate(t, e.click(alice, msgs[1], "Accept"))
		})
	}
}

// TestGlobalRateLimitHoldsEverything: a global 429 on a follow-up (a
// rematch invitation) keeps the bot from sending any request until its
// retry_after has passed; then the invitation is posted.
func TestGlobalRateLimitHoldsEverything(t *testing.T) {
	const wait = 400 * time.Millisecond
	e := newRealEnv(t, bot.WithRetry(3*time.Second, time.Second, 5*time.Millisecond))
	finished := e.finishForRematch()
	e.fake.Inject(postsFollowUp, discordtest.FaultGlobalRateLimit, wait)
	e.click(bob, finished, "Rematch")
	if n := len(e.public()); n != 2 {
		t.Fatalf("%d messages, want the invitation too", n)
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

// TestLostFollowUpPlayedOnBeforeTheLook: the follow-up with a rematch
// invitation is made but its answer is lost, and before the bot looks for
// it the players, who see it, answer it: Accept, which starts the match on
// it (its message becomes the board, its buttons change), or Decline. The
// bot does not post it again: it reads the session, which has moved on
// (without that, the look finds no message with the invitation's buttons
// and posts it again).
func TestLostFollowUpPlayedOnBeforeTheLook(t *testing.T) {
	for _, answer := range []string{"Accept", "Decline"} {
		t.Run(answer, func(t *testing.T) {
			e := newFaultEnv(t, 5*time.Second, time.Second, 600*time.Millisecond)
			e.withBotToken(true)
			finished := e.finishForRematch()
			e.fake.Inject(postsFollowUp, discordtest.FaultLostReset, 0)
			// The Rematch click, without waiting for the post.
			e.deliver(componentClick(bob, finished, findButton(t, finished.Components, "Rematch").CustomID))
			// The post is made (its answer lost); the retry waits on the
			// clock, which nobody moves yet.
			if _, err := e.fake.WaitRequest(shortCtx(t, 10*time.Second), func(r discordtest.Request) bool {
				return postsFollowUp(r) && r.Fault == discordtest.FaultLostReset.String()
			}); err != nil {
				t.Fatalf("the lost post did not appear: %v", err)
			}
			// Alice answers the invitation that was posted, before the
			// retry.
			lost := e.public()[1]
			mustUpdate(t, e.deliver(componentClick(alice, lost, findButton(t, lost.Components, answer).CustomID)))
			e.idle()
			msgs := e.public()
			if len(msgs) != 2 {
				for _, m := range msgs[1:] {
					t.Logf("message %s: %q", m.ID, messageText(m))
				}
				t.Fatalf("%d messages, want 2: the invitation posted once", len(msgs))
			}
			if s := e.session(); !s.PostDue.IsZero() {
				t.Errorf("session: post due %v; want none", s.PostDue)
			}
		})
	}
}

// TestLostFollowUpGivenUpForNowThenFound: the follow-up with a rematch
// invitation is made but its answer is lost, and every look for it
// stalls until the tries' time is spent: the post is given up for now and
// due again soon (not at the end of its 30-second lease), and when the
// scheduler claims it again the bot looks before posting, finds the board,
// and posts no second one. Without the memory of the unsure post, the
// claim posts the board again.
func TestLostFollowUpGivenUpForNowThenFound(t *testing.T) {
	e := newFaultEnv(t, time.Second, 150*time.Millisecond, 20*time.Millisecond)
	e.withBotToken(true)
	finished := e.finishForRematch()
	e.fake.Inject(postsFollowUp, discordtest.FaultLostStall, 0)
	readsChannel := func(r discordtest.Request) bool {
		return r.Method == "GET" && strings.HasPrefix(r.Path, "/channels/") && strings.HasSuffix(r.Path, "/messages")
	}
	for range 20 {
		e.fake.Inject(readsChannel, discordtest.FaultStall, 0)
	}
	e.click(bob, finished, "Rematch")
	if n := len(e.public()); n != 2 {
		t.Fatalf("%d messages after the lost post, want 2", n)
	}
	s := e.session()
	if s.PostDue.IsZero() || s.PostDue.After(e.clock.Now().Add(5*time.Second)) {
		t.Fatalf("post due %v at %v: want it due again within seconds", s.PostDue, e.clock.Now())
	}
	// The stalls left are spent by nobody: clear them with reads of our own.
	for range 20 {
		_, _ = e.rest.ChannelMessages(channelID, 1, "", "", "", discordgo.WithContext(shortCtx(t, 20*time.Millisecond)))
	}
	e.clock.Advance(3 * time.Second)
	e.runDue()
	msgs := e.public()
	if len(msgs) != 2 {
		t.Fatalf("%d messages after the scheduler's claim, want 2: the board posted once", len(msgs))
	}
	if s := e.session(); !s.PostDue.IsZero() || s.MessageID != msgs[1].ID {
		t.Errorf("after the claim: due %v, message %q; want none, %q", s.PostDue, s.MessageID, msgs[1].ID)
	}
}

// shortCtx returns a context that ends after d, cancelled with the test.
func shortCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// lookRecorder is the bot's messenger, recording how much time each look
// in the channel was given.
type lookRecorder struct {
	*bot.DiscordMessenger
	mu    sync.Mutex
	given []time.Duration
}

func (l *lookRecorder) RecentChannelMessages(ctx context.Context, channelID string, limit int) ([]*discordgo.Message, error) {
	if dl, ok := ctx.Deadline(); ok {
		l.mu.Lock()
		l.given = append(l.given, time.Until(dl))
		l.mu.Unlock()
	}
	return l.DiscordMessenger.RecentChannelMessages(ctx, channelID, limit)
}

// TestLookHasHalfTheTry: the look for a post whose answer was lost has
// half of a try's time, so that a look that stalls ends its try sooner
// (or leaves the post the other half) instead of taking the whole try.
// Without the look's own deadline it is given the whole try.
func TestLookHasHalfTheTry(t *testing.T) {
	const attempt = 2 * time.Second
	rec := &lookRecorder{}
	e := newRealEnv(t, bot.WithRetry(10*time.Second, attempt, 5*time.Millisecond), bot.WithMessenger(rec))
	rec.DiscordMessenger = bot.NewDiscordMessenger(e.rest)
	e.withBotToken(true)
	finished := e.finishForRematch()
	e.fake.Inject(postsFollowUp, discordtest.FaultLostReset, 0)
	e.click(bob, finished, "Rematch")
	if n := len(e.public()); n != 2 {
		t.Fatalf("%d messages, want the invitation once", n)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.given) == 0 {
		t.Fatal("the bot did not look for the post whose answer was lost")
	}
	for _, d := range rec.given {
		if d <= 0 || d > attempt/2 {
			t.Errorf("a look was given %v, want at most half the try's %v", d, attempt)
		}
	}
}

// restFault is a way the REST API fails, for the tests of the next board
// without a bot token: inject queues it for one request that match
// accepts.
type restFault struct {
	name   string
	inject func(f *discordtest.Server, match func(discordtest.Request) bool)
}

// restFaults are the ways of connectn-loadgen's -fault-kinds: a 429 of the
// route and the global one, 500, 502, a stall, a reset, and a reset or
// stall after the call was applied.
var restFaults = []restFault{
	{"429", func(f *discordtest.Server, m func(discordtest.Request) bool) {
		f.FailNext(m, 429, 0, 20*time.Millisecond)
	}},
	{"global-429", func(f *discordtest.Server, m func(discordtest.Request) bool) {
		f.Inject(m, discordtest.FaultGlobalRateLimit, 20*time.Millisecond)
	}},
	{"500", func(f *discordtest.Server, m func(discordtest.Request) bool) { f.FailNext(m, 500, 0, 0) }},
	{"502", func(f *discordtest.Server, m func(discordtest.Request) bool) { f.FailNext(m, 502, 0, 0) }},
	{"stall", func(f *discordtest.Server, m func(discordtest.Request) bool) { f.Inject(m, discordtest.FaultStall, 0) }},
	{"reset", func(f *discordtest.Server, m func(discordtest.Request) bool) { f.Inject(m, discordtest.FaultReset, 0) }},
	{"lost-reset", func(f *discordtest.Server, m func(discordtest.Request) bool) {
		f.Inject(m, discordtest.FaultLostReset, 0)
	}},
	{"lost-stall", func(f *discordtest.Server, m func(discordtest.Request) bool) {
		f.Inject(m, discordtest.FaultLostStall, 0)
	}},
}

// TestNextBoardWhileTheAPIFails: without a bot token, every REST call the
// bot makes after the click that ends a round fails, in each way of
// restFaults, for longer than the bot tries: the next round's board is in
// the channel all the same, once, because it is the click's response;
// when the API answers again and nobody has clicked on the board within
// the post's grace, the scheduler finds the board through the click's own
// webhook (its @original), records it, and posts no second one, and the
// players play on it. Posted as a follow-up, as it was, the
// board was not there while the API failed (and after a lost answer,
// without a bot token to look, it was given up).
func TestNextBoardWhileTheAPIFails(t *testing.T) {
	for _, f := range restFaults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			e := newFaultEnv(t, 600*time.Millisecond, 150*time.Millisecond, 5*time.Millisecond)
			e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
			e.play(alice, bob, "1", "2", "1", "2")
			clicked := e.board()
			var failing atomic.Bool
			failing.Store(true)
			for range 200 {
				f.inject(e.fake, func(r discordtest.Request) bool { return failing.Load() && isWebhook(r.Path) })
			}
			resp := e.click(alice, clicked, "1") // and the work after it, which runs out of tries
			mustNextBoard(t, resp)
			msgs := e.public()
			if len(msgs) != 2 || msgs[0].ID != clicked.ID {
				t.Fatalf("%d messages while the API fails, want the round's message and the next board", len(msgs))
			}
			if got, want := messageText(msgs[1]), text(resp); got != want {
				t.Fatalf("the new message reads\n%s\nwant the next board\n%s", got, want)
			}
			if s := e.session(); s.PostDue.IsZero() {
				t.Error("the board was recorded as posted though nothing told it was")
			}
			failing.Store(false)
			e.clock.Advance(sessions.DefaultPostGrace + time.Second)
			e.runDue()
			if got := len(e.public()); got != 2 {
				t.Fatalf("%d messages after the API answers again, want 2: the board posted once", got)
			}
			if s := e.session(); !s.PostDue.IsZero() || s.MessageID != msgs[1].ID {
				t.Errorf("after the API answers again: post due %v, board message %q; want none, %q", s.PostDue, s.MessageID, msgs[1].ID)
			}
			mustUpdate(t, e.click(bob, e.message(msgs[1].ID), "1"))
		})
	}
}

// TestNextBoardThroughFaults: without a bot token, the first two REST
// calls after the click that ends a round fail in each way of
// restFaults: the next board is there at once and once, the message
// clicked becomes the round's record (an edit, tried again), and the
// session learns the board's message at the first click on it.
// Posted as a follow-up, as it was, the board was given up after a try
// without an answer (a stall, a reset, a lost answer): without a bot token
// nothing can look for it.
func TestNextBoardThroughFaults(t *testing.T) {
	for _, f := range restFaults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			e := newFaultEnv(t, 3*time.Second, 300*time.Millisecond, 5*time.Millisecond)
			e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
			e.play(alice, bob, "1", "2", "1", "2")
			clicked := e.board()
			for range 2 {
				f.inject(e.fake, func(r discordtest.Request) bool { return isWebhook(r.Path) })
			}
			e.play(alice, bob, "1")
			msgs := e.public()
			if len(msgs) != 2 || msgs[0].ID != clicked.ID {
				t.Fatalf("%d messages, want the round's record and the next board", len(msgs))
			}
			mustContain(t, "round 1's message", messageText(msgs[0]), "Round 1 result")
			mustContain(t, "the next board", messageText(msgs[1]), "Round 2")
			mustUpdate(t, e.click(bob, msgs[1], "1"))
			if s := e.session(); !s.PostDue.IsZero() || s.MessageID != msgs[1].ID {
				t.Errorf("after a click on the board: post due %v, board message %q; want none, %q", s.PostDue, s.MessageID, msgs[1].ID)
			}
			faulted := 0
			for _, r := range e.fake.Requests() {
				if r.Fault != "" || r.Status >= 400 {
					faulted++
				}
			}
			if faulted != 2 {
				t.Errorf("%d calls failed, want the 2 injected", faulted)
			}
			e.clock.Advance(time.Minute)
			e.runDue()
			if got := len(e.public()); got != 2 {
				t.Errorf("%d messages after the scheduler's run, want 2: nothing posted twice", got)
			}
		})
	}
}
