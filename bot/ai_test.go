package bot_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/sessions"
)

// scriptedAI plays the columns of queue in turn, then the first column of
// prefer that is open (else the leftmost open one), and fails its first
// fails calls as an engine out of time would. Analyze is the real engine's.
type scriptedAI struct {
	mu     sync.Mutex
	queue  []int
	prefer []int
	fails  int
	calls  int
	levels []ai.Level
	engine *ai.Engine
}

func (s *scriptedAI) Move(ctx context.Context, m *game.Match, level ai.Level) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.levels = append(s.levels, level)
	if s.fails > 0 {
		s.fails--
		return 0, context.DeadlineExceeded
	}
	r := m.Round()
	if len(s.queue) > 0 {
		c := s.queue[0]
		s.queue = s.queue[1:]
		return c, nil
	}
	for _, c := range append(append([]int(nil), s.prefer...), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) {
		if r.CanDrop(c) {
			return c, nil
		}
	}
	return 0, game.ErrColumnFull
}

func (s *scriptedAI) Analyze(ctx context.Context, cfg game.Config, r *game.Round) (*ai.Analysis, error) {
	return s.engine.Analyze(ctx, cfg, r)
}

func (s *scriptedAI) Evaluate(ctx context.Context, cfg game.Config, moves []int) ([]ai.ColumnValue, error) {
	return s.engine.Evaluate(ctx, cfg, moves)
}

func newAIEnv(t *testing.T, a *scriptedAI, opts ...bot.Option) *env {
	t.Helper()
	if a.engine == nil {
		a.engine = ai.NewEngine(ai.Options{TableMB: 4, Workers: 1})
	}
	return newEnv(t, append([]bot.Option{bot.WithAI(a)}, opts...)...)
}

func TestPlayTheBot(t *testing.T) {
	rec := &metricsRecorder{}
	// Round 1: Alice 1, bot 4, Alice 1, bot 3, Alice 1 wins. Round 2: bot 4
	// (it opens), Alice 1, bot 4, Alice 1, bot 3, Alice 1 wins.
	a := &scriptedAI{queue: []int{3, 2, 3, 3, 2}}
	e := newAIEnv(t, a, bot.WithMetrics(rec))
	resp := e.send(slash(alice, "challenge", "rows", 4, "columns", 4, "connect", 3, "wins", 2, "level", "medium"))
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data.Flags != 0 {
		t.Fatalf("a match against the bot answered type %d flags %d: %q", resp.Type, resp.Data.Flags, text(resp))
	}
	mustContain(t, "board against the bot", text(resp), "🔴 **Alice** 0 – 0 **Connect N** 🟡", "Alice** to play",
		"first to win 2 rounds · against the bot (medium)")
	if got := labels(resp.Data.Components); got != "1 2 3 4 Forfeit match" {
		t.Errorf("buttons %q", got)
	}
	s := e.session()
	if s.Phase != sessions.PhasePlaying || s.AI != "medium" || s.Players[1].ID != appID {
		t.Fatalf("session phase %q ai %q bot %q", s.Phase, s.AI, s.Players[1].ID)
	}
	// Alice drops in column 1; the bot answers in the same response, and
	// its disc is the one marked as last played.
	resp = e.click(alice, e.board(), "1")
	mustUpdate(t, resp)
	mustContain(t, "board after the bot's reply", text(resp), "⬇️ Last disc: 🟡 column 4", "Alice** to play")
	if got := gridCells(text(resp), "⬇️"); got != 1 || !strings.Contains(text(resp), "1️⃣2️⃣3️⃣⬇️\n") {
		t.Errorf("%d last-disc marks, want 1, over the bot's column 4:\n%s", got, text(resp))
	}
	if s := e.session(); s.Match.Plies() != 2 {
		t.Fatalf("%d plies after one click, want the bot's reply too", s.Match.Plies())
	}
	// Alice wins round 1 in column 1; round 2 is the bot's to open: its
	// disc is on the new board when it is posted.
	e.play(alice, alice, "1", "1")
	if s := e.session(); s.Match.Round().Number() != 2 {
		t.Fatalf("round %d, want 2", s.Match.Round().Number())
	}
	msgs := e.public()
	if len(msgs) != 2 {
		t.Fatalf("%d messages after round 1, want the record and round 2", len(msgs))
	}
	mustContain(t, "round 2 board", messageText(msgs[1]), "Round 2", "Alice** to play", "⬇️ Last disc: 🟡 column 4")
	// Alice wins round 2 as well: the match counts against the bot, apart.
	e.play(alice, alice, "1", "1", "1")
	mustContain(t, "final message", messageText(e.board()), "🔴 **Alice** 2 – 0 **Connect N** 🟡", "🏆 🔴 **Alice** wins round 2 and the match!")
	if strings.Contains(messageText(e.board()), "Matches between them") {
		t.Errorf("a record between a member and the bot is shown")
	}
	vsBot, _ := e.store.Stats(context.Background(), guildID, aliceID, true)
	vsMembers, _ := e.store.Stats(context.Background(), guildID, aliceID, false)
	if vsBot.Wins != 1 || vsMembers.Matches != 0 {
		t.Errorf("stats against the bot %+v, against members %+v", vsBot, vsMembers)
	}
	mustContain(t, "stats", text(e.send(slash(carol, "stats", "user", alice))), "Alice vs Connect N: **1–0**")
	mustContain(t, "leaderboard", text(e.send(slash(carol, "leaderboard"))), "No match has finished")
	for _, l := range a.levels {
		if l != ai.Medium {
			t.Fatalf("the bot played at %v, want medium", l)
		}
	}
}

