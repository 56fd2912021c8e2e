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

// link names the live board message of s, "" while it is not known.
func link(s *sessions.Session) string {
	if s.MessageID == "" {
		return ""
	}
	return "https://discord.com/channels/" + s.GuildID + "/" + s.ChannelID + "/" + s.MessageID
}

func TestDefaultPolicy(t *testing.T) {
	got := sessions.DefaultPolicy()
	want := sessions.Policy{ChallengeTimeout: 5 * time.Minute, TurnTimeout: 5 * time.Minute,
		PostGrace: 5 * time.Second, PostLease: 30 * time.Second}
	if got != want {
		t.Errorf("DefaultPolicy() = %+v, want %+v", got, want)
	}
}

func TestOpen(t *testing.T) {
	noOpener := small(1)
	noOpener.FirstOpener = game.NoPlayer
	tests := []struct {
		name          string
		c             sessions.Challenge
		wantPhase     sessions.Phase
		wantAI        string
		wantDeadline  time.Time
		wantOpponent  sessions.Member
		wantConfig    game.Config
		wantRefusal   sessions.Reason
		wantGameError error
	}{
		{
			name: "a member challenges a member", c: memberChallenge(small(2)),
			wantPhase: sessions.PhaseChallenge, wantDeadline: at(3 * time.Minute), wantOpponent: bob, wantConfig: small(2),
		},
		{
			name: "the first opener is filled in", c: memberChallenge(noOpener),
			wantPhase: sessions.PhaseChallenge, wantDeadline: at(3 * time.Minute), wantOpponent: bob, wantConfig: small(1),
		},
		{
			name: "a member challenges the bot: the match starts", c: botChallenge(small(1)),
			wantPhase: sessions.PhasePlaying, wantAI: "easy", wantDeadline: at(7 * time.Minute), wantOpponent: theBot, wantConfig: small(1),
		},
		{
			name: "the bot is never a self-challenge", c: func() sessions.Challenge {
				c := botChallenge(small(1))
				c.Opponent = alice
				return c
			}(),
			wantPhase: sessions.PhasePlaying, wantAI: "easy", wantDeadline: at(7 * time.Minute), wantOpponent: alice, wantConfig: small(1),
		},
		{
			name: "a member challenges themself", c: func() sessions.Challenge {
				c := memberChallenge(small(1))
				c.Opponent = alice
				return c
			}(),
			wantRefusal: sessions.ReasonSelfChallenge,
		},
		{
			name: "a member challenges themself, as a bot account", c: func() sessions.Challenge {
				c := memberChallenge(small(1))
				c.Opponent, c.OpponentIsBot = alice, true
				return c
			}(),
			wantRefusal: sessions.ReasonSelfChallenge,
		},
		{
			name: "a member challenges another bot", c: func() sessions.Challenge {
				c := memberChallenge(small(1))
				c.OpponentIsBot = true
				return c
			}(),
			wantRefusal: sessions.ReasonBotOpponent,
		},
		{
			name: "impossible settings", c: memberChallenge(game.Config{Rows: 4, Columns: 4, Connect: 5, Wins: 1}),
			wantRefusal: sessions.ReasonBadSettings, wantGameError: game.ErrInvalidConfig,
		},
		{
			name: "impossible settings against the bot", c: botChallenge(game.Config{Rows: 0, Columns: 4, Connect: 3, Wins: 1}),
			wantRefusal: sessions.ReasonBadSettings, wantGameError: game.ErrInvalidConfig,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.Place = sessions.Place{Locale: "pl", Thread: true}
			s, err := sessions.Open(tt.c, policy(), t0)
			if tt.wantRefusal != (sessions.Reason{}) {
				assertErr(t, err, tt.wantRefusal, nil)
				if tt.wantGameError != nil && !errors.Is(err, tt.wantGameError) {
					t.Errorf("error = %v, want it to wrap %v too", err, tt.wantGameError)
				}
				if s != nil {
					t.Errorf("session = %s, want nil", describe(s))
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			got := *s
			got.Match = nil
			want := sessions.Session{
				ChannelID: "channel", GuildID: "guild",
				Players:  [2]sessions.Member{alice, tt.wantOpponent},
				Config:   tt.wantConfig,
				Phase:    tt.wantPhase,
				Theme:    "classic",
				AI:       tt.wantAI,
				Deadline: tt.wantDeadline,
				Webhook:  hook("challenge", t0),
				Place:    sessions.Place{Locale: "pl", Thread: true},
			}
			if got != want {
				t.Errorf("Open() = %+v, want %+v", got, want)
			}
			if s.Match == nil || s.Match.Config() != tt.wantConfig || s.Match.Plies() != 0 {
				t.Errorf("Open() match = %v, want a new match of %+v", s.Match, tt.wantConfig)
			}
		})
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

func TestAccept(t *testing.T) {
	now := at(time.Minute)
	h := hook("accept", now)
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		user        string
		wantRefusal sessions.Reason
	}{
		{name: "the opponent accepts", s: newChallenge, user: bob.ID},
		{name: "the challenger", s: newChallenge, user: alice.ID, wantRefusal: sessions.ReasonOwnChallenge},
		{name: "someone else", s: newChallenge, user: carol.ID, wantRefusal: sessions.ReasonNotForYou},
		{name: "no user", s: newChallenge, user: "", wantRefusal: sessions.ReasonNotForYou},
		{name: "a match already", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			user: bob.ID, wantRefusal: sessions.ReasonStale},
		{name: "someone else, on a match already", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			user: carol.ID, wantRefusal: sessions.ReasonStale},
		{name: "a declined challenge", s: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			user: bob.ID, wantRefusal: sessions.ReasonStale},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			err := s.Accept(sessions.Member{ID: tt.user, Name: "X"}, "m1", h, now, policy())
			assertErr(t, err, tt.wantRefusal, nil)
			if err != nil {
				assertUnchanged(t, s, before)
				return
			}
			want := state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), MessageID: "m1", Webhook: h,
				Round: 1, ToMove: game.Player1}
			if got := stateOf(s); got != want {
				t.Errorf("after Accept:\n got  %+v\n want %+v", got, want)
			}
		})
	}
}

func TestDecline(t *testing.T) {
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		user        string
		wantEnd     sessions.End
		wantRefusal sessions.Reason
	}{
		{name: "the opponent declines", s: newChallenge, user: bob.ID, wantEnd: sessions.EndDeclined},
		{name: "the challenger withdraws", s: newChallenge, user: alice.ID, wantEnd: sessions.EndWithdrawn},
		{name: "someone else", s: newChallenge, user: carol.ID, wantRefusal: sessions.ReasonNotForYou},
		{name: "no user", s: newChallenge, user: "", wantRefusal: sessions.ReasonNotForYou},
		{name: "a match already", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			user: bob.ID, wantRefusal: sessions.ReasonStale},
		{name: "someone else, on a declined challenge", s: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			user: carol.ID, wantRefusal: sessions.ReasonStale},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			err := s.Decline(tt.user)
			assertErr(t, err, tt.wantRefusal, nil)
			if err != nil {
				assertUnchanged(t, s, before)
				return
			}
			want := before.Clone()
			want.Phase, want.End = sessions.PhaseCancelled, tt.wantEnd
			assertUnchanged(t, s, want)
		})
	}
}

// dropSession returns alice's match against bob on small(1) on its third
// board post, live on message "m3", with discs dropped in columns 0, 0, 0
// and 0 (column 0 full): alice to move at ply 4.
func dropSession(t *testing.T) *sessions.Session {
	t.Helper()
	s := newMatch(t, small(1), 0, 0, 0, 0)
	s.PostSeq, s.MessageID = 2, "m3"
	return s
}

