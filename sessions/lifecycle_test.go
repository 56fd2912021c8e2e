package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// The times of the tests: t0 is when every session is opened (and a
// challenge accepted); a test acts at t0 plus some minutes.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// matchID is the ID the store gave every session of the tests.
const matchID = 7

// theBot is this bot's member in a match against it.
var theBot = sessions.Member{ID: "900000000000000009", Name: "ConnectN"}

// errBotSlow is what a fake Mover fails with.
var errBotSlow = errors.New("engine too slow")

// policy returns timeouts that all differ, so that a test sees which one
// was used: 3 minutes for a challenge, 7 for a turn, 5 s of grace and 30
// of lease for a board post.
func policy() sessions.Policy {
	return sessions.Policy{
		ChallengeTimeout: 3 * time.Minute,
		TurnTimeout:      7 * time.Minute,
		PostGrace:        5 * time.Second,
		PostLease:        30 * time.Second,
	}
}

// small returns a 4×4 board, connect 3, alternate openers, Player1 opening,
// with wins round wins taking the match.
func small(wins int) game.Config {
	return game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: wins, Openers: game.Alternate, FirstOpener: game.Player1}
}

// tiny returns a board of one row of three, connect 3, one round win
// taking the match: x o x fills it, a draw.
func tiny() game.Config {
	return game.Config{Rows: 1, Columns: 3, Connect: 3, Wins: 1, Openers: game.Alternate, FirstOpener: game.Player1}
}

// hook returns the webhook of an interaction named name at when, whose
// response is the board message.
func hook(name string, when time.Time) sessions.Webhook {
	return sessions.Webhook{AppID: "app", Token: "token-" + name, Message: "@original", At: when}
}

// memberChallenge returns alice's challenge to bob on cfg.
func memberChallenge(cfg game.Config) sessions.Challenge {
	return sessions.Challenge{
		ChannelID: "channel", GuildID: "guild",
		Challenger: alice, Opponent: bob,
		Config: cfg, Theme: "classic",
		Webhook: hook("challenge", t0),
	}
}

// botChallenge returns alice's challenge to the bot, at level "easy", on cfg.
func botChallenge(cfg game.Config) sessions.Challenge {
	c := memberChallenge(cfg)
	c.Opponent, c.OpponentIsBot, c.AI = theBot, true, "easy"
	return c
}

// mustOpen opens c at t0 and gives it matchID, as the store would.
func mustOpen(t *testing.T, c sessions.Challenge) *sessions.Session {
	t.Helper()
	s, err := sessions.Open(c, policy(), t0)
	if err != nil {
		t.Fatalf("Open(%+v): %v", c, err)
	}
	s.ID = matchID
	return s
}

// drop drops discs in columns (from 0), each by the player to move, straight
// into s's match.
func drop(t *testing.T, s *sessions.Session, columns ...int) {
	t.Helper()
	for _, c := range columns {
		if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
			t.Fatalf("play column %d (from 0) after %v: %v", c, s.Match.Actions(), err)
		}
	}
}

// newChallenge returns alice's challenge to bob on a small board, opened
// at t0: it runs out at t0+3m.
func newChallenge(t *testing.T) *sessions.Session {
	t.Helper()
	return mustOpen(t, memberChallenge(small(1)))
}

// newMatch returns alice's match against bob on cfg, accepted at t0 on
// message "m1" (its turn runs out at t0+7m), with discs dropped in columns
// (from 0).
func newMatch(t *testing.T, cfg game.Config, columns ...int) *sessions.Session {
	t.Helper()
	s := mustOpen(t, memberChallenge(cfg))
	if err := s.Accept(bob, "m1", hook("accept", t0), t0, policy()); err != nil {
		t.Fatalf("Accept: %v", err)
	}
	drop(t, s, columns...)
	return s
}

// newBotMatch returns alice's match against the bot on cfg, opened at t0
// (its turn runs out at t0+7m), with discs dropped in columns (from 0).
func newBotMatch(t *testing.T, cfg game.Config, columns ...int) *sessions.Session {
	t.Helper()
	s := mustOpen(t, botChallenge(cfg))
	drop(t, s, columns...)
	return s
}

// finished returns s with its match forfeited by p.
func finished(t *testing.T, s *sessions.Session, p game.Player) *sessions.Session {
	t.Helper()
	if err := s.Match.Forfeit(p); err != nil {
		t.Fatalf("Forfeit(%v): %v", p, err)
	}
	s.Phase, s.End = sessions.PhaseFinished, sessions.EndForfeit
	return s
}

