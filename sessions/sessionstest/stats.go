package sessionstest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// oneWin is a match that ends with the first round won: player 1 opens and
// wins with four discs in column 0 unless the script says otherwise.
var oneWin = game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}

// finish plays a whole match in channel between p1 and p2 through the store,
// as the bot would: a challenge, then moves, then the end. winner 1 wins by
// a vertical line, winner 2 by player 1's forfeit after a disc each;
// timeout ends it by a timeout of the loser before the first disc. opts
// change the challenge before it is created (rated, inGuild).
func finish(t *testing.T, st sessions.Store, channel string, p1, p2 sessions.Member, winner game.Player, timeout bool, opts ...func(*sessions.Session)) *sessions.Session {
	t.Helper()
	sess := newSession(t, channel)
	sess.Players = [2]sessions.Member{p1, p2}
	sess.Config, sess.Match = oneWin, mustMatch(t, oneWin)
	for _, opt := range opts {
		opt(sess)
	}
	mustCreate(t, st, sess)
	return mustUpdate(t, st, channel, func(s *sessions.Session) error {
		s.Phase = sessions.PhasePlaying
		switch {
		case timeout:
			s.End = sessions.EndTimeout
			return s.Match.Forfeit(winner.Other())
		case winner == game.Player1:
			mustPlay(t, s.Match, 0, 1, 0, 1, 0, 1, 0)
		default:
			mustPlay(t, s.Match, 0, 1)
			return s.Match.Forfeit(game.Player1)
		}
		return nil
	})
}

func testStatsAndLeaderboard(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	dave := sessions.Member{ID: "100000000000000004", Name: "Dave"}
	// Alice beats Bob twice, then loses to him by forfeit; Carol beats Bob
	// on time; Dave beats Alice once.
	finish(t, st, "chan-1", alice, bob, game.Player1, false)
	finish(t, st, "chan-1", alice, bob, game.Player1, false)
	f := finish(t, st, "chan-2", alice, bob, game.Player2, false)
	if f.End != sessions.EndForfeit || f.Phase != sessions.PhaseFinished {
		t.Fatalf("forfeited match: phase %q, end %q", f.Phase, f.End)
	}
	timed := finish(t, st, "chan-3", carol, bob, game.Player1, true)
	if timed.End != sessions.EndTimeout {
		t.Fatalf("timed-out match end = %q, want %q", timed.End, sessions.EndTimeout)
	}
	finish(t, st, "chan-4", dave, alice, game.Player1, false)

	tests := []struct {
		name string
		user sessions.Member
		want sessions.Stats
	}{
		{"alice", alice, sessions.Stats{Matches: 4, Wins: 2, Losses: 2, RoundsWon: 2, RoundsLost: 2, Streak: 0, BestStreak: 2}},
		{"bob", bob, sessions.Stats{Matches: 4, Wins: 1, Losses: 3, RoundsWon: 1, RoundsLost: 3, Streak: 0, BestStreak: 1}},
		{"carol", carol, sessions.Stats{Matches: 1, Wins: 1, Losses: 0, RoundsWon: 1, RoundsLost: 0, Streak: 1, BestStreak: 1}},
		{"dave", dave, sessions.Stats{Matches: 1, Wins: 1, Losses: 0, RoundsWon: 1, RoundsLost: 0, Streak: 1, BestStreak: 1}},
		{"nobody", sessions.Member{ID: "100000000000000099"}, sessions.Stats{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.Stats(t.Context(), "guild-1", tt.user.ID, false)
			if err != nil {
				t.Fatalf("Stats() error = %v", err)
			}
			want := tt.want
			want.GuildID, want.UserID = "guild-1", tt.user.ID
			if got != want {
				t.Errorf("Stats() = %+v, want %+v", got, want)
			}
		})
	}
	if got, _ := st.Stats(t.Context(), "guild-1", alice.ID, false); got.WinRate() != 0.5 {
		t.Errorf("alice WinRate() = %v, want 0.5", got.WinRate())
	}
	if got, _ := st.Stats(t.Context(), "guild-2", alice.ID, false); got.Matches != 0 {
		t.Errorf("alice in another server = %+v, want no matches", got)
	}

	pairs := []struct {
		a, b sessions.Member
		want sessions.PairRecord
	}{
		{alice, bob, sessions.PairRecord{Wins: 2, Losses: 1}},
		{bob, alice, sessions.PairRecord{Wins: 1, Losses: 2}},
		{bob, carol, sessions.PairRecord{Losses: 1}},
		{carol, dave, sessions.PairRecord{}},
	}
	for _, p := range pairs {
		got, err := st.Pair(t.Context(), "guild-1", p.a.ID, p.b.ID)
		if err != nil || got != p.want {
			t.Errorf("Pair(%s, %s) = %+v, %v, want %+v", p.a.Name, p.b.Name, got, err, p.want)
		}
	}

	// Ranking: Alice has the most wins; Carol and Dave tie on everything
	// and are ordered by ID; Bob has one win in four.
	board, err := st.Leaderboard(t.Context(), "guild-1", 10)
	if err != nil {
		t.Fatalf("Leaderboard() error = %v", err)
	}
	var order []string
	for _, s := range board {
		order = append(order, s.UserID)
	}
	want := []string{alice.ID, carol.ID, dave.ID, bob.ID}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("Leaderboard() order = %v, want %v (alice, carol, dave, bob)", order, want)
	}
	if top2, _ := st.Leaderboard(t.Context(), "guild-1", 2); len(top2) != 2 {
		t.Errorf("Leaderboard(limit 2) = %d rows, want 2", len(top2))
	}
	if _, err := st.Leaderboard(t.Context(), "guild-1", 0); err == nil {
		t.Error("Leaderboard(limit 0) error = nil, want an error")
	}
}

