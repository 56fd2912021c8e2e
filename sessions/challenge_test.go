package sessions_test

import (
	"errors"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

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
	if _, err := s.Drop(t.Context(), clicked(sessions.Click{Post: s.PostSeq, Ply: 0, Column: 1}, alice.ID, hook("d", at(time.Minute))), sessions.Bot{}, at(time.Minute), policy()); err != nil {
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