func TestDropRefusals(t *testing.T) {
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		user        string
		click       sessions.Click
		wantRefusal sessions.Reason
		wantArgs    []any
		wantGame    error
	}{
		{name: "a challenge", s: newChallenge, user: bob.ID, click: sessions.Click{Post: 0, Ply: 0, Column: 1},
			wantRefusal: sessions.ReasonStale},
		{name: "a challenge, by someone else on an older post", s: newChallenge, user: carol.ID, click: sessions.Click{Post: -1, Ply: 3, Column: 1},
			wantRefusal: sessions.ReasonStale},
		{name: "someone else", s: dropSession, user: carol.ID, click: sessions.Click{Post: 2, Ply: 4, Column: 2},
			wantRefusal: sessions.ReasonNotYourMatch},
		{name: "someone else, on an older post of another ply", s: dropSession, user: carol.ID, click: sessions.Click{Post: 1, Ply: 1, Column: 2},
			wantRefusal: sessions.ReasonNotYourMatch},
		{name: "no user", s: dropSession, user: "", click: sessions.Click{Post: 2, Ply: 4, Column: 2},
			wantRefusal: sessions.ReasonNotYourMatch},
		{name: "an older post", s: dropSession, user: alice.ID, click: sessions.Click{Post: 1, Ply: 4, Column: 2},
			wantRefusal: sessions.ReasonMovedTo, wantArgs: []any{"Link", "https://discord.com/channels/guild/channel/m3"}},
		{name: "an older post of another ply", s: dropSession, user: bob.ID, click: sessions.Click{Post: 0, Ply: 2, Column: 2},
			wantRefusal: sessions.ReasonMovedTo, wantArgs: []any{"Link", "https://discord.com/channels/guild/channel/m3"}},
		{name: "a post the session has not reached", s: dropSession, user: alice.ID, click: sessions.Click{Post: 3, Ply: 4, Column: 2},
			wantRefusal: sessions.ReasonMovedTo, wantArgs: []any{"Link", "https://discord.com/channels/guild/channel/m3"}},
		{name: "an older post, the live message not known yet", s: func(t *testing.T) *sessions.Session {
			s := dropSession(t)
			s.MessageID = ""
			return s
		}, user: alice.ID, click: sessions.Click{Post: 1, Ply: 4, Column: 2}, wantRefusal: sessions.ReasonMoved},
		{name: "another ply", s: dropSession, user: alice.ID, click: sessions.Click{Post: 2, Ply: 3, Column: 2},
			wantRefusal: sessions.ReasonStaleBoardTo, wantArgs: []any{"Link", "https://discord.com/channels/guild/channel/m3"}},
		{name: "another ply, out of turn in a full column", s: dropSession, user: bob.ID, click: sessions.Click{Post: 2, Ply: 5, Column: 1},
			wantRefusal: sessions.ReasonStaleBoardTo, wantArgs: []any{"Link", "https://discord.com/channels/guild/channel/m3"}},
		{name: "another ply, the live message not known", s: func(t *testing.T) *sessions.Session {
			s := dropSession(t)
			s.MessageID = ""
			return s
		}, user: alice.ID, click: sessions.Click{Post: 2, Ply: 3, Column: 2}, wantRefusal: sessions.ReasonStaleBoard},
		{name: "not your turn", s: dropSession, user: bob.ID, click: sessions.Click{Post: 2, Ply: 4, Column: 2},
			wantRefusal: sessions.ReasonNotYourTurn, wantGame: game.ErrNotYourTurn},
		{name: "not your turn, in a full column", s: dropSession, user: bob.ID, click: sessions.Click{Post: 2, Ply: 4, Column: 1},
			wantRefusal: sessions.ReasonNotYourTurn, wantGame: game.ErrNotYourTurn},
		{name: "a full column", s: dropSession, user: alice.ID, click: sessions.Click{Post: 2, Ply: 4, Column: 1},
			wantRefusal: sessions.ReasonColumnFull, wantGame: game.ErrColumnFull},
		{name: "column 0", s: dropSession, user: alice.ID, click: sessions.Click{Post: 2, Ply: 4, Column: 0},
			wantRefusal: sessions.ReasonNoSuchColumn, wantGame: game.ErrColumnOutOfRange},
		{name: "a column right of the board", s: dropSession, user: alice.ID, click: sessions.Click{Post: 2, Ply: 4, Column: 5},
			wantRefusal: sessions.ReasonNoSuchColumn, wantGame: game.ErrColumnOutOfRange},
		{name: "a match over but still marked playing", s: func(t *testing.T) *sessions.Session {
			s := finished(t, newMatch(t, small(1), 0), game.Player2)
			s.Phase, s.End = sessions.PhasePlaying, sessions.EndNone
			return s
		}, user: alice.ID, click: sessions.Click{Post: 0, Ply: 2, Column: 2},
			wantRefusal: sessions.ReasonMatchEnded, wantGame: game.ErrMatchOver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			var mover fakeMover
			got, err := s.Drop(t.Context(), tt.user, tt.click, hook("drop", at(time.Minute)), mover.bot(), link, at(time.Minute), policy())
			assertErr(t, err, tt.wantRefusal, nil)
			if r, ok := sessions.AsRefusal(err); ok && !reflect.DeepEqual(r.Args, tt.wantArgs) {
				t.Errorf("refusal args = %v, want %v", r.Args, tt.wantArgs)
			}
			if tt.wantGame != nil && !errors.Is(err, tt.wantGame) {
				t.Errorf("error = %v, want it to wrap %v too", err, tt.wantGame)
			}
			if got != (sessions.Played{}) {
				t.Errorf("Drop() = %+v, want the zero Played", got)
			}
			if mover.calls != 0 {
				t.Errorf("the mover was called %d times, want 0", mover.calls)
			}
			assertUnchanged(t, s, before)
		})
	}
}

func TestDrop(t *testing.T) {
	now := at(2 * time.Minute)
	h := hook("drop", now)
	followUp := h
	followUp.Message = ""
	tests := []struct {
		name   string
		s      func(t *testing.T) *sessions.Session
		user   string
		column int // from 1
		want   sessions.Played
		wantS  state
	}{
		{
			name: "a disc", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) }, user: alice.ID, column: 2,
			want:  sessions.Played{Round: 1},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), MessageID: "m1", Webhook: h, Plies: 1, Round: 1, ToMove: game.Player2},
		},
		{
			name: "Player2's disc", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 3) }, user: bob.ID, column: 4,
			want:  sessions.Played{Round: 1},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), MessageID: "m1", Webhook: h, Plies: 2, Round: 1, ToMove: game.Player1},
		},
		{
			name: "a disc that wins a round", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(2), 0, 1, 0, 1) }, user: alice.ID, column: 1,
			want: sessions.Played{Round: 1, RoundEnded: true},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), PostSeq: 1, PostDue: now.Add(5 * time.Second),
				Webhook: followUp, Plies: 5, Round: 2, ToMove: game.Player2},
		},
		{
			name: "a disc that draws a round", s: func(t *testing.T) *sessions.Session { return newMatch(t, tiny(), 0, 1) }, user: alice.ID, column: 3,
			want: sessions.Played{Round: 1, RoundEnded: true},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), PostSeq: 1, PostDue: now.Add(5 * time.Second),
				Webhook: followUp, Plies: 3, Round: 2, ToMove: game.Player2},
		},
		{
			name: "a disc that wins the match", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 0, 1, 0, 1) }, user: alice.ID, column: 1,
			want: sessions.Played{Round: 1},
			wantS: state{Phase: sessions.PhaseFinished, End: sessions.EndWon, Deadline: at(7 * time.Minute), MessageID: "m1", Webhook: h,
				Plies: 5, Round: 1, ToMove: game.NoPlayer},
		},
		{
			name: "the disc that wins the second round and the match", s: func(t *testing.T) *sessions.Session {
				return newMatch(t, small(2), 0, 1, 0, 1, 0 /* alice wins round 1 */, 0, 1, 0, 1, 3)
			}, user: alice.ID, column: 2,
			want: sessions.Played{Round: 2},
			wantS: state{Phase: sessions.PhaseFinished, End: sessions.EndWon, Deadline: at(7 * time.Minute), MessageID: "m1", Webhook: h,
				Plies: 11, Round: 2, ToMove: game.NoPlayer},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: tt.column}
			got, err := s.Drop(t.Context(), tt.user, click, h, sessions.Bot{}, link, now, policy())
			if err != nil {
				t.Fatalf("Drop(%+v): %v", click, err)
			}
			if got != tt.want {
				t.Errorf("Drop() = %+v, want %+v", got, tt.want)
			}
			if got := stateOf(s); got != tt.wantS {
				t.Errorf("after Drop:\n got  %+v\n want %+v", got, tt.wantS)
			}
			if tt.wantS.Phase == sessions.PhaseFinished && s.Match.Winner() != s.PlayerOf(tt.user) {
				t.Errorf("winner = %v, want %v", s.Match.Winner(), s.PlayerOf(tt.user))
			}
		})
	}
}

