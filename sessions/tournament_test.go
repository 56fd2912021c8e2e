package sessions

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/tournament"
)

var tNow = time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)

// newTestTournament returns a tournament of cfg (a Swiss "Cup" when cfg is
// the zero value) with n players joined, p1 to pn.
func newTestTournament(t *testing.T, cfg tournament.Config, n int) *Tournament {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "Cup"
	}
	if cfg.Format == "" {
		cfg.Format = tournament.Swiss
	}
	tt, err := NewTournament(TournamentRequest{GuildID: "g", ChannelID: "c", Config: cfg, Seed: 7, CreatedBy: "admin"}, tNow)
	if err != nil {
		t.Fatalf("NewTournament: %v", err)
	}
	tt.ID = 1
	for i := range n {
		if err := tt.Join(Member{ID: fmt.Sprintf("p%d", i+1), Name: fmt.Sprintf("P%d", i+1)}, 0, false, tNow); err != nil {
			t.Fatalf("join %d: %v", i+1, err)
		}
	}
	return tt
}

// mustRefuse fails unless err is a refusal for reason.
func mustRefuse(t *testing.T, err error, reason Reason) {
	t.Helper()
	if !IsRefusal(err, reason) {
		t.Fatalf("got %v, want refusal %s", err, reason)
	}
}

func TestNewTournamentRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    tournament.Config
		start  time.Time
		reason Reason
	}{
		{"rounds of an arena", tournament.Config{Name: "A", Format: tournament.Arena, Rounds: 3, Duration: time.Hour}, time.Time{}, ReasonTournamentRounds},
		{"double Swiss", tournament.Config{Name: "A", Format: tournament.Swiss, Double: true}, time.Time{}, ReasonTournamentDouble},
		{"arena without a duration", tournament.Config{Name: "A", Format: tournament.Arena}, time.Time{}, ReasonTournamentDuration},
		{"arena of two days", tournament.Config{Name: "A", Format: tournament.Arena, Duration: 48 * time.Hour}, time.Time{}, ReasonTournamentDuration},
		{"Swiss with a duration", tournament.Config{Name: "A", Format: tournament.Swiss, Duration: time.Hour}, time.Time{}, ReasonTournamentDuration},
		{"a line longer than the board", tournament.Config{Name: "A", Format: tournament.Swiss, Rows: 4, Columns: 4, Connect: 5}, time.Time{}, ReasonTournamentBoard},
		{"no name", tournament.Config{Name: "  ", Format: tournament.Swiss}, time.Time{}, ReasonTournamentName},
		{"a start in the past", tournament.Config{Name: "A", Format: tournament.Swiss}, tNow.Add(-time.Minute), ReasonTournamentStartPast},
		{"a start now", tournament.Config{Name: "A", Format: tournament.Swiss}, tNow, ReasonTournamentStartPast},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTournament(TournamentRequest{GuildID: "g", ChannelID: "c", Config: tc.cfg, Settings: TournamentSettings{StartAt: tc.start}}, tNow)
			mustRefuse(t, err, tc.reason)
		})
	}
	tt, err := NewTournament(TournamentRequest{GuildID: "g", ChannelID: "c", Config: tournament.Config{Name: "A", Format: tournament.Swiss},
		Settings: TournamentSettings{StartAt: tNow.Add(time.Hour)}}, tNow)
	if err != nil {
		t.Fatal(err)
	}
	if tt.Status != TournamentSignUp || !tt.Due.Equal(tNow) {
		t.Errorf("new tournament: status %s, due %v; want sign-up, due now (its sign-up message)", tt.Status, tt.Due)
	}
}