func testStatsRankingRule(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	p := func(n string) sessions.Member { return sessions.Member{ID: "2000000000000000" + n, Name: "P" + n} }
	two := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2}
	// playTwo plays a first-to-2 match in which player 1 wins round 1 and
	// round 2 goes to winner, and round 3 (if any) to player 1.
	playTwo := func(channel string, a, b sessions.Member, winner game.Player) {
		t.Helper()
		s := newSession(t, channel)
		s.Players, s.Config, s.Match, s.Phase = [2]sessions.Member{a, b}, two, mustMatch(t, two), sessions.PhasePlaying
		mustCreate(t, st, s)
		mustUpdate(t, st, channel, func(s *sessions.Session) error {
			mustPlay(t, s.Match, 0, 1, 0, 1, 0, 1, 0) // round 1: player 1 (who opens)
			if err := s.Match.ForfeitRound(winner.Other()); err != nil {
				return err
			}
			if !s.Match.Over() {
				return s.Match.ForfeitRound(game.Player2) // round 3 to player 1
			}
			return nil
		})
	}
	// p1: 2 wins of 2. p2: 2 wins of 3. p3 and p4: 1 win of 1 each, p4 2-0
	// in rounds, p3 2-1: round difference decides, against the order of
	// their IDs. p9 and p8 lose.
	finish(t, st, "c1", p("1"), p("9"), game.Player1, false)
	finish(t, st, "c1", p("1"), p("9"), game.Player1, false)
	finish(t, st, "c2", p("2"), p("9"), game.Player1, false)
	finish(t, st, "c2", p("2"), p("9"), game.Player1, false)
	finish(t, st, "c2", p("2"), p("9"), game.Player2, false)
	playTwo("c4", p("4"), p("8"), game.Player1) // p4 wins 2-0
	playTwo("c3", p("3"), p("8"), game.Player2) // p3 wins 2-1
	board, err := st.Leaderboard(t.Context(), "guild-1", 10)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range board {
		order = append(order, s.UserID[len(s.UserID)-1:])
	}
	// p9: 1 win of 5; p8: 0 wins of 2.
	if got, want := strings.Join(order, ""), "124398"; got != want {
		t.Errorf("Leaderboard() order = %s, want %s", got, want)
	}
	if s3, _ := st.Stats(t.Context(), "guild-1", p("3").ID, false); s3.RoundsWon != 2 || s3.RoundsLost != 1 {
		t.Errorf("p3 rounds = %d-%d, want 2-1", s3.RoundsWon, s3.RoundsLost)
	}
	if s4, _ := st.Stats(t.Context(), "guild-1", p("4").ID, false); s4.RoundsWon != 2 || s4.RoundsLost != 0 {
		t.Errorf("p4 rounds = %d-%d, want 2-0", s4.RoundsWon, s4.RoundsLost)
	}
}

func testStatsAgainstTheBotKeptApart(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	robot := sessions.Member{ID: "900000000000000001", Name: "ConnectN"}
	sess := newSession(t, "chan-1")
	sess.Players[1], sess.AI, sess.Phase = robot, "hard", sessions.PhasePlaying
	sess.Config, sess.Match = oneWin, mustMatch(t, oneWin)
	mustCreate(t, st, sess)
	mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
		mustPlay(t, s.Match, 0, 1, 0, 1, 0, 1, 0)
		return nil
	})
	vsBot, err := st.Stats(t.Context(), "guild-1", alice.ID, true)
	if err != nil || vsBot.Matches != 1 || vsBot.Wins != 1 || !vsBot.VsAI {
		t.Errorf("Stats(vs bot) = %+v, %v, want one win", vsBot, err)
	}
	if vsMembers, _ := st.Stats(t.Context(), "guild-1", alice.ID, false); vsMembers.Matches != 0 {
		t.Errorf("Stats(vs members) = %+v, want none", vsMembers)
	}
	if botStats, _ := st.Stats(t.Context(), "guild-1", robot.ID, false); botStats.Matches != 0 {
		t.Errorf("the bot's own stats = %+v, want none", botStats)
	}
	if board, _ := st.Leaderboard(t.Context(), "guild-1", 10); len(board) != 0 {
		t.Errorf("Leaderboard() = %+v, want empty: matches against the bot stay off it", board)
	}
}