func TestDropAgainstTheBot(t *testing.T) {
	now := at(2 * time.Minute)
	h := hook("drop", now)
	followUp := h
	followUp.Message = ""
	// In round 1 of roundEnd, alice has dropped in columns 0 and 2, the
	// bot twice in column 1: a third disc there wins the round for the bot.
	roundEnd := []int{0, 1, 2, 1}
	tests := []struct {
		name      string
		s         func(t *testing.T) *sessions.Session
		column    int // alice's, from 1
		mover     *fakeMover
		want      sessions.Played
		wantLate  error
		wantS     state
		wantCalls int
	}{
		{
			name: "the bot replies", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(2)) }, column: 1,
			mover:     &fakeMover{columns: []int{1}},
			want:      sessions.Played{Round: 1},
			wantS:     state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), Webhook: h, Plies: 2, Round: 1, ToMove: game.Player1},
			wantCalls: 1,
		},
		{
			name: "the bot cannot reply: its turn is due at once", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(2)) }, column: 1,
			mover: &fakeMover{failFrom: 1}, want: sessions.Played{Round: 1}, wantLate: errBotSlow,
			wantS:     state{Phase: sessions.PhasePlaying, Deadline: now, Webhook: h, Plies: 1, Round: 1, ToMove: game.Player2},
			wantCalls: 1,
		},
		{
			name: "no mover", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(2)) }, column: 1,
			mover: nil, want: sessions.Played{Round: 1}, wantLate: sessions.ErrNoBot,
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now, Webhook: h, Plies: 1, Round: 1, ToMove: game.Player2},
		},
		{
			name: "the bot picks a column off the board", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(2)) }, column: 1,
			mover: &fakeMover{columns: []int{4}}, want: sessions.Played{Round: 1}, wantLate: game.ErrColumnOutOfRange,
			wantS:     state{Phase: sessions.PhasePlaying, Deadline: now, Webhook: h, Plies: 1, Round: 1, ToMove: game.Player2},
			wantCalls: 1,
		},
		{
			name: "the bot's reply wins the round, and it opens the next", s: func(t *testing.T) *sessions.Session {
				return newBotMatch(t, small(2), roundEnd...)
			}, column: 4,
			mover: &fakeMover{columns: []int{1, 0}}, want: sessions.Played{Round: 1, RoundEnded: true},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), PostSeq: 1, PostDue: now.Add(5 * time.Second),
				Webhook: followUp, Plies: 7, Round: 2, ToMove: game.Player1},
			wantCalls: 2,
		},
		{
			name: "the bot's reply wins the round, and it cannot open the next", s: func(t *testing.T) *sessions.Session {
				return newBotMatch(t, small(2), roundEnd...)
			}, column: 4,
			mover: &fakeMover{columns: []int{1}, failFrom: 2}, want: sessions.Played{Round: 1, RoundEnded: true}, wantLate: errBotSlow,
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now, PostSeq: 1, PostDue: now.Add(5 * time.Second),
				Webhook: followUp, Plies: 6, Round: 2, ToMove: game.Player2},
			wantCalls: 2,
		},
		{
			name: "the bot's reply wins the match", s: func(t *testing.T) *sessions.Session {
				return newBotMatch(t, small(1), roundEnd...)
			}, column: 4,
			mover: &fakeMover{columns: []int{1}}, want: sessions.Played{Round: 1},
			wantS: state{Phase: sessions.PhaseFinished, End: sessions.EndWon, Deadline: at(7 * time.Minute), Webhook: h,
				Plies: 6, Round: 1, ToMove: game.NoPlayer},
			wantCalls: 1,
		},
		{
			name: "the member's disc wins the round, and the bot opens the next", s: func(t *testing.T) *sessions.Session {
				return newBotMatch(t, small(2), 0, 1, 0, 1)
			}, column: 1,
			mover: &fakeMover{}, want: sessions.Played{Round: 1, RoundEnded: true},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), PostSeq: 1, PostDue: now.Add(5 * time.Second),
				Webhook: followUp, Plies: 6, Round: 2, ToMove: game.Player1},
			wantCalls: 1,
		},
		{
			name: "the member's disc wins the match: the bot does not move", s: func(t *testing.T) *sessions.Session {
				return newBotMatch(t, small(1), 0, 1, 0, 1)
			}, column: 1,
			mover: &fakeMover{}, want: sessions.Played{Round: 1},
			wantS: state{Phase: sessions.PhaseFinished, End: sessions.EndWon, Deadline: at(7 * time.Minute), Webhook: h,
				Plies: 5, Round: 1, ToMove: game.NoPlayer},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: tt.column}
			got, err := s.Drop(t.Context(), alice.ID, click, h, tt.mover.bot(), link, now, policy())
			if err != nil {
				t.Fatalf("Drop(%+v): %v", click, err)
			}
			late := got.BotLate
			got.BotLate = nil
			if got != tt.want {
				t.Errorf("Drop() = %+v, want %+v", got, tt.want)
			}
			switch {
			case tt.wantLate == nil && late != nil:
				t.Errorf("BotLate = %v, want nil", late)
			case tt.wantLate != nil && !errors.Is(late, tt.wantLate):
				t.Errorf("BotLate = %v, want %v", late, tt.wantLate)
			}
			if got := stateOf(s); got != tt.wantS {
				t.Errorf("after Drop:\n got  %+v\n want %+v", got, tt.wantS)
			}
			if tt.mover == nil {
				return
			}
			if tt.mover.calls != tt.wantCalls {
				t.Errorf("the mover was called %d times, want %d", tt.mover.calls, tt.wantCalls)
			}
			for _, level := range tt.mover.levels {
				if level != "easy" {
					t.Errorf("the mover was asked for level %q, want %q", level, "easy")
				}
			}
			if tt.mover.noDeadline {
				t.Errorf("the mover was called without a deadline, want one of the bot's budget")
			}
		})
	}
}

func TestOpening(t *testing.T) {
	now := at(time.Second)
	botOpens := small(1)
	botOpens.FirstOpener = game.Player2
	tests := []struct {
		name         string
		s            func(t *testing.T) *sessions.Session
		mover        *fakeMover
		wantErr      error
		wantPlies    int
		wantDeadline time.Time
		wantCalls    int
	}{
		{name: "the bot opens", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, botOpens) },
			mover: &fakeMover{}, wantPlies: 1, wantDeadline: at(7 * time.Minute), wantCalls: 1},
		{name: "the bot cannot open: its turn is due at once", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, botOpens) },
			mover: &fakeMover{failFrom: 1}, wantErr: errBotSlow, wantDeadline: now, wantCalls: 1},
		{name: "no mover", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, botOpens) },
			wantErr: sessions.ErrNoBot, wantDeadline: now},
		{name: "the member opens", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1)) },
			mover: &fakeMover{}, wantDeadline: at(7 * time.Minute)},
		{name: "a challenge between members", s: newChallenge,
			mover: &fakeMover{}, wantDeadline: at(3 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			err := s.Opening(t.Context(), tt.mover.bot(), now)
			assertErr(t, err, sessions.Reason{}, tt.wantErr)
			if got := s.Match.Plies(); got != tt.wantPlies {
				t.Errorf("plies = %d, want %d", got, tt.wantPlies)
			}
			if !s.Deadline.Equal(tt.wantDeadline) {
				t.Errorf("Deadline = %v, want %v", s.Deadline, tt.wantDeadline)
			}
			if tt.mover != nil && tt.mover.calls != tt.wantCalls {
				t.Errorf("the mover was called %d times, want %d", tt.mover.calls, tt.wantCalls)
			}
		})
	}
}