func TestTournamentJoin(t *testing.T) {
	full := newTestTournament(t, tournament.Config{PlayerLimit: 2}, 2)
	mustRefuse(t, full.Join(Member{ID: "x"}, 0, false, tNow), ReasonTournamentFull)
	twice := newTestTournament(t, tournament.Config{}, 1)
	mustRefuse(t, twice.Join(Member{ID: "p1"}, 0, false, tNow), ReasonTournamentJoined)
	role := newTestTournament(t, tournament.Config{}, 0)
	role.Settings.Role = "42"
	mustRefuse(t, role.Join(Member{ID: "x"}, 0, false, tNow), ReasonTournamentRole)
	if err := role.Join(Member{ID: "x", Name: "X"}, 1700, true, tNow); err != nil {
		t.Fatalf("a member with the role: %v", err)
	}
	if p, _ := role.Entry("x"); p.Rating != 1700 || role.Names["x"] != "X" {
		t.Errorf("entry %+v, name %q; want rating 1700, name X", p, role.Names["x"])
	}
	started := newTestTournament(t, tournament.Config{}, 4)
	if err := started.Start(tNow); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, started.Join(Member{ID: "late"}, 0, false, tNow), ReasonTournamentClosed)
	arena := newTestTournament(t, tournament.Config{Format: tournament.Arena, Duration: time.Hour}, 2)
	if err := arena.Start(tNow); err != nil {
		t.Fatal(err)
	}
	if _, err := arena.Step(tNow, DefaultPolicy()); err != nil {
		t.Fatal(err)
	}
	if err := arena.Join(Member{ID: "late"}, 0, false, tNow.Add(30*time.Minute)); err != nil {
		t.Errorf("an arena under way refused a late player: %v", err)
	}
	mustRefuse(t, arena.Join(Member{ID: "later"}, 0, false, tNow.Add(time.Hour)), ReasonTournamentClosed)
	if _, _, err := arena.Leave("late", tNow); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, arena.Join(Member{ID: "late"}, 0, false, tNow), ReasonTournamentWithdrawn)
	if _, err := arena.End("admin", tNow); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, arena.Join(Member{ID: "x"}, 0, false, tNow), ReasonTournamentOver)
}

func TestTournamentLeave(t *testing.T) {
	tt := newTestTournament(t, tournament.Config{}, 3)
	if _, _, err := tt.Leave("p2", tNow); err != nil {
		t.Fatal(err)
	}
	if _, ok := tt.Entry("p2"); ok || tt.Names["p2"] != "" {
		t.Errorf("before the start, a player who leaves is no longer entered")
	}
	mustRefuse(t, func() error { _, _, err := tt.Leave("p2", tNow); return err }(), ReasonTournamentNotJoined)

	tt = newTestTournament(t, tournament.Config{}, 4)
	if err := tt.Start(tNow); err != nil {
		t.Fatal(err)
	}
	if _, err := tt.Step(tNow, DefaultPolicy()); err != nil {
		t.Fatal(err)
	}
	p := tt.State.Rounds[0].Pairings[0]
	tt.Games[0][0] = TournamentGame{SessionID: 99, ChannelID: "thread"}
	link, g, err := tt.Leave(p.Second, tNow)
	if err != nil {
		t.Fatal(err)
	}
	if link != (TournamentLink{ID: 1, Round: 1, Board: 1}) || g.SessionID != 99 || g.ChannelID != "thread" {
		t.Errorf("Leave returned %+v %+v, want the game being played, 1.1 in thread", link, g)
	}
	if e, _ := tt.Entry(p.Second); !e.Withdrawn {
		t.Errorf("after the start, a player who leaves is withdrawn")
	}
	mustRefuse(t, func() error { _, _, err := tt.Leave(p.Second, tNow); return err }(), ReasonTournamentWithdrawn)
}

func TestTournamentStartPauseResume(t *testing.T) {
	one := newTestTournament(t, tournament.Config{}, 1)
	mustRefuse(t, one.Start(tNow), ReasonTournamentFewPlayers)
	tt := newTestTournament(t, tournament.Config{}, 2)
	mustRefuse(t, tt.Resume(tNow), ReasonTournamentNotPaused)
	mustRefuse(t, tt.Pause(tNow), ReasonTournamentNotRunning)
	if err := tt.Start(tNow); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, tt.Start(tNow), ReasonTournamentStarted)
	if err := tt.Pause(tNow); err != nil {
		t.Fatal(err)
	}
	step, err := tt.Step(tNow, DefaultPolicy())
	if err != nil && !errors.Is(err, ErrNothingDue) {
		t.Fatal(err)
	}
	if len(step.Paired) != 0 || len(tt.State.Rounds) != 0 {
		t.Fatalf("a paused tournament paired %v", step.Paired)
	}
	if err := tt.Resume(tNow); err != nil {
		t.Fatal(err)
	}
	step, err = tt.Step(tNow, DefaultPolicy())
	if err != nil || len(step.Paired) != 1 || len(step.Games) != 1 {
		t.Fatalf("resumed: step %+v, %v; want round 1 paired and its game claimed", step, err)
	}
}

