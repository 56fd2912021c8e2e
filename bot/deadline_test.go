package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
)

// metricsRecorder is a bot.Metrics that remembers what it is told.
type metricsRecorder struct {
	mu        sync.Mutex
	deadlines []string
	outcomes  map[string]int // "kind outcome" → count
}

func (m *metricsRecorder) Interaction(kind, outcome string, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.outcomes == nil {
		m.outcomes = map[string]int{}
	}
	m.outcomes[kind+" "+outcome]++
}

func (m *metricsRecorder) DeadlineFired(kind string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deadlines = append(m.deadlines, kind)
}

func (m *metricsRecorder) AIMove(string, time.Duration) {}
func (m *metricsRecorder) RESTRetry(string)             {}
func (m *metricsRecorder) RESTGiveUp(string)            {}

func (m *metricsRecorder) fired() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.deadlines, ",")
}

func TestChallengeExpires(t *testing.T) {
	rec := &metricsRecorder{}
	e := newEnv(t, bot.WithMetrics(rec))
	e.send(slashChallenge(alice, bob, nil))
	challenge := e.board()
	want := fmt.Sprintf("<t:%d:R>", clocktest.Start.Add(bot.DefaultChallengeTimeout).Unix())
	mustContain(t, "challenge", messageText(challenge), "The challenge expires "+want)

	e.clock.Advance(bot.DefaultChallengeTimeout - time.Second)
	if n := e.runDue(); n != 0 {
		t.Fatalf("RunDue a second before the deadline settled %d sessions", n)
	}
	if got := e.message(challenge.ID); got.Content != challenge.Content || len(got.Components) == 0 {
		t.Fatalf("the challenge changed before its deadline: %q", messageText(got))
	}
	e.clock.Advance(time.Second)
	if n := e.runDue(); n != 1 {
		t.Fatalf("RunDue at the deadline settled %d sessions, want 1", n)
	}
	got := e.message(challenge.ID)
	mustContain(t, "expired challenge", messageText(got), "Connect 4 challenge expired", "⌛ Nobody accepted it in time.")
	if got.Content != "" || got.Embeds[0].Color != 0x80848E {
		t.Errorf("the expired challenge keeps content %q, colour %#x; want none, grey", got.Content, got.Embeds[0].Color)
	}
	if len(got.Components) != 0 {
		t.Errorf("the expired challenge keeps buttons %q", labels(got.Components))
	}
	if s := e.session(); s.Phase != sessions.PhaseCancelled || s.End != sessions.EndExpired {
		t.Errorf("session phase %q end %q, want cancelled, expired", s.Phase, s.End)
	}
	if got := rec.fired(); got != "challenge" {
		t.Errorf("deadlines fired %q, want challenge", got)
	}
	// The old Accept button (a client that still shows it) starts
	// nothing: it shows how the challenge ended. The channel is free.
	late := e.clickID(bob, got, findButton(t, challenge.Components, "Accept").CustomID)
	mustUpdate(t, late)
	mustContain(t, "a click on the expired challenge", text(late), "expired")
	if n := len(buttons(late.Data.Components)); n != 0 {
		t.Errorf("the click on the expired challenge shows %d buttons, want none", n)
	}
	if s := e.session(); s.Phase != sessions.PhaseCancelled || s.Match.Plies() != 0 {
		t.Errorf("after the late Accept: phase %q, %d plies, want cancelled and none", s.Phase, s.Match.Plies())
	}
	if resp := e.send(slashChallenge(carol, bob, nil)); resp.Data.Flags != 0 {
		t.Fatalf("a new challenge after the expiry was refused: %q", text(resp))
	}
	if n := e.runDue(); n != 0 {
		t.Errorf("a fired deadline fired again: RunDue settled %d", n)
	}
}