func TestBotTurn(t *testing.T) {
	now := at(10 * time.Minute)
	roundEnd := []int{0, 1, 2, 1, 3} // the bot's disc in column 1 wins round 1
	tests := []struct {
		name      string
		s         func(t *testing.T) *sessions.Session
		match     int64
		mover     *fakeMover
		want      sessions.Played
		wantErr   error
		wantS     state
		wantCalls int
	}{
		{name: "another session", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			match: matchID + 1, mover: &fakeMover{}, wantErr: sessions.ErrNothingDue},
		{name: "the member's turn", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1)) },
			match: matchID, mover: &fakeMover{}, wantErr: sessions.ErrNothingDue},
		{name: "a match between members", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 0) },
			match: matchID, mover: &fakeMover{}, wantErr: sessions.ErrNothingDue},
		{name: "a match against the bot that is over", s: func(t *testing.T) *sessions.Session {
			return finished(t, newBotMatch(t, small(1), 0), game.Player2)
		}, match: matchID, mover: &fakeMover{}, wantErr: sessions.ErrNothingDue},
		{name: "the mover fails before any move", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			match: matchID, mover: &fakeMover{failFrom: 1}, wantErr: errBotSlow, wantCalls: 1},
		{name: "the bot picks a full column", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0, 0, 0, 0, 1) },
			match: matchID, mover: &fakeMover{columns: []int{0}}, wantErr: game.ErrColumnFull, wantCalls: 1},
		{name: "no mover", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			match: matchID, wantErr: sessions.ErrNoBot},
		{
			name: "the bot moves", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			match: matchID, mover: &fakeMover{columns: []int{3}},
			want:      sessions.Played{Round: 1},
			wantS:     state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), Webhook: hook("challenge", t0), Plies: 2, Round: 1, ToMove: game.Player1},
			wantCalls: 1,
		},
		{
			name: "the bot's move wins the round, and it opens the next", s: func(t *testing.T) *sessions.Session {
				s := newBotMatch(t, small(2), roundEnd...)
				s.MessageID = "m1"
				return s
			},
			match: matchID, mover: &fakeMover{columns: []int{1}},
			want: sessions.Played{Round: 1, RoundEnded: true},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now.Add(7 * time.Minute), PostSeq: 1, PostDue: now.Add(5 * time.Second),
				Webhook: sessions.Webhook{AppID: "app", Token: "token-challenge", At: t0}, Plies: 7, Round: 2, ToMove: game.Player1},
			wantCalls: 2,
		},
		{
			name: "the bot's move wins the round, and it cannot open the next", s: func(t *testing.T) *sessions.Session {
				return newBotMatch(t, small(2), roundEnd...)
			},
			match: matchID, mover: &fakeMover{columns: []int{1}, failFrom: 2},
			want: sessions.Played{Round: 1, RoundEnded: true},
			wantS: state{Phase: sessions.PhasePlaying, Deadline: now, PostSeq: 1, PostDue: now.Add(5 * time.Second),
				Webhook: sessions.Webhook{AppID: "app", Token: "token-challenge", At: t0}, Plies: 6, Round: 2, ToMove: game.Player2},
			wantCalls: 2,
		},
		{
			name: "the bot's move wins the match", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), roundEnd...) },
			match: matchID, mover: &fakeMover{columns: []int{1}},
			want: sessions.Played{Round: 1},
			wantS: state{Phase: sessions.PhaseFinished, End: sessions.EndWon, Deadline: at(7 * time.Minute), Webhook: hook("challenge", t0),
				Plies: 6, Round: 1, ToMove: game.NoPlayer},
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			got, err := s.BotTurn(t.Context(), tt.match, tt.mover.bot(), now, policy())
			assertErr(t, err, sessions.Reason{}, tt.wantErr)
			if tt.mover != nil && tt.mover.calls != tt.wantCalls {
				t.Errorf("the mover was called %d times, want %d", tt.mover.calls, tt.wantCalls)
			}
			if got != tt.want {
				t.Errorf("BotTurn() = %+v, want %+v", got, tt.want)
			}
			if err != nil {
				assertUnchanged(t, s, before)
				return
			}
			if got := stateOf(s); got != tt.wantS {
				t.Errorf("after BotTurn:\n got  %+v\n want %+v", got, tt.wantS)
			}
		})
	}
}

func TestCanForfeit(t *testing.T) {
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		user        string
		want        game.Player
		wantRefusal sessions.Reason
	}{
		{name: "the challenger", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) }, user: alice.ID, want: game.Player1},
		{name: "the opponent, not to move", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) }, user: bob.ID, want: game.Player2},
		{name: "against the bot", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) }, user: alice.ID, want: game.Player1},
		{name: "someone else", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) }, user: carol.ID,
			wantRefusal: sessions.ReasonNotYourMatch},
		{name: "a challenge", s: newChallenge, user: alice.ID, wantRefusal: sessions.ReasonNoMatch},
		{name: "someone else, on a challenge", s: newChallenge, user: carol.ID, wantRefusal: sessions.ReasonNoMatch},
		{name: "a finished match", s: func(t *testing.T) *sessions.Session { return finished(t, newMatch(t, small(1)), game.Player1) },
			user: bob.ID, wantRefusal: sessions.ReasonNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			got, err := s.CanForfeit(tt.user)
			assertErr(t, err, tt.wantRefusal, nil)
			if got != tt.want {
				t.Errorf("CanForfeit(%q) = %v, want %v", tt.user, got, tt.want)
			}
			assertUnchanged(t, s, before)
		})
	}
}

func TestForfeit(t *testing.T) {
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		user        string
		wantWinner  game.Player
		wantRefusal sessions.Reason
	}{
		{name: "the player to move", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(2)) }, user: alice.ID, wantWinner: game.Player2},
		{name: "the player not to move", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(2)) }, user: bob.ID, wantWinner: game.Player1},
		{name: "in the second round, behind", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(2), 0, 1, 0, 1, 0) },
			user: alice.ID, wantWinner: game.Player2},
		{name: "against the bot, on its turn", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			user: alice.ID, wantWinner: game.Player2},
		{name: "someone else", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) }, user: carol.ID,
			wantRefusal: sessions.ReasonNotYourMatch},
		{name: "a challenge", s: newChallenge, user: bob.ID, wantRefusal: sessions.ReasonMatchEnded},
		{name: "someone else, on a finished match", s: func(t *testing.T) *sessions.Session {
			return finished(t, newMatch(t, small(1)), game.Player1)
		}, user: carol.ID, wantRefusal: sessions.ReasonMatchEnded},
		{name: "a finished match", s: func(t *testing.T) *sessions.Session { return finished(t, newMatch(t, small(1)), game.Player1) },
			user: alice.ID, wantRefusal: sessions.ReasonMatchEnded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			err := s.Forfeit(tt.user)
			assertErr(t, err, tt.wantRefusal, nil)
			if err != nil {
				assertUnchanged(t, s, before)
				return
			}
			if s.Phase != sessions.PhaseFinished || s.End != sessions.EndForfeit {
				t.Errorf("phase, end = %q, %q, want %q, %q", s.Phase, s.End, sessions.PhaseFinished, sessions.EndForfeit)
			}
			if got := s.Match.Winner(); got != tt.wantWinner || !s.Match.Forfeited() {
				t.Errorf("winner = %v (forfeited %t), want %v by forfeit", got, s.Match.Forfeited(), tt.wantWinner)
			}
			if !s.Deadline.Equal(before.Deadline) {
				t.Errorf("Deadline = %v, want %v (unchanged)", s.Deadline, before.Deadline)
			}
		})
	}
}

func TestRepost(t *testing.T) {
	now := at(2 * time.Minute)
	h := hook("board", now)
	h.Message = ""
	pending := func(t *testing.T) *sessions.Session {
		s := newMatch(t, small(2), 0, 1, 0, 1, 0) // round 2's board still to post
		s.PostSeq, s.PostDue, s.MessageID = 1, at(time.Minute), ""
		return s
	}
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		now         time.Time
		want        sessions.Expiry
		wantRefusal sessions.Reason
		wantPostSeq int
	}{
		{name: "a match", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 0) }, now: now, wantPostSeq: 1},
		{name: "a match with a board still to post", s: pending, now: now, wantPostSeq: 2},
		{name: "the bot's turn, past its deadline", s: func(t *testing.T) *sessions.Session { return newBotMatch(t, small(1), 0) },
			now: at(time.Hour), wantPostSeq: 1},
		{name: "a turn past its deadline", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1), 0) },
			now: at(7 * time.Minute), want: sessions.ExpiryTurn},
		{name: "a challenge past its deadline", s: newChallenge, now: at(3 * time.Minute), want: sessions.ExpiryChallenge},
		{name: "a challenge", s: newChallenge, now: now, wantRefusal: sessions.ReasonNoMatch},
		{name: "a finished match", s: func(t *testing.T) *sessions.Session { return finished(t, newMatch(t, small(1)), game.Player1) },
			now: at(time.Hour), wantRefusal: sessions.ReasonNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			got, err := s.Repost(h, tt.now, policy())
			assertErr(t, err, tt.wantRefusal, nil)
			if got != tt.want {
				t.Errorf("Repost() = %q, want %q", got, tt.want)
			}
			switch {
			case err != nil:
				assertUnchanged(t, s, before)
			case got != sessions.ExpiryNone:
				want := before.Clone()
				want.Expire(tt.now, policy())
				assertUnchanged(t, s, want)
			default:
				want := stateOf(before)
				want.PostSeq, want.PostDue, want.MessageID, want.Webhook = tt.wantPostSeq, time.Time{}, "", h
				if got := stateOf(s); got != want {
					t.Errorf("after Repost:\n got  %+v\n want %+v", got, want)
				}
			}
		})
	}
}