// cancelled returns s as a declined challenge.
func cancelled(s *sessions.Session) *sessions.Session {
	s.Phase, s.End = sessions.PhaseCancelled, sessions.EndDeclined
	return s
}

// legacy returns s as stored before deadlines existed: no Deadline, last
// changed at t0.
func legacy(s *sessions.Session) *sessions.Session {
	s.Deadline, s.UpdatedAt = time.Time{}, t0
	return s
}

// describe prints s with its match's actions instead of its pointer.
func describe(s *sessions.Session) string {
	c := *s
	c.Match = nil
	return fmt.Sprintf("%+v actions=%v", c, s.Match.Actions())
}

// assertUnchanged fails the test when got differs from before.
func assertUnchanged(t *testing.T, got, before *sessions.Session) {
	t.Helper()
	if !reflect.DeepEqual(got, before) {
		t.Errorf("session changed:\n got  %s\n want %s", describe(got), describe(before))
	}
}

// assertErr fails the test unless err is a refusal for wantReason (when
// set), or wraps wantErr (when set), or is nil (when neither is).
func assertErr(t *testing.T, err error, wantReason sessions.Reason, wantErr error) {
	t.Helper()
	switch {
	case wantReason != sessions.Reason{}:
		if !sessions.IsRefusal(err, wantReason) {
			t.Errorf("error = %v, want refusal %q", err, wantReason)
		}
	case wantErr != nil:
		if !errors.Is(err, wantErr) {
			t.Errorf("error = %v, want %v", err, wantErr)
		}
	case err != nil:
		t.Errorf("error = %v, want nil", err)
	}
}

// state is what the lifecycle changes in a session, in one comparable value.
type state struct {
	Phase     sessions.Phase
	End       sessions.End
	Deadline  time.Time
	PostSeq   int
	PostDue   time.Time
	MessageID string
	Webhook   sessions.Webhook
	Plies     int
	Round     int
	ToMove    game.Player
}

func stateOf(s *sessions.Session) state {
	return state{
		Phase: s.Phase, End: s.End, Deadline: s.Deadline,
		PostSeq: s.PostSeq, PostDue: s.PostDue, MessageID: s.MessageID, Webhook: s.Webhook,
		Plies: s.Match.Plies(), Round: s.Match.Round().Number(), ToMove: s.Match.ToMove(),
	}
}

// fakeMover is a Mover that plays columns (from 0) in order, then the
// leftmost column that is not full; from call failFrom on (counted from
// 1; 0 for never) it fails with errBotSlow.
type fakeMover struct {
	columns  []int
	failFrom int

	calls      int
	levels     []string
	noDeadline bool // a call came without a deadline
}

func (f *fakeMover) move(ctx context.Context, m *game.Match, level string) (int, error) {
	f.calls++
	f.levels = append(f.levels, level)
	if _, ok := ctx.Deadline(); !ok {
		f.noDeadline = true
	}
	if f.failFrom > 0 && f.calls >= f.failFrom {
		return 0, errBotSlow
	}
	if len(f.columns) > 0 {
		c := f.columns[0]
		f.columns = f.columns[1:]
		return c, nil
	}
	for c := range m.Round().Columns() {
		if m.Round().CanDrop(c) {
			return c, nil
		}
	}
	return 0, errors.New("fake mover: the board is full")
}

// bot returns the Bot that moves with f, or the zero Bot for a nil f.
func (f *fakeMover) bot() sessions.Bot {
	if f == nil {
		return sessions.Bot{}
	}
	return sessions.Bot{Move: f.move, Budget: time.Second}
}

// clicked is click c made by user through the interaction h.
func clicked(c sessions.Click, user string, h sessions.Webhook) sessions.Click {
	c.User, c.Hook = user, h
	return c
}

func TestDefaultPolicy(t *testing.T) {
	got := sessions.DefaultPolicy()
	want := sessions.Policy{ChallengeTimeout: 5 * time.Minute, TurnTimeout: 5 * time.Minute,
		PostGrace: 5 * time.Second, PostLease: 30 * time.Second}
	if got != want {
		t.Errorf("DefaultPolicy() = %+v, want %+v", got, want)
	}
}