// TestStepPairsOnce: Step pairs the next round when the last one is
// finished, and a second Step on what the first left pairs nothing: a
// second process that loses the compare-and-swap and runs again on the
// winner's tournament does not pair the round twice.
func TestStepPairsOnce(t *testing.T) {
	p := DefaultPolicy()
	tt := newTestTournament(t, tournament.Config{Rounds: 3}, 6)
	if err := tt.Start(tNow); err != nil {
		t.Fatal(err)
	}
	now := tNow
	for round := 1; round <= 3; round++ {
		step, err := tt.Step(now, p)
		if err != nil || len(step.Paired) != 1 || step.Paired[0] != round {
			t.Fatalf("round %d: step %+v, %v", round, step, err)
		}
		if len(step.Games) != 3 {
			t.Fatalf("round %d: %d games claimed, want 3", round, len(step.Games))
		}
		again := tt.Clone()
		step2, err := again.Step(now, p)
		if len(step2.Paired) != 0 || len(step2.Games) != 0 {
			t.Fatalf("round %d: a second step paired %v and claimed %v", round, step2.Paired, step2.Games)
		}
		if !errors.Is(err, ErrNothingDue) && !step2.Posts {
			t.Fatalf("round %d: second step %+v, %v; want nothing due", round, step2, err)
		}
		// After the lease the games are claimed again (their process died).
		if step3, _ := tt.Clone().Step(now.Add(p.PostLease), p); len(step3.Games) != 3 {
			t.Errorf("round %d: after the lease, %d games claimed again, want 3", round, len(step3.Games))
		}
		for b, pr := range tt.State.Rounds[round-1].Pairings {
			st, err := tournament.RecordResult(tt.State, round, pr.Opener, tournament.OpenerWins)
			if err != nil {
				t.Fatal(err)
			}
			tt.State = st
			tt.Games[round-1][b].SessionID = int64(round*10 + b)
		}
		now = now.Add(time.Minute)
	}
	step, err := tt.Step(now, p)
	if err != nil || !step.Finished || tt.Status != TournamentFinished || !tt.Over() {
		t.Fatalf("after the last round: step %+v, %v, status %s", step, err, tt.Status)
	}
	if !step.Posts {
		t.Errorf("the finished tournament's podium is not claimed for posting")
	}
}

func TestStepStartsAtItsTime(t *testing.T) {
	p := DefaultPolicy()
	tt := newTestTournament(t, tournament.Config{}, 2)
	tt.Settings.StartAt = tNow.Add(time.Hour)
	tt.Posts = TournamentPosts{SignUp: "m", Shown: tt.Stamp()}
	if _, err := tt.Step(tNow, p); err != nil && !errors.Is(err, ErrNothingDue) {
		t.Fatal(err)
	}
	if tt.Status != TournamentSignUp || !tt.Due.Equal(tNow.Add(time.Hour)) {
		t.Fatalf("before its time: status %s, due %v; want sign-up, due at the start", tt.Status, tt.Due)
	}
	step, err := tt.Step(tNow.Add(time.Hour), p)
	if err != nil || !step.Started || len(step.Paired) != 1 {
		t.Fatalf("at its time: %+v, %v; want started, round 1 paired", step, err)
	}
	lonely := newTestTournament(t, tournament.Config{}, 1)
	lonely.Settings.StartAt = tNow.Add(time.Hour)
	step, err = lonely.Step(tNow.Add(time.Hour), p)
	if err != nil || !step.Finished || lonely.Status != TournamentFinished || len(lonely.State.Rounds) != 0 {
		t.Fatalf("one player at the start time: %+v, %v, status %s; want called off", step, err, lonely.Status)
	}
}