func TestChallengeTheBotByName(t *testing.T) {
	me := user{ID: appID, Username: "connectn", Bot: true}
	e := newAIEnv(t, &scriptedAI{})
	resp := e.send(slash(alice, "challenge", "opponent", me, "first", "opponent"))
	mustContain(t, "board", text(resp), "Alice** to play", "⬇️ Last disc: 🟡 column 1", "against the bot (hard)")
	if s := e.session(); s.Match.Plies() != 1 || s.Config.FirstOpener != game.Player2 {
		t.Fatalf("the bot did not open: %d plies", s.Match.Plies())
	}
	mustPrivate(t, e.send(slash(bob, "challenge", "opponent", robot)), "Bots can't accept")
	mustPrivate(t, e.send(slash(bob, "challenge", "opponent", carol)), "already has a challenge or a match")
}

// TestBotRepliesLate: when the bot cannot reply inside the response, the
// response is a deferred update and the reply edits the board once made;
// when it cannot reply then either, the scheduler plays it.
func TestBotRepliesLate(t *testing.T) {
	a := &scriptedAI{}
	e := newAIEnv(t, a)
	e.send(slash(alice, "challenge", "wins", 1))
	board := e.board()
	a.fails = 1
	resp := e.click(alice, board, "4")
	if resp.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("got response type %d, want a deferred update (6)", resp.Type)
	}
	got := e.message(board.ID)
	mustContain(t, "board after the late reply", messageText(got), "Alice** to play", "⬇️ Last disc: 🟡 column 1")
	if s := e.session(); s.Match.Plies() != 2 {
		t.Fatalf("%d plies, want 2", s.Match.Plies())
	}

	a.fails = 2 // inline and after the response
	resp = e.click(alice, e.message(board.ID), "4")
	if resp.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("got response type %d, want a deferred update", resp.Type)
	}
	if s := e.session(); s.Match.Plies() != 3 || !s.Deadline.Equal(e.clock.Now()) {
		t.Fatalf("after two failures: %d plies, deadline %v; want 3 and due now", s.Match.Plies(), s.Deadline)
	}
	if n := e.runDue(); n != 1 {
		t.Fatalf("RunDue settled %d, want the bot's turn", n)
	}
	if s := e.session(); s.Match.Plies() != 4 || s.Phase != sessions.PhasePlaying || s.End != "" {
		t.Fatalf("after the scheduler: %d plies, phase %q, end %q; want the bot's move and no timeout", s.Match.Plies(), s.Phase, s.End)
	}
	mustContain(t, "board after the scheduler's move", messageText(e.message(board.ID)), "Alice** to play", "⬇️ Last disc: 🟡 column 1 · Longest run: 🔴 **2** · 🟡 **2**")
	// Much later, the bot's turn never times out: it is Alice's turn now,
	// and hers does.
	e.clock.Advance(time.Hour)
	e.runDue()
	if s := e.session(); s.End != sessions.EndTimeout || s.Match.Winner() != game.Player2 {
		t.Fatalf("end %q, winner %v, want Alice's timeout", s.End, s.Match.Winner())
	}
}