func TestBotToMove(t *testing.T) {
	botOpens := small(1)
	botOpens.FirstOpener = game.Player2
	tests := []struct {
		name string
		s    func(t *testing.T) *sessions.Session
		want bool
	}{
		{"the member's turn", func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1)) }, false},
		{"the bot's turn", func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) }, true},
		{"the bot opens", func(t *testing.T) *sessions.Session { return newBotMatch(t, botOpens) }, true},
		{"a match between members, Player2 to move", func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 0) }, false},
		{"the bot's turn in a match that is not being played", func(t *testing.T) *sessions.Session {
			s := newBotMatch(t, small(1), 0)
			s.Phase = sessions.PhaseCancelled
			return s
		}, false},
		{"a match against the bot that is over", func(t *testing.T) *sessions.Session {
			return finished(t, newBotMatch(t, small(1), 0), game.Player1)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s(t).BotToMove(); got != tt.want {
				t.Errorf("BotToMove() = %t, want %t", got, tt.want)
			}
		})
	}
}

func TestDeadlineAt(t *testing.T) {
	tests := []struct {
		name string
		s    func(t *testing.T) *sessions.Session
		want time.Time
	}{
		{"a challenge's deadline", newChallenge, at(3 * time.Minute)},
		{"a turn's deadline", func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) }, at(7 * time.Minute)},
		{"a legacy challenge: last change plus the challenge timeout", func(t *testing.T) *sessions.Session {
			return legacy(newChallenge(t))
		}, at(3 * time.Minute)},
		{"a legacy match: last change plus the turn timeout", func(t *testing.T) *sessions.Session {
			return legacy(newMatch(t, small(1)))
		}, at(7 * time.Minute)},
		{"a deadline before the last change", func(t *testing.T) *sessions.Session {
			s := newMatch(t, small(1))
			s.UpdatedAt = at(time.Hour)
			return s
		}, at(7 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s(t).DeadlineAt(policy()); !got.Equal(tt.want) {
				t.Errorf("DeadlineAt() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExpire(t *testing.T) {
	tests := []struct {
		name       string
		s          func(t *testing.T) *sessions.Session
		now        time.Time
		want       sessions.Expiry
		wantPhase  sessions.Phase
		wantEnd    sessions.End
		wantWinner game.Player
	}{
		{name: "a challenge before its deadline", s: newChallenge, now: at(3*time.Minute - time.Nanosecond), want: sessions.ExpiryNone},
		{name: "a challenge at its deadline", s: newChallenge, now: at(3 * time.Minute),
			want: sessions.ExpiryChallenge, wantPhase: sessions.PhaseCancelled, wantEnd: sessions.EndExpired},
		{name: "a challenge long after its deadline", s: newChallenge, now: at(24 * time.Hour),
			want: sessions.ExpiryChallenge, wantPhase: sessions.PhaseCancelled, wantEnd: sessions.EndExpired},
		{name: "a turn before its deadline", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 0) },
			now: at(7*time.Minute - time.Nanosecond), want: sessions.ExpiryNone},
		{name: "Player2's turn at its deadline", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 0) },
			now: at(7 * time.Minute), want: sessions.ExpiryTurn, wantPhase: sessions.PhaseFinished, wantEnd: sessions.EndTimeout, wantWinner: game.Player1},
		{name: "Player1's turn after its deadline", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			now: at(time.Hour), want: sessions.ExpiryTurn, wantPhase: sessions.PhaseFinished, wantEnd: sessions.EndTimeout, wantWinner: game.Player2},
		{name: "the bot's turn never runs out", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			now: at(24 * time.Hour), want: sessions.ExpiryNone},
		{name: "the bot's opening never runs out", s: func(t *testing.T) *sessions.Session {
			cfg := small(1)
			cfg.FirstOpener = game.Player2
			return newBotMatch(t, cfg)
		}, now: at(24 * time.Hour), want: sessions.ExpiryNone},
		{name: "the member's turn against the bot runs out", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1)) },
			now: at(7 * time.Minute), want: sessions.ExpiryTurn, wantPhase: sessions.PhaseFinished, wantEnd: sessions.EndTimeout, wantWinner: game.Player2},
		{name: "a legacy challenge before the challenge timeout", s: func(t *testing.T) *sessions.Session { return legacy(newChallenge(t)) },
			now: at(3*time.Minute - time.Nanosecond), want: sessions.ExpiryNone},
		{name: "a legacy challenge after the challenge timeout", s: func(t *testing.T) *sessions.Session { return legacy(newChallenge(t)) },
			now: at(3 * time.Minute), want: sessions.ExpiryChallenge, wantPhase: sessions.PhaseCancelled, wantEnd: sessions.EndExpired},
		{name: "a legacy turn after the challenge timeout, before the turn timeout", s: func(t *testing.T) *sessions.Session {
			return legacy(newMatch(t, small(1)))
		}, now: at(7*time.Minute - time.Nanosecond), want: sessions.ExpiryNone},
		{name: "a legacy turn after the turn timeout", s: func(t *testing.T) *sessions.Session { return legacy(newMatch(t, small(1))) },
			now: at(7 * time.Minute), want: sessions.ExpiryTurn, wantPhase: sessions.PhaseFinished, wantEnd: sessions.EndTimeout, wantWinner: game.Player2},
		{name: "a legacy bot's turn never runs out", s: func(t *testing.T) *sessions.Session { return legacy(newBotMatch(t, small(1), 0)) },
			now: at(24 * time.Hour), want: sessions.ExpiryNone},
		{name: "a finished match", s: func(t *testing.T) *sessions.Session { return finished(t, newMatch(t, small(1)), game.Player1) },
			now: at(24 * time.Hour), want: sessions.ExpiryNone},
		{name: "a cancelled challenge", s: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			now: at(24 * time.Hour), want: sessions.ExpiryNone},
		{name: "a match over but still marked playing", s: func(t *testing.T) *sessions.Session {
			s := newMatch(t, small(1))
			if err := s.Match.Forfeit(game.Player1); err != nil {
				t.Fatal(err)
			}
			return s
		}, now: at(24 * time.Hour), want: sessions.ExpiryNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			got := s.Expire(tt.now, policy())
			if got != tt.want {
				t.Fatalf("Expire() = %q, want %q", got, tt.want)
			}
			if got == sessions.ExpiryNone {
				assertUnchanged(t, s, before)
				return
			}
			if s.Phase != tt.wantPhase || s.End != tt.wantEnd {
				t.Errorf("phase, end = %q, %q, want %q, %q", s.Phase, s.End, tt.wantPhase, tt.wantEnd)
			}
			if got := s.Match.Winner(); got != tt.wantWinner {
				t.Errorf("winner = %v, want %v", got, tt.wantWinner)
			}
			if tt.want == sessions.ExpiryTurn && !s.Match.Forfeited() {
				t.Errorf("match not forfeited: %v", s.Match.Actions())
			}
			if tt.want == sessions.ExpiryChallenge && s.Match.Plies() != 0 {
				t.Errorf("plies = %d, want 0", s.Match.Plies())
			}
		})
	}
}