func TestRematchRefusals(t *testing.T) {
	now := at(time.Hour)
	over := func(t *testing.T) *sessions.Session { return finished(t, newMatch(t, small(1)), game.Player1) }
	tests := []struct {
		name        string
		old         func(t *testing.T) *sessions.Session
		match       int64
		user        string
		wantRefusal sessions.Reason
		wantArgs    []any
	}{
		{name: "the channel has a new challenge", old: newChallenge, match: matchID - 1, user: alice.ID, wantRefusal: sessions.ReasonBusy},
		{name: "the channel has a new match, someone else asks", old: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			match: matchID - 1, user: carol.ID, wantRefusal: sessions.ReasonBusy},
		{name: "the channel has moved on to another finished match", old: over, match: matchID - 1, user: alice.ID, wantRefusal: sessions.ReasonStale},
		{name: "the channel has moved on to a declined challenge", old: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			match: matchID - 1, user: carol.ID, wantRefusal: sessions.ReasonStale},
		{name: "the match is still being played", old: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) },
			match: matchID, user: alice.ID, wantRefusal: sessions.ReasonStale},
		{name: "the challenge was declined", old: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			match: matchID, user: bob.ID, wantRefusal: sessions.ReasonStale},
		{name: "someone else", old: over, match: matchID, user: carol.ID, wantRefusal: sessions.ReasonNotYourMatch},
		{name: "no user", old: over, match: matchID, user: "", wantRefusal: sessions.ReasonNotYourMatch},
		{name: "the asking player's invitation is pending", old: invitation, match: matchID - 1, user: alice.ID,
			wantRefusal: sessions.ReasonRematchAsked, wantArgs: []any{"Opponent", bob}},
		{name: "the other player's invitation is pending", old: invitation, match: matchID - 1, user: bob.ID,
			wantRefusal: sessions.ReasonRematchPending, wantArgs: []any{"Inviter", alice}},
		{name: "an invitation between others is pending", old: invitation, match: matchID - 1, user: carol.ID,
			wantRefusal: sessions.ReasonBusy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := tt.old(t)
			before := old.Clone()
			got, err := sessions.Rematch(old, tt.match, tt.user, "Someone", hook("rematch", now), now, policy())
			assertErr(t, err, tt.wantRefusal, nil)
			if r, ok := sessions.AsRefusal(err); ok && !reflect.DeepEqual(r.Args, tt.wantArgs) {
				t.Errorf("refusal args = %v, want %v", r.Args, tt.wantArgs)
			}
			if got != nil {
				t.Errorf("Rematch() = %s, want nil", describe(got))
			}
			assertUnchanged(t, old, before)
		})
	}
}

func TestRematch(t *testing.T) {
	now := at(time.Hour)
	h := hook("rematch", now)
	h.Message = ""
	withOpeners := func(o game.OpenerPolicy, first game.Player) game.Config {
		c := small(2)
		c.Openers, c.FirstOpener = o, first
		return c
	}
	tests := []struct {
		name            string
		old             func(t *testing.T) *sessions.Session
		user, userName  string
		wantPlayers     [2]sessions.Member
		wantFirstOpener game.Player
	}{
		{
			name: "the challenger asks, under a new name",
			old: func(t *testing.T) *sessions.Session {
				return finished(t, newMatch(t, withOpeners(game.Alternate, game.Player1), 0), game.Player2)
			},
			user: alice.ID, userName: "Alicia",
			wantPlayers:     [2]sessions.Member{{ID: alice.ID, Name: "Alicia"}, bob},
			wantFirstOpener: game.Player2,
		},
		{
			name: "the opponent asks, under a new name",
			old: func(t *testing.T) *sessions.Session {
				return finished(t, newMatch(t, withOpeners(game.Alternate, game.Player1), 0), game.Player2)
			},
			user: bob.ID, userName: "Robert",
			// Bob challenges: he is Player1 now, and opens (Alice opened
			// round 1 of the old match).
			wantPlayers:     [2]sessions.Member{{ID: bob.ID, Name: "Robert"}, alice},
			wantFirstOpener: game.Player1,
		},
		{
			name: "the opponent opened round 1 of the old match",
			old: func(t *testing.T) *sessions.Session {
				return finished(t, newMatch(t, withOpeners(game.Alternate, game.Player2)), game.Player2)
			},
			user: alice.ID, userName: alice.Name,
			wantPlayers:     [2]sessions.Member{alice, bob},
			wantFirstOpener: game.Player1,
		},
		{
			name: "the old match went to a second round",
			old: func(t *testing.T) *sessions.Session {
				return finished(t, newMatch(t, withOpeners(game.Alternate, game.Player1), 0, 1, 0, 1, 0), game.Player2)
			},
			user: bob.ID, userName: bob.Name,
			wantPlayers:     [2]sessions.Member{bob, alice},
			wantFirstOpener: game.Player1,
		},
		{
			name: "always the first opener",
			old: func(t *testing.T) *sessions.Session {
				return finished(t, newMatch(t, withOpeners(game.AlwaysFirst, game.Player1)), game.Player1)
			},
			user: alice.ID, userName: alice.Name,
			wantPlayers:     [2]sessions.Member{alice, bob},
			wantFirstOpener: game.Player2,
		},
		{
			name: "against the bot",
			old: func(t *testing.T) *sessions.Session {
				s := mustOpen(t, botChallenge(withOpeners(game.Alternate, game.Player1)))
				return finished(t, s, game.Player1)
			},
			user: alice.ID, userName: "Alicia",
			wantPlayers:     [2]sessions.Member{{ID: alice.ID, Name: "Alicia"}, theBot},
			wantFirstOpener: game.Player2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := tt.old(t)
			old.PostSeq, old.MessageID, old.UpdatedAt = 3, "m9", at(time.Minute)
			old.Place = sessions.Place{Locale: "ja", WebhookOnly: true}
			before := old.Clone()
			s, err := sessions.Rematch(old, matchID, tt.user, tt.userName, h, now, policy())
			if err != nil {
				t.Fatalf("Rematch: %v", err)
			}
			assertUnchanged(t, old, before)
			wantConfig := old.Config
			wantConfig.FirstOpener = tt.wantFirstOpener
			got := *s
			got.Match = nil
			// Between members, an invitation that waits for the other's
			// answer; against the bot, the match itself.
			phase, deadline := sessions.PhaseChallenge, now.Add(3*time.Minute)
			if old.AI != "" {
				phase, deadline = sessions.PhasePlaying, now.Add(7*time.Minute)
			}
			if got := s.Invitation(); got != (old.AI == "") {
				t.Errorf("Invitation() = %t", got)
			}
			want := sessions.Session{
				ChannelID: old.ChannelID, GuildID: old.GuildID,
				Players:  tt.wantPlayers,
				Config:   wantConfig,
				Phase:    phase,
				Theme:    old.Theme,
				AI:       old.AI,
				Deadline: deadline,
				PostSeq:  1,
				PostDue:  now.Add(5 * time.Second),
				Webhook:  h,
				Place:    old.Place, // the rematch is played where the match was
			}
			if got != want {
				t.Errorf("Rematch() =\n %+v, want\n %+v", got, want)
			}
			if s.Match == nil || s.Match.Config() != wantConfig || s.Match.Plies() != 0 {
				t.Fatalf("Rematch() match = %v, want a new match of %+v", s.Match, wantConfig)
			}
			if got := s.Match.Round().Opener(); got != tt.wantFirstOpener {
				t.Errorf("round 1 opener = %v, want %v", got, tt.wantFirstOpener)
			}
		})
	}
}