// TestStatsCountedOnce changes a finished session again (its message, say)
// and checks its result is not counted twice.
func testStatsCountedOnce(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	finish(t, st, "chan-1", alice, bob, game.Player1, false)
	mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
		s.MessageID = "msg-2"
		return nil
	})
	if got, _ := st.Stats(t.Context(), "guild-1", alice.ID, false); got.Matches != 1 {
		t.Errorf("Stats() after a second update of a finished match = %+v, want 1 match", got)
	}
}

// TestResultAndStatsInOneTransaction makes the stats write fail and checks
// that the result was not written either: the match is still being played.
func testResultAndStatsInOneTransaction(t *testing.T, b Backend) {
	db := b.NewDB(t)
	st := db.Open(t, newClock())
	sess := newSession(t, "chan-1")
	sess.Config, sess.Match, sess.Phase = oneWin, mustMatch(t, oneWin), sessions.PhasePlaying
	mustCreate(t, st, sess)
	db.RefusePairRecords(t)
	_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
		mustPlay(t, s.Match, 0, 1, 0, 1, 0, 1, 0)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "pair records refused") {
		t.Fatalf("Update() finishing the match error = %v, want the stats failure", err)
	}
	got := mustGet(t, st, "chan-1")
	if got.Phase != sessions.PhasePlaying || got.Match.Plies() != 0 {
		t.Errorf("after a failed stats write: phase %q, %d plies; want the match as it was", got.Phase, got.Match.Plies())
	}
	if s, _ := st.Stats(t.Context(), "guild-1", alice.ID, false); s.Matches != 0 {
		t.Errorf("Stats() = %+v, want nothing written", s)
	}
}

func testDue(t *testing.T, b Backend) {
	clock := newClock()
	st := b.NewDB(t).Open(t, clock)
	now := t0.UTC()
	set := func(channel string, deadline, postDue time.Time, phase sessions.Phase) {
		t.Helper()
		s := newSession(t, channel)
		s.Phase, s.Deadline, s.PostDue = phase, deadline, postDue
		if phase == sessions.PhaseCancelled {
			s.End = sessions.EndDeclined
		}
		mustCreate(t, st, s)
	}
	set("a-late", now.Add(-time.Minute), time.Time{}, sessions.PhasePlaying)
	set("b-exact", now, time.Time{}, sessions.PhaseChallenge)
	set("c-future", now.Add(time.Second), time.Time{}, sessions.PhasePlaying)
	set("d-post", now.Add(time.Hour), now.Add(-2*time.Minute), sessions.PhasePlaying)
	set("e-none", time.Time{}, time.Time{}, sessions.PhasePlaying)
	set("f-cancelled", time.Time{}, time.Time{}, sessions.PhaseCancelled)

	got, err := st.Due(t.Context(), now, 0)
	if err != nil {
		t.Fatalf("Due() error = %v", err)
	}
	if want := "d-post,a-late,b-exact"; strings.Join(got, ",") != want {
		t.Errorf("Due(now) = %v, want %s (earliest first)", got, want)
	}
	if got, _ := st.Due(t.Context(), now, 1); len(got) != 1 || got[0] != "d-post" {
		t.Errorf("Due(now, 1) = %v, want [d-post]", got)
	}
	// Ending a session clears its deadline: it is no longer due.
	mustUpdate(t, st, "a-late", func(s *sessions.Session) error { return s.Match.Forfeit(game.Player1) })
	if s := mustGet(t, st, "a-late"); !s.Deadline.IsZero() || !s.PostDue.IsZero() {
		t.Errorf("finished session keeps deadline %v, post due %v", s.Deadline, s.PostDue)
	}
	if got, _ := st.Due(t.Context(), now.Add(time.Second), 0); strings.Join(got, ",") != "d-post,b-exact,c-future" {
		t.Errorf("Due(now+1s) = %v, want d-post,b-exact,c-future", got)
	}
	if n, err := st.CountActive(t.Context()); err != nil || n != 4 {
		t.Errorf("CountActive() = %d, %v, want 4", n, err)
	}
}

func testSessionRules(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	mustCreate(t, st, newSession(t, "chan-1"))
	tests := []struct {
		name string
		fn   func(*sessions.Session) error
	}{
		{"finished without a result", func(s *sessions.Session) error { s.Phase = sessions.PhaseFinished; return nil }},
		{"active with an end", func(s *sessions.Session) error { s.End = sessions.EndWon; return nil }},
		{"cancelled as won", func(s *sessions.Session) error {
			s.Phase, s.End = sessions.PhaseCancelled, sessions.EndWon
			return nil
		}},
		{"unknown end", func(s *sessions.Session) error {
			s.Phase, s.End = sessions.PhaseCancelled, "vanished"
			return nil
		}},
		{"negative post sequence", func(s *sessions.Session) error { s.PostSeq = -1; return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := st.Update(t.Context(), "chan-1", tt.fn); !errors.Is(err, sessions.ErrInvalidSession) {
				t.Errorf("Update() error = %v, want %v", err, sessions.ErrInvalidSession)
			}
		})
	}
}