func TestTouch(t *testing.T) {
	tests := []struct {
		name      string
		s         func(t *testing.T) *sessions.Session
		match     int64
		now       time.Time
		want      sessions.Expiry
		wantErr   error
		wantStale bool
		wantPhase sessions.Phase // when want is not ExpiryNone
	}{
		{name: "a live challenge", s: newChallenge, match: matchID, now: at(time.Minute), want: sessions.ExpiryNone},
		{name: "a live match", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			match: matchID, now: at(time.Minute), want: sessions.ExpiryNone},
		{name: "another session", s: newChallenge, match: matchID + 1, now: at(time.Minute), wantStale: true},
		{name: "another session, past its deadline: nothing settled", s: newChallenge, match: matchID + 1, now: at(time.Hour), wantStale: true},
		{name: "another session that is over", s: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			match: matchID - 1, now: at(time.Minute), wantStale: true},
		{name: "a finished match", s: func(t *testing.T) *sessions.Session { return finished(t, newMatch(t, small(1)), game.Player2) },
			match: matchID, now: at(time.Minute), wantErr: sessions.ErrOver},
		{name: "a cancelled challenge, past its deadline", s: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			match: matchID, now: at(time.Hour), wantErr: sessions.ErrOver},
		{name: "a challenge past its deadline", s: newChallenge, match: matchID, now: at(3 * time.Minute),
			want: sessions.ExpiryChallenge, wantPhase: sessions.PhaseCancelled},
		{name: "a turn past its deadline", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			match: matchID, now: at(7 * time.Minute), want: sessions.ExpiryTurn, wantPhase: sessions.PhaseFinished},
		{name: "the bot's turn past its deadline", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			match: matchID, now: at(time.Hour), want: sessions.ExpiryNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			got, err := s.Touch(tt.match, tt.now, policy())
			if tt.wantStale {
				assertErr(t, err, sessions.ReasonStale, nil)
			} else {
				assertErr(t, err, sessions.Reason{}, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Touch() = %q, want %q", got, tt.want)
			}
			if got == sessions.ExpiryNone {
				assertUnchanged(t, s, before)
			} else if s.Phase != tt.wantPhase {
				t.Errorf("phase = %q, want %q", s.Phase, tt.wantPhase)
			}
		})
	}
}
