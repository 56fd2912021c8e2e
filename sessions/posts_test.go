package sessions_test

import (
	"errors"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

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

// TestPostSeen clears the post that is due, and only that post.
func TestPostSeen(t *testing.T) {
	s := newMatch(t, small(2), 0, 1, 0, 1)
	click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1}
	now := at(2 * time.Minute)
	if _, err := s.Drop(t.Context(), clicked(click, alice.ID, hook("drop", now)), sessions.Bot{}, now, policy()); err != nil {
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
	if _, err := s.Drop(t.Context(), clicked(click, alice.ID, hook("drop", now)), sessions.Bot{}, now, policy()); err != nil {
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

// TestPostInResponse: after the click that ends a round, the board due is
// the click's response: the session reaches it as its webhook's @original,
// and it stays due (for the scheduler, should the response never reach
// Discord). With no post due, or no interaction token, there is nothing to
// record.
func TestPostInResponse(t *testing.T) {
	now := at(2 * time.Minute)
	s := newMatch(t, small(2), 0, 1, 0, 1)
	before := s.Clone()
	if err := s.PostInResponse(); !errors.Is(err, sessions.ErrNothingDue) {
		t.Errorf("PostInResponse with no post due: %v; want ErrNothingDue", err)
	}
	assertUnchanged(t, s, before)
	click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1, Message: "m1"}
	played, err := s.Drop(t.Context(), clicked(click, alice.ID, hook("drop", now)), sessions.Bot{}, now, policy())
	if err != nil || !played.RoundEnded {
		t.Fatalf("Drop: %+v, %v; want the round ended", played, err)
	}
	due := s.PostDue
	if err := s.PostInResponse(); err != nil {
		t.Fatal(err)
	}
	if s.Webhook.Message != "@original" || s.Webhook.Token != hook("drop", now).Token || !s.PostDue.Equal(due) || s.PostSeq != 1 {
		t.Errorf("after PostInResponse: webhook %+v, due %v, post %d; want the click's @original, still due at %v, post 1", s.Webhook, s.PostDue, s.PostSeq, due)
	}
	noToken := s.Clone()
	noToken.Webhook = sessions.Webhook{}
	if err := noToken.PostInResponse(); !errors.Is(err, sessions.ErrNothingDue) {
		t.Errorf("PostInResponse without a token: %v; want ErrNothingDue", err)
	}
}