func TestTurnTimeoutForfeitsTheMatch(t *testing.T) {
	rec := &metricsRecorder{}
	e := newEnv(t, bot.WithMetrics(rec))
	e.startMatch(nil)
	e.clock.Advance(time.Minute)
	resp := e.play(alice, bob, "4")
	want := fmt.Sprintf("The turn runs out <t:%d:R>.", e.clock.Now().Add(bot.DefaultTurnTimeout).Unix())
	mustContain(t, "board", text(resp), want)
	board := e.board()

	e.clock.Advance(bot.DefaultTurnTimeout - time.Millisecond)
	if n := e.runDue(); n != 0 {
		t.Fatalf("RunDue before the turn ran out settled %d", n)
	}
	e.clock.Advance(time.Millisecond)
	if n := e.runDue(); n != 1 {
		t.Fatalf("RunDue when the turn ran out settled %d, want 1", n)
	}
	got := e.message(board.ID)
	mustContain(t, "timed-out board", messageText(got), "⌛ 🔴 **Alice** wins by timeout: 🟡 **Bob** did not play in time.", "Match over")
	if strings.Count(messageText(got), "wins") != 1 || got.Content != "" {
		t.Errorf("the timed-out board says who wins more than once:\n%s", messageText(got))
	}
	if labels(got.Components) != "Rematch Picture" {
		t.Errorf("timed-out board buttons %q, want Rematch Picture", labels(got.Components))
	}
	s := e.session()
	if s.Phase != sessions.PhaseFinished || s.End != sessions.EndTimeout {
		t.Errorf("session phase %q end %q, want finished, timeout", s.Phase, s.End)
	}
	bobStats, _ := e.store.Stats(context.Background(), guildID, bobID, false)
	if bobStats.Losses != 1 || bobStats.Matches != 1 {
		t.Errorf("Bob's stats %+v, want the timeout as a loss", bobStats)
	}
	if got := rec.fired(); got != "turn" {
		t.Errorf("deadlines fired %q, want turn", got)
	}
}

// TestDeadlineSurvivesRestart arms a deadline, stops the bot, lets the
// deadline pass while it is down, and starts it again: the deadline fires
// on the first run of the scheduler.
func TestDeadlineSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	e.startMatch(nil)
	board := e.board()
	e.restart()
	e.clock.Advance(bot.DefaultTurnTimeout + time.Hour)
	e.restart()
	if n := e.runDue(); n != 1 {
		t.Fatalf("RunDue after the restart settled %d, want 1", n)
	}
	if s := e.session(); s.End != sessions.EndTimeout {
		t.Fatalf("end %q, want timeout", s.End)
	}
	// The interaction token of the board is long dead: without a bot
	// token the message cannot be edited, so the next click shows it.
	if got := e.message(board.ID); len(got.Components) == 0 {
		t.Fatalf("the board was edited with a dead token")
	}
	resp := e.click(bob, board, "3")
	mustUpdate(t, resp)
	mustContain(t, "board clicked after the timeout", text(resp), "did not play in time", "wins by timeout")
	// No disc was dropped: nothing to draw, only Rematch.
	if got := e.message(board.ID); labels(got.Components) != "Rematch" {
		t.Errorf("after the click, buttons %q, want Rematch", labels(got.Components))
	}
}

// TestExpiredWithoutScheduler: with no scheduler running, the first
// interaction after the deadline settles the session.
func TestExpiredWithoutScheduler(t *testing.T) {
	t.Run("a click on the board", func(t *testing.T) {
		e := newEnv(t)
		e.startMatch(nil)
		e.clock.Advance(bot.DefaultTurnTimeout)
		resp := e.click(alice, e.board(), "1")
		mustUpdate(t, resp)
		mustContain(t, "board", text(resp), "Bob** wins by timeout: 🔴 **Alice** did not play in time.")
		if s := e.session(); s.Match.Plies() != 1 || !s.Match.Forfeited() {
			t.Errorf("the late click was played: %d plies", s.Match.Plies())
		}
	})
	t.Run("a new challenge in the channel", func(t *testing.T) {
		e := newEnv(t)
		e.send(slashChallenge(alice, bob, nil))
		old := e.board()
		e.clock.Advance(bot.DefaultChallengeTimeout)
		resp := e.send(slashChallenge(carol, alice, nil))
		if resp.Data.Flags != 0 {
			t.Fatalf("challenge after an expired one refused: %q", text(resp))
		}
		mustContain(t, "old challenge", messageText(e.message(old.ID)), "expired")
	})
}

// TestBotTokenEditsAfterTheWebhookExpires: with a turn longer than an
// interaction token lives, the expiry edit goes through the bot token.
func TestBotTokenEditsAfterTheWebhookExpires(t *testing.T) {
	for _, botToken := range []bool{false, true} {
		t.Run(fmt.Sprintf("bot token %t", botToken), func(t *testing.T) {
			e := newEnv(t, bot.WithTimeouts(time.Hour, time.Hour))
			e.withBotToken(botToken)
			e.startMatch(nil)
			board := e.board()
			e.clock.Advance(time.Hour)
			e.runDue()
			edited := len(e.message(board.ID).Components) == 1
			if edited != botToken {
				t.Fatalf("board edited %t, want %t (bot token %t)", edited, botToken, botToken)
			}
			if got := e.requests("PATCH", isWebhook); got != 0 {
				t.Errorf("%d edits through an expired webhook", got)
			}
		})
	}
}