func TestRematchTheBotOpens(t *testing.T) {
	now := at(time.Hour)
	old := finished(t, mustOpen(t, botChallenge(small(1))), game.Player1)
	s, err := sessions.Rematch(old, matchID, alice.ID, alice.Name, hook("rematch", now), now, policy())
	if err != nil {
		t.Fatalf("Rematch: %v", err)
	}
	if !s.BotToMove() {
		t.Fatalf("BotToMove() = false after a rematch whose round 1 the bot opens")
	}
	mover := &fakeMover{columns: []int{2}}
	if err := s.Opening(t.Context(), mover.bot(), now); err != nil {
		t.Fatalf("Opening: %v", err)
	}
	want := []game.Action{{Kind: game.Drop, Player: game.Player2, Column: 2}}
	if got := s.Match.Actions(); !reflect.DeepEqual(got, want) {
		t.Errorf("actions = %v, want %v", got, want)
	}
	if !s.Deadline.Equal(now.Add(7 * time.Minute)) {
		t.Errorf("Deadline = %v, want %v", s.Deadline, now.Add(7*time.Minute))
	}
}

func TestDue(t *testing.T) {
	now := at(10 * time.Minute)
	withPost := func(s *sessions.Session, due time.Time) *sessions.Session {
		s.PostSeq, s.PostDue, s.MessageID = 1, due, ""
		return s
	}
	botSoon := func(t *testing.T) *sessions.Session {
		s := newBotMatch(t, small(1), 0)
		s.Deadline = now.Add(time.Nanosecond)
		return s
	}
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		want        sessions.Duty
		wantExpiry  sessions.Expiry
		wantPostDue time.Time // for DutyPost
	}{
		{name: "nothing", s: func(t *testing.T) *sessions.Session {
			s := newMatch(t, small(1))
			s.Deadline = now.Add(time.Minute)
			return s
		}, want: sessions.DutyNone},
		{name: "a challenge past its deadline", s: newChallenge, want: sessions.DutyExpired, wantExpiry: sessions.ExpiryChallenge},
		{name: "a turn past its deadline, before a board due", s: func(t *testing.T) *sessions.Session {
			return withPost(newMatch(t, small(1)), at(time.Minute))
		}, want: sessions.DutyExpired, wantExpiry: sessions.ExpiryTurn},
		{name: "a legacy turn past its timeout", s: func(t *testing.T) *sessions.Session { return legacy(newMatch(t, small(1))) },
			want: sessions.DutyExpired, wantExpiry: sessions.ExpiryTurn},
		{name: "the bot's turn at its deadline", s: func(t *testing.T) *sessions.Session {
			s := newBotMatch(t, small(1), 0)
			s.Deadline = now
			return s
		}, want: sessions.DutyBot},
		{name: "the bot's turn, before a board due", s: func(t *testing.T) *sessions.Session {
			return withPost(newBotMatch(t, small(1), 0), at(time.Minute))
		}, want: sessions.DutyBot},
		{name: "a legacy bot's turn past the turn timeout", s: func(t *testing.T) *sessions.Session {
			return legacy(newBotMatch(t, small(1), 0))
		}, want: sessions.DutyBot},
		{name: "the bot's turn not due yet", s: botSoon, want: sessions.DutyNone},
		{name: "the bot's turn not due yet, a board due", s: func(t *testing.T) *sessions.Session {
			return withPost(botSoon(t), now)
		}, want: sessions.DutyPost, wantPostDue: now.Add(30 * time.Second)},
		{name: "a board due now", s: func(t *testing.T) *sessions.Session {
			s := newMatch(t, small(1))
			s.Deadline = now.Add(time.Minute)
			return withPost(s, now)
		}, want: sessions.DutyPost, wantPostDue: now.Add(30 * time.Second)},
		{name: "a board overdue", s: func(t *testing.T) *sessions.Session {
			s := newMatch(t, small(1))
			s.Deadline = now.Add(time.Minute)
			return withPost(s, at(time.Minute))
		}, want: sessions.DutyPost, wantPostDue: now.Add(30 * time.Second)},
		{name: "a board not due yet (claimed by someone else)", s: func(t *testing.T) *sessions.Session {
			s := newMatch(t, small(1))
			s.Deadline = now.Add(time.Minute)
			return withPost(s, now.Add(time.Nanosecond))
		}, want: sessions.DutyNone},
		{name: "a board due on a finished match", s: func(t *testing.T) *sessions.Session {
			return withPost(finished(t, newMatch(t, small(1)), game.Player1), at(time.Minute))
		}, want: sessions.DutyNone},
		{name: "a cancelled challenge past its deadline", s: func(t *testing.T) *sessions.Session { return cancelled(newChallenge(t)) },
			want: sessions.DutyNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			got, gotExpiry := s.Due(now, policy())
			if got != tt.want || gotExpiry != tt.wantExpiry {
				t.Fatalf("Due() = %v, %q, want %v, %q", got, gotExpiry, tt.want, tt.wantExpiry)
			}
			switch got {
			case sessions.DutyNone, sessions.DutyBot:
				assertUnchanged(t, s, before)
			case sessions.DutyExpired:
				want := before.Clone()
				want.Expire(now, policy())
				assertUnchanged(t, s, want)
			case sessions.DutyPost:
				want := before.Clone()
				want.PostDue = tt.wantPostDue
				assertUnchanged(t, s, want)
			}
		})
	}
}

func TestClaimPost(t *testing.T) {
	now := at(10 * time.Minute)
	pending := func(due time.Time) func(t *testing.T) *sessions.Session {
		return func(t *testing.T) *sessions.Session {
			s := newMatch(t, small(2), 0, 1, 0, 1, 0)
			s.PostSeq, s.PostDue, s.MessageID = 1, due, ""
			return s
		}
	}
	tests := []struct {
		name      string
		s         func(t *testing.T) *sessions.Session
		match     int64
		wantClaim bool
	}{
		{name: "a board within its grace", s: pending(now.Add(5 * time.Second)), match: matchID, wantClaim: true},
		{name: "a board overdue", s: pending(at(time.Minute)), match: matchID, wantClaim: true},
		{name: "a board claimed by someone else", s: pending(now.Add(5*time.Second + time.Nanosecond)), match: matchID},
		{name: "a board posted", s: pending(time.Time{}), match: matchID},
		{name: "another session", s: pending(at(time.Minute)), match: matchID + 1},
		{name: "a finished match", s: func(t *testing.T) *sessions.Session {
			return finished(t, pending(at(time.Minute))(t), game.Player1)
		}, match: matchID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			err := s.ClaimPost(tt.match, now, policy())
			if !tt.wantClaim {
				assertErr(t, err, sessions.Reason{}, sessions.ErrNothingDue)
				assertUnchanged(t, s, before)
				return
			}
			if err != nil {
				t.Fatalf("ClaimPost: %v", err)
			}
			want := before.Clone()
			want.PostDue = now.Add(30 * time.Second)
			assertUnchanged(t, s, want)
		})
	}
}

// postedSession returns a match on board post 2, posted: no message yet,
// its board due at t0+1m.
func postedSession(t *testing.T) *sessions.Session {
	t.Helper()
	s := newMatch(t, small(2), 0, 1, 0, 1, 0)
	s.PostSeq, s.PostDue, s.MessageID = 2, at(time.Minute), ""
	return s
}

func TestPostDone(t *testing.T) {
	h := hook("done", at(time.Minute))
	h.Message = "m5"
	tests := []struct {
		name   string
		match  int64
		seq    int
		wantOK bool
	}{
		{name: "the board posted", match: matchID, seq: 2, wantOK: true},
		{name: "an older board", match: matchID, seq: 1},
		{name: "another session", match: matchID + 1, seq: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := postedSession(t)
			before := s.Clone()
			err := s.PostDone(tt.match, tt.seq, "m5", h)
			if !tt.wantOK {
				assertErr(t, err, sessions.Reason{}, sessions.ErrNothingDue)
				assertUnchanged(t, s, before)
				return
			}
			if err != nil {
				t.Fatalf("PostDone: %v", err)
			}
			want := before.Clone()
			want.MessageID, want.Webhook, want.PostDue = "m5", h, time.Time{}
			assertUnchanged(t, s, want)
		})
	}
}

