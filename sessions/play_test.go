package sessions_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

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
			wantRefusal: sessions.ReasonMovedTo, wantArgs: []any{"Link", sessions.BoardMessage{GuildID: "guild", ChannelID: "channel", MessageID: "m3"}}},
		{name: "an older post of another ply", s: dropSession, user: bob.ID, click: sessions.Click{Post: 0, Ply: 2, Column: 2},
			wantRefusal: sessions.ReasonMovedTo, wantArgs: []any{"Link", sessions.BoardMessage{GuildID: "guild", ChannelID: "channel", MessageID: "m3"}}},
		{name: "a post the session has not reached", s: dropSession, user: alice.ID, click: sessions.Click{Post: 3, Ply: 4, Column: 2},
			wantRefusal: sessions.ReasonMovedTo, wantArgs: []any{"Link", sessions.BoardMessage{GuildID: "guild", ChannelID: "channel", MessageID: "m3"}}},
		{name: "an older post, the live message not known yet", s: func(t *testing.T) *sessions.Session {
			s := dropSession(t)
			s.MessageID = ""
			return s
		}, user: alice.ID, click: sessions.Click{Post: 1, Ply: 4, Column: 2}, wantRefusal: sessions.ReasonMoved},
		{name: "another ply", s: dropSession, user: alice.ID, click: sessions.Click{Post: 2, Ply: 3, Column: 2},
			wantRefusal: sessions.ReasonStaleBoardTo, wantArgs: []any{"Link", sessions.BoardMessage{GuildID: "guild", ChannelID: "channel", MessageID: "m3"}}},
		{name: "another ply, out of turn in a full column", s: dropSession, user: bob.ID, click: sessions.Click{Post: 2, Ply: 5, Column: 1},
			wantRefusal: sessions.ReasonStaleBoardTo, wantArgs: []any{"Link", sessions.BoardMessage{GuildID: "guild", ChannelID: "channel", MessageID: "m3"}}},
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
			got, err := s.Drop(t.Context(), clicked(tt.click, tt.user, hook("drop", at(time.Minute))), mover.bot(), at(time.Minute), policy())
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
			got, err := s.Drop(t.Context(), clicked(click, tt.user, h), sessions.Bot{}, now, policy())
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
			got, err := s.Drop(t.Context(), clicked(click, alice.ID, h), tt.mover.bot(), now, policy())
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

// TestDropOnSessionOver: a click on a session that has ended (which Touch
// reports first) is ErrOver, and changes nothing.
func TestDropOnSessionOver(t *testing.T) {
	for name, s := range map[string]*sessions.Session{
		"finished":  finished(t, newMatch(t, small(1), 0), game.Player2),
		"cancelled": cancelled(newChallenge(t)),
	} {
		before := s.Clone()
		_, err := s.Drop(t.Context(), clicked(sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1}, alice.ID, hook("drop", at(time.Minute))), sessions.Bot{}, at(time.Minute), policy())
		if !errors.Is(err, sessions.ErrOver) {
			t.Errorf("%s: error = %v, want ErrOver", name, err)
		}
		if s.Match.Plies() != before.Match.Plies() || s.Phase != before.Phase || !s.Deadline.Equal(before.Deadline) {
			t.Errorf("%s: the session changed: %+v", name, s)
		}
	}
}

// TestDropLearnsTheClickedMessage: a click on the live board tells the
// session its message ID when the session did not learn it from the post
// (the post's answer was lost), and never replaces one it knows.
func TestDropLearnsTheClickedMessage(t *testing.T) {
	now := at(2 * time.Minute)
	s := newMatch(t, small(2), 0, 1, 0, 1)
	click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1, Message: "m1"}
	if _, err := s.Drop(t.Context(), clicked(click, alice.ID, hook("drop", now)), sessions.Bot{}, now, policy()); err != nil {
		t.Fatal(err)
	}
	if s.PostSeq != 1 || s.MessageID != "" {
		t.Fatalf("after the round's end: post %d, message %q; want post 1 with no message yet", s.PostSeq, s.MessageID)
	}
	// The next board was posted, and its answer lost: the first click on
	// it names it.
	click = sessions.Click{Post: 1, Ply: s.Match.Plies(), Column: 2, Message: "lost"}
	if _, err := s.Drop(t.Context(), clicked(click, bob.ID, hook("drop2", now)), sessions.Bot{}, now, policy()); err != nil {
		t.Fatal(err)
	}
	if s.MessageID != "lost" {
		t.Errorf("message %q after a click on the lost board, want %q", s.MessageID, "lost")
	}
	click = sessions.Click{Post: 1, Ply: s.Match.Plies(), Column: 2, Message: "other"}
	if _, err := s.Drop(t.Context(), clicked(click, alice.ID, hook("drop3", now)), sessions.Bot{}, now, policy()); err != nil {
		t.Fatal(err)
	}
	if s.MessageID != "lost" {
		t.Errorf("message %q after a second click, want %q kept", s.MessageID, "lost")
	}
}

// TestDropOnThePostDue: a click on the board that is still due (its
// response or follow-up made it, the answer not recorded yet) shows it
// posted: nothing is due any more. A click refused (not the player's turn)
// changes nothing.
func TestDropOnThePostDue(t *testing.T) {
	now := at(2 * time.Minute)
	s := newMatch(t, small(2), 0, 1, 0, 1)
	click := sessions.Click{Post: s.PostSeq, Ply: s.Match.Plies(), Column: 1}
	if _, err := s.Drop(t.Context(), clicked(click, alice.ID, hook("drop", now)), sessions.Bot{}, now, policy()); err != nil {
		t.Fatal(err)
	}
	if s.PostDue.IsZero() {
		t.Fatal("no post due after the round's end")
	}
	before := s.Clone()
	on := sessions.Click{Post: 1, Ply: s.Match.Plies(), Column: 2}
	if _, err := s.Drop(t.Context(), clicked(on, alice.ID, hook("out-of-turn", now)), sessions.Bot{}, now, policy()); err == nil {
		t.Fatal("a click out of turn was played")
	}
	assertUnchanged(t, s, before)
	if _, err := s.Drop(t.Context(), clicked(on, bob.ID, hook("drop2", now)), sessions.Bot{}, now, policy()); err != nil {
		t.Fatal(err)
	}
	if !s.PostDue.IsZero() {
		t.Errorf("post due %v after a click on the board; want none", s.PostDue)
	}
}