// TestBoardPostRetried: the follow-up with a rematch invitation (a post
// that is not a response) fails once with a server error; the post stays
// pending and the scheduler posts it when the lease runs out. A failure
// that will not pass (the channel is gone) is given up.
func TestBoardPostRetried(t *testing.T) {
	t.Run("a server error is tried again at once", func(t *testing.T) {
		e := newFaultEnv(t, 2*time.Second, time.Second, 5*time.Millisecond)
		finished := e.finishForRematch()
		e.fake.FailNext(postsFollowUp, 500, 0, 0)
		e.fake.FailNext(postsFollowUp, 502, 0, 0)
		e.click(bob, finished, "Rematch")
		msgs := e.public()
		if len(msgs) != 2 {
			t.Fatalf("%d messages, want the invitation too", len(msgs))
		}
		mustContain(t, "invitation", messageText(msgs[1]), "asks you for a rematch")
		if s := e.session(); !s.PostDue.IsZero() || s.MessageID != msgs[1].ID {
			t.Errorf("after the post: due %v, message %q, want none, %q", s.PostDue, s.MessageID, msgs[1].ID)
		}
	})
	t.Run("a server error past the budget is tried again two seconds later", func(t *testing.T) {
		// Tries of a second: a try cut off (a busy machine under the race
		// detector) would make the post one that may have been made,
		// which without a bot token nobody can look for, and the test
		// would measure that instead. No try is cut off by the budget
		// (TestNoTryCutByTheBudget): CI caught this subtest failing so
		// when the budget's end cut the last try.
		e := newFaultEnv(t, 1500*time.Millisecond, time.Second, 5*time.Millisecond)
		finished := e.finishForRematch()
		var failing atomic.Bool
		failing.Store(true)
		for range 200 {
			e.fake.FailNext(func(r discordtest.Request) bool { return failing.Load() && postsFollowUp(r) }, 500, 0, 0)
		}
		e.click(bob, finished, "Rematch")
		failing.Store(false)
		if n := len(e.public()); n != 1 {
			t.Fatalf("%d messages after a failed post, want 1", n)
		}
		if s := e.session(); s.PostDue.IsZero() {
			t.Fatal("the failed post is not pending")
		}
		// Due again 2 s after the tries were given up (not at the end of
		// the 30-second lease): the players are waiting.
		e.clock.Advance(time.Second)
		e.runDue()
		if n := len(e.public()); n != 1 {
			t.Fatalf("posted again a second after the tries were given up: %d messages", n)
		}
		e.clock.Advance(1500 * time.Millisecond)
		if n := e.runDue(); n != 1 {
			t.Fatalf("RunDue settled %d, want the pending post", n)
		}
		msgs := e.public()
		if len(msgs) != 2 {
			t.Fatalf("%d messages, want the invitation too", len(msgs))
		}
		mustContain(t, "invitation", messageText(msgs[1]), "asks you for a rematch")
		mustUpdate(t, e.click(alice, msgs[1], "Accept"))
	})
	t.Run("an unknown channel does not", func(t *testing.T) {
		e := newEnv(t)
		finished := e.finishForRematch()
		e.fake.FailNext(postsFollowUp, 404, 10003, 0)
		e.click(bob, finished, "Rematch")
		if s := e.session(); !s.PostDue.IsZero() {
			t.Fatal("a post to a channel that is gone is still pending")
		}
		e.clock.Advance(time.Minute)
		if n := e.runDue(); n != 0 {
			t.Fatalf("RunDue settled %d, want nothing to retry", n)
		}
		if n := len(e.public()); n != 1 {
			t.Fatalf("%d messages, want no invitation", n)
		}
	})
}

// logRecorder is a slog handler that keeps every record.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// find returns the level of the first record whose message is msg, and
// whether there is one.
func (l *logRecorder) find(msg string) (slog.Level, string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.records {
		if r.Message == msg {
			var attrs []string
			r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a.String()); return true })
			return r.Level, strings.Join(attrs, " "), true
		}
	}
	return 0, "", false
}

// isWebhook reports whether path is an interaction webhook's route.
func isWebhook(path string) bool { return strings.HasPrefix(path, "/webhooks/") }

// postsFollowUp matches the POST of a follow-up through a webhook.
func postsFollowUp(r discordtest.Request) bool {
	return r.Method == "POST" && isWebhook(r.Path) && strings.Count(r.Path, "/") == 3
}

// inChannel moves an interaction to another channel.
func inChannel(body []byte, channel string) []byte {
	var m map[string]any
	json.Unmarshal(body, &m)
	m["channel_id"] = channel
	m["channel"].(map[string]any)["id"] = channel
	return mustJSON(m)
}

