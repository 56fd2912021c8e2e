package bot_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

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
			e := newFaultEnv(t, 3*time.Second, 300*time.Millisecond, 5*time.Millisecond)
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
	e := newRealEnv(t, bot.WithRetry(3*time.Second, time.Second, 5*time.Millisecond))
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
// for it the players, who see it, play on it: a move (which changes its
// buttons' plies), or the whole round (which takes its buttons away). The
// bot does not post it again: it reads the session, which has moved on
// (without that, the look finds no message with the finished round's
// buttons and posts the stale board again), and the look knows a board by
// its match and post sequence (matching the custom_ids exactly, as it
// first did, it posted the board again under the one being played).
func TestLostFollowUpPlayedOnBeforeTheLook(t *testing.T) {
	for _, tt := range []struct {
		name  string
		moves []string // on the lost board, bob first
		want  int      // public messages at the end
	}{
		{"a move", []string{"3"}, 2},
		{"the round", []string{"1", "2", "1", "2", "1"}, 3}, // and round 3's board
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newFaultEnv(t, 5*time.Second, time.Second, 600*time.Millisecond)
			e.withBotToken(true)
			e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3, "wins": 3})
			e.fake.Inject(postsFollowUp, discordtest.FaultLostReset, 0)
			e.play(alice, bob, "1", "2", "1", "2")
			// The click that ends round 1, without waiting for the post.
			last := e.board()
			e.deliver(componentClick(alice, last, findButton(t, last.Components, "1").CustomID))
			// The post is made (its answer lost); the retry waits on the
			// clock, which nobody moves yet.
			if _, err := e.fake.WaitRequest(shortCtx(t, 10*time.Second), func(r discordtest.Request) bool {
				return postsFollowUp(r) && r.Fault == discordtest.FaultLostReset.String()
			}); err != nil {
				t.Fatalf("the lost post did not appear: %v", err)
			}
			// Bob opens round 2 on the board that was posted, before the
			// retry; each click on the message as it reads now.
			lost := e.public()[1]
			for k, c := range tt.moves {
				who := bob
				if k%2 == 1 {
					who = alice
				}
				m := e.message(lost.ID)
				mustUpdate(t, e.deliver(componentClick(who, m, findButton(t, m.Components, c).CustomID)))
			}
			e.idle()
			msgs := e.public()
			if len(msgs) != tt.want {
				for _, m := range msgs[1:] {
					t.Logf("message %s: %q", m.ID, messageText(m))
				}
				t.Fatalf("%d messages, want %d: no board posted twice", len(msgs), tt.want)
			}
			if s := e.session(); s.MessageID != msgs[len(msgs)-1].ID || !s.PostDue.IsZero() {
				t.Errorf("session: message %q, post due %v; want %q, none", s.MessageID, s.PostDue, msgs[len(msgs)-1].ID)
			}
		})
	}
}

// TestLostFollowUpGivenUpForNowThenFound: the follow-up with the next
// round's board is made but its answer is lost, and every look for it
// stalls until the tries' time is spent: the post is given up for now and
// due again soon (not at the end of its 30-second lease), and when the
// scheduler claims it again the bot looks before posting, finds the board,
// and posts no second one. Without the memory of the unsure post, the
// claim posts the board again.
func TestLostFollowUpGivenUpForNowThenFound(t *testing.T) {
	e := newFaultEnv(t, time.Second, 150*time.Millisecond, 20*time.Millisecond)
	e.withBotToken(true)
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
	e.fake.Inject(postsFollowUp, discordtest.FaultLostStall, 0)
	readsChannel := func(r discordtest.Request) bool {
		return r.Method == "GET" && strings.HasPrefix(r.Path, "/channels/") && strings.HasSuffix(r.Path, "/messages")
	}
	for range 20 {
		e.fake.Inject(readsChannel, discordtest.FaultStall, 0)
	}
	e.play(alice, bob, "1", "2", "1", "2", "1")
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
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3})
	e.fake.Inject(postsFollowUp, discordtest.FaultLostReset, 0)
	e.play(alice, bob, "1", "2", "1", "2", "1")
	if n := len(e.public()); n != 2 {
		t.Fatalf("%d messages, want the round 2 board once", n)
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
