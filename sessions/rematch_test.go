package sessions_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

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