// TestRESTErrorsEndTheChannelsWorkCleanly: Discord refusing the edit of
// one channel's expired challenge (unknown message, unknown channel, no
// access, no permission) is logged at warn level and stops nothing: the
// other channel's deadline fires in the same run, and no token leaks into
// the log.
func TestRESTErrorsEndTheChannelsWorkCleanly(t *testing.T) {
	for _, code := range []int{10008, 10003, 50001, 50013} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			logs := &logRecorder{}
			e := newEnvLog(t, slog.New(logs))
			e.send(inChannel(slashChallenge(alice, bob, nil), "1300000000000000008"))
			e.send(inChannel(slashChallenge(alice, bob, nil), "1300000000000000009"))
			e.clock.Advance(bot.DefaultChallengeTimeout)
			e.fake.FailNext(func(r discordtest.Request) bool { return r.Method == "PATCH" && isWebhook(r.Path) }, 403, code, 0)
			if n := e.runDue(); n != 2 {
				t.Fatalf("RunDue settled %d, want both channels", n)
			}
			for _, ch := range []string{"1300000000000000008", "1300000000000000009"} {
				s, err := e.store.Get(context.Background(), ch)
				if err != nil || s.End != sessions.EndExpired {
					t.Errorf("channel %s: %+v, %v, want expired", ch, s, err)
				}
			}
			level, attrs, ok := logs.find("editing the board message")
			if !ok || level != slog.LevelWarn {
				t.Fatalf("no warning about the refused edit (found %t at %v)", ok, level)
			}
			if !strings.Contains(attrs, fmt.Sprintf("code %d", code)) {
				t.Errorf("warning %q does not give the Discord code", attrs)
			}
			for _, r := range logs.records {
				var all []string
				r.Attrs(func(a slog.Attr) bool { all = append(all, a.String()); return true })
				if strings.Contains(strings.Join(all, " "), "aW50ZXJhY3Rpb246") {
					t.Errorf("an interaction token in the log: %s %v", r.Message, all)
				}
			}
		})
	}
}

// TestChallengeMessageIDWithBotToken: a challenge's message ID is asked of
// Discord only when a bot token can use it, to edit the challenge as
// expired once its interaction webhook has expired; without a bot token
// nothing could use it (the opponent's Accept carries it), so no request
// is made and the expired challenge is shown by the next click on it.
func TestChallengeMessageIDWithBotToken(t *testing.T) {
	for _, botToken := range []bool{false, true} {
		t.Run(fmt.Sprintf("bot token %t", botToken), func(t *testing.T) {
			e := newEnv(t, bot.WithTimeouts(time.Hour, time.Hour))
			e.withBotToken(botToken)
			e.send(slashChallenge(alice, bob, nil))
			challenge := e.board()
			wantCalls := 0
			if botToken {
				wantCalls = 1
			}
			if got := e.requests("GET", func(p string) bool { return isWebhook(p) && strings.HasSuffix(p, "/messages/@original") }); got != wantCalls {
				t.Errorf("%d requests for the challenge's message ID, want %d", got, wantCalls)
			}
			e.clock.Advance(time.Hour)
			e.runDue()
			expired := strings.Contains(messageText(e.message(challenge.ID)), "expired")
			if expired != botToken {
				t.Fatalf("challenge edited as expired %t, want %t; it reads %q", expired, botToken, messageText(e.message(challenge.ID)))
			}
			if !botToken {
				resp := e.click(bob, challenge, "Accept")
				mustUpdate(t, resp)
				mustContain(t, "the click on the expired challenge", text(resp), "expired")
			}
		})
	}
}

// TestDeadTokenEditFallsBackToTheBotToken: a deadline's edit through an
// interaction webhook that Discord says is dead (10015 Unknown Webhook,
// before its 15 minutes) is made with the bot token in the same call, so
// the board shows the result at once, without its buttons.
func TestDeadTokenEditFallsBackToTheBotToken(t *testing.T) {
	e := newEnv(t)
	e.withBotToken(true)
	e.startMatch(map[string]int{"wins": 1})
	e.play(alice, bob, "4")
	board := e.board()
	e.fake.FailNext(func(r discordtest.Request) bool {
		return r.Method == "PATCH" && strings.HasPrefix(r.Path, "/webhooks/")
	}, 404, 10015, 0)
	e.clock.Advance(bot.DefaultTurnTimeout)
	if n := e.runDue(); n != 1 {
		t.Fatalf("RunDue settled %d, want the turn that ran out", n)
	}
	got := e.message(board.ID)
	mustContain(t, "the board after the deadline", messageText(got), "wins by timeout")
	if e.requests("PATCH", func(p string) bool { return strings.HasPrefix(p, "/channels/"+channelID+"/messages/") }) == 0 {
		t.Error("no edit with the bot token")
	}
}