func TestTournamentEnd(t *testing.T) {
	tt := newTestTournament(t, tournament.Config{}, 4)
	if err := tt.Start(tNow); err != nil {
		t.Fatal(err)
	}
	if _, err := tt.Step(tNow, DefaultPolicy()); err != nil {
		t.Fatal(err)
	}
	tt.Games[0][0] = TournamentGame{SessionID: 5, ChannelID: "th"}
	playing, err := tt.End("admin", tNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(playing) != 1 || playing[0].SessionID != 5 {
		t.Errorf("End returned %+v, want the one game being played", playing)
	}
	if got := tt.State.Rounds[0].Pairings[1].Result; got != tournament.DoubleForfeit {
		t.Errorf("the game never started: %q, want a double forfeit", got)
	}
	if tt.Over() {
		t.Errorf("Over with a game still being played")
	}
	if tt.EndedBy != "admin" || tt.Status != TournamentFinished {
		t.Errorf("ended by %q, status %s", tt.EndedBy, tt.Status)
	}
	_, err = tt.End("admin", tNow)
	mustRefuse(t, err, ReasonTournamentOver)
}

func TestStepArena(t *testing.T) {
	p := DefaultPolicy()
	tt := newTestTournament(t, tournament.Config{Format: tournament.Arena, Duration: time.Hour}, 5)
	if err := tt.Start(tNow); err != nil {
		t.Fatal(err)
	}
	step, err := tt.Step(tNow, p)
	if err != nil || len(step.Paired) != 1 || len(tt.State.Rounds[0].Pairings) != 2 {
		t.Fatalf("arena start: %+v, %v; want two games paired, one player waiting", step, err)
	}
	if !tt.Due.Equal(tNow.Add(p.PostLease)) {
		t.Errorf("due %v, want when the claim on its games runs out", tt.Due)
	}
	// A game ends: its two players and the one waiting are paired as they can.
	r0 := tt.State.Rounds[0].Pairings[0]
	st, err := tournament.RecordResult(tt.State, 1, r0.Opener, tournament.OpenerWins)
	if err != nil {
		t.Fatal(err)
	}
	tt.State = st
	step, err = tt.Step(tNow.Add(time.Minute), p)
	if err != nil || len(step.Paired) != 1 {
		t.Fatalf("after a game: %+v, %v; want a new round of games", step, err)
	}
	for _, pr := range tt.State.Rounds[1].Pairings {
		if (pr.Opener == r0.Opener && pr.Second == r0.Second) || (pr.Opener == r0.Second && pr.Second == r0.Opener) {
			t.Errorf("arena paired %s and %s again at once", r0.Opener, r0.Second)
		}
	}
	// Time is up with games under way: nothing more is paired, and it
	// finishes when the last result comes.
	end := tNow.Add(time.Hour)
	if step, _ := tt.Step(end, p); len(step.Paired) != 0 || step.Finished {
		t.Fatalf("at the end with games under way: %+v", step)
	}
	for r, round := range tt.State.Rounds {
		for _, pr := range round.Pairings {
			if pr.Result == tournament.Pending {
				if tt.State, err = tournament.RecordResult(tt.State, r+1, pr.Opener, tournament.Draw); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if step, err := tt.Step(end.Add(time.Minute), p); err != nil || !step.Finished {
		t.Fatalf("every result in after the end: %+v, %v; want finished", step, err)
	}
}

func TestGameSession(t *testing.T) {
	tt := newTestTournament(t, tournament.Config{Rated: true, Wins: 2}, 3)
	tt.Settings = TournamentSettings{Theme: "ocean", TurnTimeout: 2 * time.Minute, Locale: "de"}
	if err := tt.Start(tNow); err != nil {
		t.Fatal(err)
	}
	if _, err := tt.Step(tNow, DefaultPolicy()); err != nil {
		t.Fatal(err)
	}
	pr := tt.State.Rounds[0].Pairings[0]
	s, err := tt.GameSession(GameRef{Round: 1, Board: 1}, "thread", true, tNow, DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	want := TournamentLink{ID: 1, Round: 1, Board: 1}
	switch {
	case s.Players[0].ID != pr.Opener || s.Players[1].ID != pr.Second || s.Players[0].Name == "":
		t.Errorf("players %+v, want the pairing's %s (opener) and %s", s.Players, pr.Opener, pr.Second)
	case s.Phase != PhasePlaying || s.Match.ToMove() != game.Player1 || s.Config.Wins != 2:
		t.Errorf("phase %s, to move %v, wins %d", s.Phase, s.Match.ToMove(), s.Config.Wins)
	case !s.Deadline.Equal(tNow.Add(2*time.Minute)) || !s.PostDue.Equal(tNow):
		t.Errorf("deadline %v, post due %v; want the tournament's turn time, the board posted at once", s.Deadline, s.PostDue)
	case !s.Rated || s.Tournament != want || s.Theme != "ocean" || s.Place.Locale != "de" || !s.Place.Thread:
		t.Errorf("session %+v", s)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("the game's session is invalid: %v", err)
	}
	bye := GameRef{Round: 1, Board: 2} // three players: board 2 is the bye
	if _, err := tt.GameSession(bye, "t", true, tNow, DefaultPolicy()); !errors.Is(err, ErrGameTaken) {
		t.Errorf("a bye's session: %v, want ErrGameTaken", err)
	}
	small := newTestTournament(t, tournament.Config{Rated: true, Rows: 5, Columns: 5, Connect: 4}, 2)
	_ = small.Start(tNow)
	_, _ = small.Step(tNow, DefaultPolicy())
	if s, _ := small.GameSession(GameRef{Round: 1, Board: 1}, "t", false, tNow, DefaultPolicy()); s.Rated {
		t.Errorf("a rated tournament on a 5 × 5 board rates its games")
	}
}

func TestTournamentResult(t *testing.T) {
	link := TournamentLink{ID: 1, Round: 1, Board: 1}
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	won, _ := game.NewMatch(cfg)
	for _, c := range []int{0, 1, 0, 1, 0, 1, 0} {
		if _, err := won.Play(won.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	timedOut, _ := game.NewMatch(cfg)
	if err := timedOut.Forfeit(game.Player1); err != nil {
		t.Fatal(err)
	}
	stopped, _ := game.NewMatch(cfg)
	for _, tc := range []struct {
		name string
		s    Session
		want tournament.Result
		ok   bool
	}{
		{"won by the opener", Session{Tournament: link, Phase: PhaseFinished, Match: won}, tournament.OpenerWins, true},
		{"the opener never moved", Session{Tournament: link, Phase: PhaseFinished, End: EndTimeout, Match: timedOut}, tournament.SecondWinsByForfeit, true},
		{"ended level by an admin", Session{Tournament: link, Phase: PhaseCancelled, End: EndEnded, Match: stopped}, tournament.Draw, true},
		{"still played", Session{Tournament: link, Phase: PhasePlaying, Match: stopped}, tournament.Pending, false},
		{"no tournament", Session{Phase: PhaseFinished, Match: won}, tournament.Pending, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := TournamentResult(&tc.s)
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %q, %t; want %q, %t", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestCheckTournamentChange(t *testing.T) {
	base := newTestTournament(t, tournament.Config{}, 4)
	_ = base.Start(tNow)
	_, _ = base.Step(tNow, DefaultPolicy())
	st, _ := tournament.RecordResult(base.State, 1, base.State.Rounds[0].Pairings[0].Opener, tournament.OpenerWins)
	base.State = st
	for _, tc := range []struct {
		name   string
		change func(*Tournament)
		ok     bool
	}{
		{"a game's session", func(x *Tournament) { x.Games[0][1].SessionID = 3 }, true},
		{"the channel", func(x *Tournament) { x.ChannelID = "other" }, false},
		{"the config", func(x *Tournament) { x.State.Config.Rounds = 9 }, false},
		{"a round taken back", func(x *Tournament) { x.State.Rounds = nil; x.Games = nil }, false},
		{"a result changed", func(x *Tournament) { x.State.Rounds[0].Pairings[0].Result = tournament.SecondWins }, false},
		{"a pairing's players", func(x *Tournament) {
			x.State.Rounds[0].Pairings[1].Opener, x.State.Rounds[0].Pairings[1].Second = x.State.Rounds[0].Pairings[1].Second, x.State.Rounds[0].Pairings[1].Opener
		}, false},
		{"a game lost", func(x *Tournament) { x.Games[0] = x.Games[0][:1] }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := base.Clone()
			tc.change(after)
			err := CheckTournamentChange(base, after)
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidTournament)) {
				t.Errorf("got %v, want ok %t", err, tc.ok)
			}
		})
	}
}

func TestForgottenID(t *testing.T) {
	if id := ForgottenID(12); !Forgotten(id) || Forgotten("123456789012345678") || Forgotten("forgotten-") {
		t.Errorf("ForgottenID(12) = %q, Forgotten of it, a snowflake and the bare prefix", id)
	}
}