func TestPostGivenUp(t *testing.T) {
	tests := []struct {
		name   string
		match  int64
		seq    int
		wantOK bool
	}{
		{name: "the board given up", match: matchID, seq: 2, wantOK: true},
		{name: "a newer board", match: matchID, seq: 3},
		{name: "another session", match: matchID - 1, seq: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := postedSession(t)
			before := s.Clone()
			err := s.PostGivenUp(tt.match, tt.seq)
			if !tt.wantOK {
				assertErr(t, err, sessions.Reason{}, sessions.ErrNothingDue)
				assertUnchanged(t, s, before)
				return
			}
			if err != nil {
				t.Fatalf("PostGivenUp: %v", err)
			}
			want := before.Clone()
			want.PostDue = time.Time{}
			assertUnchanged(t, s, want)
		})
	}
}

func TestLearnMessage(t *testing.T) {
	tests := []struct {
		name   string
		known  string // the message already recorded
		match  int64
		seq    int
		wantOK bool
	}{
		{name: "the message of the live board", match: matchID, seq: 2, wantOK: true},
		{name: "a message recorded since", known: "m6", match: matchID, seq: 2},
		{name: "an older board", match: matchID, seq: 1},
		{name: "another session", match: matchID + 1, seq: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := postedSession(t)
			s.MessageID = tt.known
			before := s.Clone()
			err := s.LearnMessage(tt.match, tt.seq, "m5")
			if !tt.wantOK {
				assertErr(t, err, sessions.Reason{}, sessions.ErrNothingDue)
				assertUnchanged(t, s, before)
				return
			}
			if err != nil {
				t.Fatalf("LearnMessage: %v", err)
			}
			want := before.Clone()
			want.MessageID = "m5"
			assertUnchanged(t, s, want)
		})
	}
}

// TestDropOnSessionOver: a click on a session that has ended (which Touch
// reports first) is ErrOver, and changes nothing.
func TestDropOnSessionOver(t *testing.T) {
	for name, s := range map[string]*sessions.Session{
		"finished":  finished(t, newMatch(t, small(1), 0), game.Player2),
		"cancelled": cancelled(newChallenge(t)),
	} {
		before := s.Clone()
		_, err := s.Drop(t.Context(), alice.ID, sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1},
			hook("drop", at(time.Minute)), sessions.Bot{}, nil, at(time.Minute), policy())
		if !errors.Is(err, sessions.ErrOver) {
			t.Errorf("%s: error = %v, want ErrOver", name, err)
		}
		if s.Match.Plies() != before.Match.Plies() || s.Phase != before.Phase || !s.Deadline.Equal(before.Deadline) {
			t.Errorf("%s: the session changed: %+v", name, s)
		}
	}
}

// invitation returns a rematch invitation from alice to bob, pending.
func invitation(t *testing.T) *sessions.Session {
	t.Helper()
	old := finished(t, newMatch(t, small(1)), game.Player2)
	s, err := sessions.Rematch(old, matchID, alice.ID, alice.Name, hook("rematch", at(time.Hour)), at(time.Hour), policy())
	if err != nil {
		t.Fatal(err)
	}
	s.ID = matchID + 1
	return s
}

func TestInvitation(t *testing.T) {
	inv := invitation(t)
	if !inv.Invitation() {
		t.Error("a rematch between members is not an invitation")
	}
	if c := newChallenge(t); c.Invitation() {
		t.Error("a challenge made by command is an invitation")
	}
	accepted := invitation(t)
	if err := accepted.Accept(bob, "m", hook("accept", at(time.Hour)), at(time.Hour), policy()); err != nil {
		t.Fatal(err)
	}
	if accepted.Invitation() {
		t.Error("an accepted invitation is still one")
	}
}

func TestWithdraw(t *testing.T) {
	tests := []struct {
		name        string
		s           func(t *testing.T) *sessions.Session
		user        string
		wantEnd     sessions.End
		wantRefusal sessions.Reason
	}{
		{name: "the challenger withdraws", s: newChallenge, user: alice.ID, wantEnd: sessions.EndWithdrawn},
		{name: "the opponent declines", s: newChallenge, user: bob.ID, wantEnd: sessions.EndDeclined},
		{name: "the invited player declines a rematch", s: invitation, user: bob.ID, wantEnd: sessions.EndDeclined},
		{name: "someone else", s: newChallenge, user: carol.ID, wantRefusal: sessions.ReasonNotForYou},
		{name: "a match being played", s: func(t *testing.T) *sessions.Session { return newMatch(t, small(1)) }, user: alice.ID,
			wantRefusal: sessions.ReasonNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s(t)
			before := s.Clone()
			err := s.Withdraw(tt.user)
			assertErr(t, err, tt.wantRefusal, nil)
			if err != nil {
				assertUnchanged(t, s, before)
				return
			}
			if s.Phase != sessions.PhaseCancelled || s.End != tt.wantEnd {
				t.Errorf("after Withdraw: phase %s, end %s; want cancelled, %s", s.Phase, s.End, tt.wantEnd)
			}
		})
	}
}

// openChallenge returns alice's open challenge on a small board, opened at
// t0.
func openChallenge(t *testing.T) *sessions.Session {
	t.Helper()
	c := memberChallenge(small(1))
	c.Opponent = sessions.Member{}
	c.Place.Open = true
	return mustOpen(t, c)
}

// TestOpenChallenge: an open challenge's seat goes to the first member but
// the challenger who accepts; every later click is told the seat is
// taken; only the challenger withdraws it.
func TestOpenChallenge(t *testing.T) {
	s := openChallenge(t)
	if s.Players[1].ID != sessions.OpenSeat || !s.Place.Open || s.Phase != sessions.PhaseChallenge {
		t.Fatalf("Open = %s, want a challenge with the open seat", describe(s))
	}
	before := s.Clone()
	assertErr(t, s.Accept(alice, "m1", hook("a", t0), t0, policy()), sessions.ReasonOwnChallenge, nil)
	assertUnchanged(t, s, before)
	assertErr(t, s.Decline(carol.ID), sessions.ReasonOpenWithdraw, nil)
	assertUnchanged(t, s, before)

	if err := s.Accept(carol, "m1", hook("c", t0), t0, policy()); err != nil {
		t.Fatalf("carol accepts: %v", err)
	}
	if s.Players[1] != carol || s.Phase != sessions.PhasePlaying || !s.Deadline.Equal(t0.Add(7*time.Minute)) {
		t.Fatalf("after carol's Accept: %s", describe(s))
	}
	after := s.Clone()
	err := s.Accept(bob, "m1", hook("b", t0), t0, policy())
	assertErr(t, err, sessions.ReasonSeatTaken, nil)
	var r *sessions.Refusal
	if !errors.As(err, &r) || len(r.Args) != 2 || r.Args[1] != carol {
		t.Errorf("the refusal names %v, want carol, who took the seat", r)
	}
	assertErr(t, s.Accept(carol, "m1", hook("c2", t0), t0, policy()), sessions.ReasonStale, nil)
	assertUnchanged(t, s, after)

	w := openChallenge(t)
	if err := w.Decline(alice.ID); err != nil || w.End != sessions.EndWithdrawn {
		t.Errorf("the challenger withdraws: %v, end %q", err, w.End)
	}
	if _, err := sessions.Open(func() sessions.Challenge {
		c := botChallenge(small(1))
		c.Place.Open = true
		return c
	}(), policy(), t0); err != nil {
		t.Errorf("an open challenge with a bot's level: %v", err)
	}
}

// TestEndBy: a moderator ends an active challenge or match without a
// result; an ended session cannot be ended again.
func TestEndBy(t *testing.T) {
	for _, s := range []*sessions.Session{newChallenge(t), newMatch(t, small(2), 0, 1)} {
		if err := s.EndBy("mod"); err != nil {
			t.Fatalf("EndBy: %v", err)
		}
		if s.Phase != sessions.PhaseCancelled || s.End != sessions.EndEnded || s.EndedBy != "mod" || !s.Deadline.IsZero() {
			t.Errorf("after EndBy: %s", describe(s))
		}
		if err := s.Validate(); err != nil {
			t.Errorf("an ended session breaks a rule: %v", err)
		}
		assertErr(t, s.EndBy("mod"), sessions.ReasonNothingToEnd, nil)
	}
}