func TestAnalysis(t *testing.T) {
	e := newAIEnv(t, &scriptedAI{prefer: []int{3}})
	e.send(slash(alice, "challenge", "rows", 4, "columns", 5, "connect", 3, "wins", 1))
	e.play(alice, alice, "1", "1", "1") // the bot answers in column 4 each time
	final := e.board()
	if got := labels(final.Components); got != "Rematch Picture Analysis" {
		t.Fatalf("buttons %q, want Rematch Picture Analysis", got)
	}
	resp := e.click(carol, final, "Analysis")
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("Analysis answered type %d flags %d, want a deferred private message", resp.Type, resp.Data.Flags)
	}
	got := e.lastPrivate()
	if len(got.Embeds) != 2 || got.Embeds[1].Image == nil {
		t.Fatalf("analysis message %q has %d embeds, want the review and its chart", got.Content, len(got.Embeds))
	}
	desc := got.Embeds[0].Description
	mustContain(t, "analysis", got.Embeds[0].Title+"\n"+desc, "Analysis of round 1", "From the empty board, 🔴 **Alice** (who opens) wins with perfect play.",
		"` 1.` 🔴 column 1", "` 5.` 🔴 column 1 — ✅ kept the win")
	if n := strings.Count(desc, "\n`"); n != 5 {
		t.Errorf("%d move lines, want 5:\n%s", n, desc)
	}
	// On a board the solver cannot settle, there is no Analysis.
	e2 := newAIEnv(t, &scriptedAI{prefer: []int{3}})
	e2.send(slash(alice, "challenge", "rows", 12, "columns", 12, "connect", 3, "wins", 1))
	e2.play(alice, alice, "A", "A", "A")
	if got := labels(e2.board().Components); got != "Rematch Picture" {
		t.Errorf("12x12 buttons %q, want no Analysis", got)
	}
}

// TestBotWithTheRealEngine plays a whole match against the engine at every
// level on a small board, the human always dropping in the leftmost open
// column: the bot answers every click inside the response and wins.
func TestBotWithTheRealEngine(t *testing.T) {
	for _, level := range ai.Levels() {
		t.Run(level.String(), func(t *testing.T) {
			engine := ai.NewEngine(ai.Options{TableMB: 4, Workers: 2, Seed: 7})
			e := newEnv(t, bot.WithAI(engine))
			e.send(slash(alice, "challenge", "rows", 5, "columns", 5, "connect", 4, "wins", 1, "level", level.String()))
			for k := 0; k < 25 && e.session().Phase == sessions.PhasePlaying; k++ {
				b := e.board()
				var col string
				for _, btn := range buttons(b.Components) {
					if !btn.Disabled && btn.Label != "Forfeit match" {
						col = btn.Label
						break
					}
				}
				resp := e.click(alice, b, col)
				if resp.Type != discordgo.InteractionResponseUpdateMessage {
					t.Fatalf("move %d: response type %d (%q)", k, resp.Type, text(resp))
				}
			}
			s := e.session()
			if s.Phase != sessions.PhaseFinished {
				t.Fatalf("the match did not end: phase %q", s.Phase)
			}
			if level >= ai.Medium && s.Match.Winner() != game.Player2 {
				t.Errorf("at %v the bot lost to the leftmost-column player", level)
			}
		})
	}
}