// TestLeave: forgetting a member forfeits their match, withdraws or
// declines their challenge, and refuses a session they do not play in.
func TestLeave(t *testing.T) {
	m := newMatch(t, small(2), 0)
	if err := m.Leave(bob.ID); err != nil || m.Phase != sessions.PhaseFinished || m.Match.Winner() != game.Player1 || m.End != sessions.EndForfeit {
		t.Errorf("Leave of a match: %v, %s", err, describe(m))
	}
	c := newChallenge(t)
	if err := c.Leave(bob.ID); err != nil || c.End != sessions.EndDeclined {
		t.Errorf("Leave of a challenge by its opponent: %v, %s", err, describe(c))
	}
	o := openChallenge(t)
	if err := o.Leave(alice.ID); err != nil || o.End != sessions.EndWithdrawn {
		t.Errorf("Leave of an open challenge by its challenger: %v, %s", err, describe(o))
	}
	assertErr(t, newMatch(t, small(1)).Leave(carol.ID), sessions.ReasonNotYourMatch, nil)
	if err := m.Leave(alice.ID); !errors.Is(err, sessions.ErrOver) {
		t.Errorf("Leave of a finished match: %v, want ErrOver", err)
	}
}

// TestPlaceTimeouts: a server's timeouts, kept in the session's place,
// set its deadlines in place of the policy's, from the challenge to a
// rematch.
func TestPlaceTimeouts(t *testing.T) {
	c := memberChallenge(small(2))
	c.Place.ChallengeTimeout, c.Place.TurnTimeout = time.Minute, 11*time.Minute
	s := mustOpen(t, c)
	if !s.Deadline.Equal(t0.Add(time.Minute)) {
		t.Errorf("challenge deadline %v, want the server's minute", s.Deadline.Sub(t0))
	}
	if err := s.Accept(bob, "m1", hook("accept", t0), t0, policy()); err != nil {
		t.Fatal(err)
	}
	if !s.Deadline.Equal(t0.Add(11 * time.Minute)) {
		t.Errorf("turn deadline %v, want the server's 11 minutes", s.Deadline.Sub(t0))
	}
	if _, err := s.Drop(t.Context(), alice.ID, sessions.Click{Post: s.PostSeq, Ply: 0, Column: 1}, hook("d", at(time.Minute)), sessions.Bot{}, nil, at(time.Minute), policy()); err != nil {
		t.Fatal(err)
	}
	if !s.Deadline.Equal(at(12 * time.Minute)) {
		t.Errorf("after a move, deadline %v, want 11 minutes after it", s.Deadline.Sub(t0))
	}
	s.Deadline = time.Time{}
	if got := s.DeadlineAt(policy()); !got.Equal(s.UpdatedAt.Add(11 * time.Minute)) {
		t.Errorf("DeadlineAt without a deadline = %v", got)
	}
}

// TestRatedOnlyWhereItCounts: a rated challenge stays rated only on the
// standard board between members; a rematch asks again, even after a
// match played unrated for the daily cap.
func TestRatedOnlyWhereItCounts(t *testing.T) {
	std := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2, Openers: game.Alternate, FirstOpener: game.Player1}
	for _, tt := range []struct {
		name string
		c    sessions.Challenge
		want bool
	}{
		{"standard, between members", func() sessions.Challenge { c := memberChallenge(std); c.Rated = true; return c }(), true},
		{"not asked", memberChallenge(std), false},
		{"another board", func() sessions.Challenge { c := memberChallenge(small(1)); c.Rated = true; return c }(), false},
		{"against the bot", func() sessions.Challenge { c := botChallenge(std); c.Rated = true; return c }(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustOpen(t, tt.c).Rated; got != tt.want {
				t.Errorf("Rated = %t, want %t", got, tt.want)
			}
		})
	}
	c := memberChallenge(std)
	c.Rated = true
	s := mustOpen(t, c)
	s.PlayUnrated()
	if s.Rated || !s.RatedCapped {
		t.Fatalf("PlayUnrated: Rated %t, RatedCapped %t", s.Rated, s.RatedCapped)
	}
	if err := s.Accept(bob, "m1", hook("a", t0), t0, policy()); err != nil {
		t.Fatal(err)
	}
	if err := s.Forfeit(bob.ID); err != nil {
		t.Fatal(err)
	}
	s.Phase = sessions.PhaseFinished
	r, err := sessions.Rematch(s, matchID, alice.ID, alice.Name, hook("r", at(time.Hour)), at(time.Hour), policy())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Rated || r.RatedCapped {
		t.Errorf("the rematch: Rated %t, RatedCapped %t; want it asked rated again", r.Rated, r.RatedCapped)
	}
}

// TestDropLearnsTheClickedMessage: a click on the live board tells the
// session its message ID when the session did not learn it from the post
// (the post's answer was lost), and never replaces one it knows.
func TestDropLearnsTheClickedMessage(t *testing.T) {
	now := at(2 * time.Minute)
	s := newMatch(t, small(2), 0, 1, 0, 1)
	click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1, Message: "m1"}
	if _, err := s.Drop(t.Context(), alice.ID, click, hook("drop", now), sessions.Bot{}, link, now, policy()); err != nil {
		t.Fatal(err)
	}
	if s.PostSeq != 1 || s.MessageID != "" {
		t.Fatalf("after the round's end: post %d, message %q; want post 1 with no message yet", s.PostSeq, s.MessageID)
	}
	// The next board was posted, and its answer lost: the first click on
	// it names it.
	click = sessions.Click{Post: 1, Ply: s.Match.Plies(), Column: 2, Message: "lost"}
	if _, err := s.Drop(t.Context(), bob.ID, click, hook("drop2", now), sessions.Bot{}, link, now, policy()); err != nil {
		t.Fatal(err)
	}
	if s.MessageID != "lost" {
		t.Errorf("message %q after a click on the lost board, want %q", s.MessageID, "lost")
	}
	click = sessions.Click{Post: 1, Ply: s.Match.Plies(), Column: 2, Message: "other"}
	if _, err := s.Drop(t.Context(), alice.ID, click, hook("drop3", now), sessions.Bot{}, link, now, policy()); err != nil {
		t.Fatal(err)
	}
	if s.MessageID != "lost" {
		t.Errorf("message %q after a second click, want %q kept", s.MessageID, "lost")
	}
}

// TestPostSeen clears the post that is due, and only that post.
func TestPostSeen(t *testing.T) {
	s := newMatch(t, small(2), 0, 1, 0, 1)
	click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1}
	now := at(2 * time.Minute)
	if _, err := s.Drop(t.Context(), alice.ID, click, hook("drop", now), sessions.Bot{}, link, now, policy()); err != nil {
		t.Fatal(err)
	}
	if err := s.PostSeen(s.ID, 0); !errors.Is(err, sessions.ErrNothingDue) || s.PostDue.IsZero() {
		t.Errorf("PostSeen of an older post: %v, due %v; want ErrNothingDue and the post still due", err, s.PostDue)
	}
	if err := s.PostSeen(s.ID, 1); err != nil || !s.PostDue.IsZero() {
		t.Errorf("PostSeen of the post due: %v, due %v; want none due", err, s.PostDue)
	}
}

// TestPostLater moves the post that is due, and only that post.
func TestPostLater(t *testing.T) {
	s := newMatch(t, small(2), 0, 1, 0, 1)
	now := at(2 * time.Minute)
	click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1}
	if _, err := s.Drop(t.Context(), alice.ID, click, hook("drop", now), sessions.Bot{}, link, now, policy()); err != nil {
		t.Fatal(err)
	}
	later := now.Add(3 * time.Second)
	if err := s.PostLater(s.ID, 0, later); !errors.Is(err, sessions.ErrNothingDue) || s.PostDue.Equal(later) {
		t.Errorf("PostLater of an older post: %v, due %v; want ErrNothingDue, unchanged", err, s.PostDue)
	}
	if err := s.PostLater(s.ID, 1, later); err != nil || !s.PostDue.Equal(later) {
		t.Errorf("PostLater of the post due: %v, due %v; want %v", err, s.PostDue, later)
	}
	if err := s.PostDone(s.ID, 1, "m2", hook("drop", now)); err != nil {
		t.Fatal(err)
	}
	if err := s.PostLater(s.ID, 1, later); !errors.Is(err, sessions.ErrNothingDue) || !s.PostDue.IsZero() {
		t.Errorf("PostLater of a post made: %v, due %v; want ErrNothingDue, none due", err, s.PostDue)
	}
}
