package sessionstest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

// The tournaments' part of the suite (sessions.TournamentStore): every
// backend's Store is also a TournamentStore.

// tournamentTests are the suite's tests of tournaments, run by Run.
var tournamentTests = []struct {
	name string
	fn   func(*testing.T, Backend)
}{
	{"TournamentRoundtrip", testTournamentRoundtrip},
	{"TournamentGameLinkedOnce", testTournamentGameLinkedOnce},
	{"TournamentResultWithTheEnd", testTournamentResultWithTheEnd},
	{"TournamentResultInOneTransaction", testTournamentResultInOneTransaction},
	{"TournamentRoundAdvancedOnce", testTournamentRoundAdvancedOnce},
	{"TournamentStepsMeet", testTournamentStepsMeet},
	{"TournamentRestartMidRound", testTournamentRestartMidRound},
	{"TournamentTwoStoresUpdate", testTournamentTwoStoresUpdate},
	{"TournamentReadsWhole", testTournamentReadsWhole},
	{"TournamentDueAndList", testTournamentDueAndList},
	{"TournamentForget", testTournamentForget},
	{"TournamentExportImport", testTournamentExportImport},
	{"TournamentAbandonedGame", testTournamentAbandonedGame},
}

// tournamentsOf returns st as a TournamentStore.
func tournamentsOf(tb testing.TB, st sessions.Store) sessions.TournamentStore {
	tb.Helper()
	ts, ok := st.(sessions.TournamentStore)
	if !ok {
		tb.Fatalf("%T is not a sessions.TournamentStore", st)
	}
	return ts
}

// entrant returns the i-th test player of a tournament (from 1), shaped
// like a snowflake.
func entrant(i int) sessions.Member {
	return sessions.Member{ID: fmt.Sprintf("3000000000000%05d", i), Name: fmt.Sprintf("Player %d", i)}
}

// newCup stores a Swiss of the given rules in guild with n players.
func newCup(tb testing.TB, st sessions.Store, guild string, cfg tournament.Config, n int, now time.Time) *sessions.Tournament {
	tb.Helper()
	if cfg.Name == "" {
		cfg.Name = "Friday Cup"
	}
	if cfg.Format == "" {
		cfg.Format = tournament.Swiss
	}
	tt, err := sessions.NewTournament(sessions.TournamentRequest{GuildID: guild, ChannelID: "cup-channel", Config: cfg, Seed: 11,
		CreatedBy: alice.ID, Settings: sessions.TournamentSettings{Threads: true, Theme: "classic"}}, now)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if err := tt.Join(entrant(i), 1500+float64(i), false, now); err != nil {
			tb.Fatal(err)
		}
	}
	got, err := tournamentsOf(tb, st).CreateTournament(tb.Context(), tt)
	if err != nil {
		tb.Fatalf("CreateTournament: %v", err)
	}
	return got
}

// step runs Step on tournament id through st at now and returns what it
// did; a step with nothing to do is no failure.
func step(tb testing.TB, st sessions.Store, id int64, now time.Time) sessions.TournamentStep {
	tb.Helper()
	var out sessions.TournamentStep
	_, err := tournamentsOf(tb, st).UpdateTournament(tb.Context(), id, func(t *sessions.Tournament) error {
		var err error
		out, err = t.Step(now, sessions.DefaultPolicy())
		return err
	})
	if err != nil && !errors.Is(err, sessions.ErrNothingDue) {
		tb.Fatalf("step tournament %d: %v", id, err)
	}
	return out
}

// start starts tournament id and steps it (round 1 paired).
func start(tb testing.TB, st sessions.Store, id int64, now time.Time) *sessions.Tournament {
	tb.Helper()
	t, err := tournamentsOf(tb, st).UpdateTournament(tb.Context(), id, func(t *sessions.Tournament) error {
		if err := t.Start(now); err != nil {
			return err
		}
		_, err := t.Step(now, sessions.DefaultPolicy())
		return err
	})
	if err != nil {
		tb.Fatalf("start tournament %d: %v", id, err)
	}
	return t
}

// gameChannel is the channel the test plays game round.board of
// tournament id in.
func gameChannel(id int64, round, board int) string {
	return fmt.Sprintf("cup-%d-%d-%d", id, round, board)
}

// startGames creates the session of every game of round that is to be
// played (not a bye), in a channel of its own, and returns their channels.
func startGames(tb testing.TB, st sessions.Store, t *sessions.Tournament, round int, now time.Time) []string {
	tb.Helper()
	var channels []string
	for b, p := range t.State.Rounds[round-1].Pairings {
		if p.Result != tournament.Pending {
			continue
		}
		ch := gameChannel(t.ID, round, b+1)
		s, err := t.GameSession(sessions.GameRef{Round: round, Board: b + 1}, ch, true, now, sessions.DefaultPolicy())
		if err != nil {
			tb.Fatal(err)
		}
		mustCreate(tb, st, s)
		channels = append(channels, ch)
	}
	return channels
}

// winSecond and winOpener are the moves of a standard board that the
// second player (four in column 2) and the opener (four in column 1) win.
var (
	winSecond = []int{0, 1, 2, 1, 3, 1, 5, 1}
	winOpener = []int{0, 1, 0, 1, 0, 1, 0}
)

// playGame plays moves in the game of channel through st: it ends.
func playGame(tb testing.TB, st sessions.Store, channel string, moves []int) *sessions.Session {
	tb.Helper()
	return mustUpdate(tb, st, channel, func(s *sessions.Session) error {
		for _, c := range moves {
			if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
				return err
			}
		}
		return nil
	})
}

func mustTournament(tb testing.TB, st sessions.Store, id int64) *sessions.Tournament {
	tb.Helper()
	t, err := tournamentsOf(tb, st).Tournament(tb.Context(), id)
	if err != nil {
		tb.Fatalf("Tournament(%d): %v", id, err)
	}
	return t
}

// testTournamentRoundtrip stores a tournament, changes it in every part
// the store keeps (entries joined, removed and withdrawn, names, status,
// settings, posts, due, rounds, pairings, results and games), and reads
// back exactly what was written, from another Store too.
func testTournamentRoundtrip(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	st, other := db.Open(t, clk), db.Open(t, clk)
	ts := tournamentsOf(t, st)
	cup := newCup(t, st, "guild-1", tournament.Config{Rated: true, Rounds: 2}, 5, clk.Now())
	if cup.ID == 0 || cup.Revision != 0 || !cup.CreatedAt.Equal(clk.Now().UTC()) {
		t.Errorf("created: id %d, revision %d, created %v", cup.ID, cup.Revision, cup.CreatedAt)
	}
	same := func(what string, got, want *sessions.Tournament) {
		t.Helper()
		g, w := *got, *want
		g.UpdatedAt, w.UpdatedAt = time.Time{}, time.Time{}
		if fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", w) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
		}
	}
	same("read back", mustTournament(t, st, cup.ID), cup)
	clk.Advance(time.Minute)
	changed, err := ts.UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error {
		if _, _, err := x.Leave(entrant(2).ID, clk.Now()); err != nil { // before the start: removed
			return err
		}
		x.Names[entrant(3).ID] = "Renamed"
		x.Settings.Role, x.Posts.SignUp = "555", "msg-1"
		if err := x.Join(entrant(9), 1800, true, clk.Now()); err != nil {
			return err
		}
		if err := x.Start(clk.Now()); err != nil {
			return err
		}
		_, err := x.Step(clk.Now(), sessions.DefaultPolicy())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if changed.Revision != 1 || len(changed.State.Rounds) != 1 || len(changed.State.Players) != 5 {
		t.Fatalf("after the update: revision %d, %d rounds, %d players", changed.Revision, len(changed.State.Rounds), len(changed.State.Players))
	}
	same("after the update", mustTournament(t, other, cup.ID), changed)
	clk.Advance(time.Minute)
	bye := slices.IndexFunc(changed.State.Rounds[0].Pairings, tournament.Pairing.IsBye)
	if bye < 0 {
		t.Fatal("five players and no bye")
	}
	final, err := tournamentsOf(t, other).UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error {
		p := x.State.Rounds[0].Pairings[0]
		st, err := tournament.RecordResult(x.State, 1, p.Opener, tournament.Draw)
		if err != nil {
			return err
		}
		x.State = st
		x.Games[0][1] = sessions.TournamentGame{SessionID: 77, ChannelID: "thread-x", Claimed: clk.Now().Add(time.Second)}
		_, _, err = x.Leave(entrant(4).ID, clk.Now()) // after the start: withdrawn
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := final.Entry(entrant(4).ID); !e.Withdrawn {
		t.Fatal("not withdrawn")
	}
	same("after the results", mustTournament(t, st, cup.ID), final)
	// fn's error writes nothing.
	boom := errors.New("boom")
	if _, err := ts.UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error { x.Status = sessions.TournamentPaused; return boom }); !errors.Is(err, boom) {
		t.Errorf("fn's error: got %v", err)
	}
	// So does a change that breaks a rule.
	if _, err := ts.UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error { x.ChannelID = "elsewhere"; return nil }); !errors.Is(err, sessions.ErrInvalidTournament) {
		t.Errorf("a changed channel: got %v, want ErrInvalidTournament", err)
	}
	same("after refused updates", mustTournament(t, st, cup.ID), final)
	if _, err := ts.Tournament(t.Context(), 999); !errors.Is(err, sessions.ErrTournamentNotFound) {
		t.Errorf("Tournament(999): %v, want ErrTournamentNotFound", err)
	}
	if _, err := ts.UpdateTournament(t.Context(), 999, func(*sessions.Tournament) error { return nil }); !errors.Is(err, sessions.ErrTournamentNotFound) {
		t.Errorf("UpdateTournament(999): %v, want ErrTournamentNotFound", err)
	}
}

// testTournamentGameLinkedOnce: a game's session is recorded on its
// pairing when it is created; a second session for the same game (another
// process starting it too, in another thread) is refused with ErrGameTaken
// and leaves nothing behind, and so is one for a tournament that is
// paused.
func testTournamentGameLinkedOnce(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	st, other := db.Open(t, clk), db.Open(t, clk)
	cup := start(t, st, newCup(t, st, "guild-1", tournament.Config{}, 4, clk.Now()).ID, clk.Now())
	ref := sessions.GameRef{Round: 1, Board: 1}
	s1, err := cup.GameSession(ref, "thread-a", true, clk.Now(), sessions.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	created := mustCreate(t, st, s1)
	if created.Tournament != (sessions.TournamentLink{ID: cup.ID, Round: 1, Board: 1}) {
		t.Errorf("created session's link %+v", created.Tournament)
	}
	if got := mustGet(t, other, "thread-a").Tournament; got != created.Tournament {
		t.Errorf("read back link %+v, want %+v", got, created.Tournament)
	}
	after := mustTournament(t, other, cup.ID)
	if g := after.Games[0][0]; g.SessionID != created.ID || g.ChannelID != "thread-a" || !g.Claimed.IsZero() {
		t.Errorf("pairing's game %+v, want session %d in thread-a", g, created.ID)
	}
	if after.Revision <= cup.Revision {
		t.Errorf("revision %d after a game started, was %d", after.Revision, cup.Revision)
	}
	s2, _ := cup.GameSession(ref, "thread-b", true, clk.Now(), sessions.DefaultPolicy()) // from the stale copy
	if _, err := other.Create(t.Context(), s2); !errors.Is(err, sessions.ErrGameTaken) {
		t.Errorf("a second session for the game: %v, want ErrGameTaken", err)
	}
	if _, err := other.Get(t.Context(), "thread-b"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("the refused session was stored: Get = %v", err)
	}
	if _, err := tournamentsOf(t, st).UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error { return x.Pause(clk.Now()) }); err != nil {
		t.Fatal(err)
	}
	s3, _ := cup.GameSession(sessions.GameRef{Round: 1, Board: 2}, "thread-c", true, clk.Now(), sessions.DefaultPolicy())
	if _, err := st.Create(t.Context(), s3); !errors.Is(err, sessions.ErrGameTaken) {
		t.Errorf("a game of a paused tournament: %v, want ErrGameTaken", err)
	}
}

// testTournamentResultWithTheEnd: a game's result is recorded on its
// pairing when its session ends, in the pairing's terms, and the
// tournament is due at once; a session ended without its match played out
// (an admin) gives the match as it stood; a result given first stands.
func testTournamentResultWithTheEnd(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	st := db.Open(t, clk)
	ts := tournamentsOf(t, st)
	cup := start(t, st, newCup(t, st, "guild-1", tournament.Config{}, 4, clk.Now()).ID, clk.Now())
	chans := startGames(t, st, mustTournament(t, st, cup.ID), 1, clk.Now())
	// Make it not due, as if its sweep had just run.
	if _, err := ts.UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error { x.Due = time.Time{}; return nil }); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	before := mustTournament(t, st, cup.ID)
	playGame(t, st, chans[0], winSecond)
	after := mustTournament(t, st, cup.ID)
	if got := after.State.Rounds[0].Pairings[0].Result; got != tournament.SecondWins {
		t.Errorf("result %q, want %q", got, tournament.SecondWins)
	}
	if !after.Due.Equal(clk.Now().UTC()) || after.Revision <= before.Revision {
		t.Errorf("after a result: due %v, revision %d (was %d); want due now, revision moved on", after.Due, after.Revision, before.Revision)
	}
	if due, err := ts.DueTournaments(t.Context(), clk.Now(), 0); err != nil || !slices.Contains(due, cup.ID) {
		t.Errorf("DueTournaments = %v, %v; want the tournament", due, err)
	}
	// An admin ends the other game after one move: a draw as it stood.
	mustUpdate(t, st, chans[1], func(s *sessions.Session) error {
		if _, err := s.Match.Play(game.Player1, 3); err != nil {
			return err
		}
		return s.EndBy(bob.ID)
	})
	if got := mustTournament(t, st, cup.ID).State.Rounds[0].Pairings[1].Result; got != tournament.Draw {
		t.Errorf("ended game: %q, want a draw", got)
	}
	// A result given before the session's end stands: the end records
	// nothing over it.
	cup2 := start(t, st, newCup(t, st, "guild-1", tournament.Config{}, 2, clk.Now()).ID, clk.Now())
	ch := startGames(t, st, cup2, 1, clk.Now())[0]
	if _, err := ts.UpdateTournament(t.Context(), cup2.ID, func(x *sessions.Tournament) error {
		var err error
		x.State, err = tournament.RecordResult(x.State, 1, x.State.Rounds[0].Pairings[0].Opener, tournament.DoubleForfeit)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	playGame(t, st, ch, winOpener)
	if got := mustTournament(t, st, cup2.ID).State.Rounds[0].Pairings[0].Result; got != tournament.DoubleForfeit {
		t.Errorf("a game whose result was given before its end: %q, want the first result, %q", got, tournament.DoubleForfeit)
	}
}

// testTournamentResultInOneTransaction: when the session's end cannot be
// written (its ratings refused), neither is the game's result: both or
// neither.
func testTournamentResultInOneTransaction(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	st := db.Open(t, clk)
	cup := start(t, st, newCup(t, st, "guild-1", tournament.Config{Rated: true}, 2, clk.Now()).ID, clk.Now())
	chans := startGames(t, st, cup, 1, clk.Now())
	db.RefuseRatings(t)
	_, err := st.Update(t.Context(), chans[0], func(s *sessions.Session) error {
		for _, c := range winOpener {
			if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "ratings refused") {
		t.Fatalf("the end with its ratings refused: %v", err)
	}
	if got := mustTournament(t, st, cup.ID).State.Rounds[0].Pairings[0].Result; got != tournament.Pending {
		t.Errorf("the result was recorded without the session's end: %q", got)
	}
	if s := mustGet(t, st, chans[0]); s.Phase != sessions.PhasePlaying {
		t.Errorf("the session is %s", s.Phase)
	}
}

// testTournamentRoundAdvancedOnce: the last results of a round come from
// two stores (two processes) at once, each followed at once by a step
// from its store, as two replicas' sweeps would run when they see them;
// the next round is paired once, by one of the steps, and stored once.
// Several tournaments are played so, to give the race its chances.
func testTournamentRoundAdvancedOnce(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	stores := [2]sessions.Store{db.Open(t, clk), db.Open(t, clk)}
	for k := range 4 {
		cup := start(t, stores[0], newCup(t, stores[0], "guild-1", tournament.Config{Rounds: 3}, 8, clk.Now()).ID, clk.Now())
		chans := startGames(t, stores[0], cup, 1, clk.Now())
		var paired atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i, ch := range chans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st := stores[i%2]
				if _, err := st.Update(t.Context(), ch, func(s *sessions.Session) error {
					for _, c := range winOpener {
						if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					errs <- err
					return
				}
				for range 3 {
					var out sessions.TournamentStep
					_, err := tournamentsOf(t, st).UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error {
						var err error
						out, err = x.Step(clk.Now(), sessions.DefaultPolicy())
						return err
					})
					if err != nil && !errors.Is(err, sessions.ErrNothingDue) {
						errs <- err
						return
					}
					if slices.Contains(out.Paired, 2) {
						paired.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("tournament %d: %v", k, err)
		}
		got := mustTournament(t, stores[1], cup.ID)
		if n := paired.Load(); n != 1 {
			t.Errorf("tournament %d: round 2 was paired by %d steps, want 1", k, n)
		}
		if len(got.State.Rounds) != 2 || len(got.State.Rounds[1].Pairings) != 4 {
			t.Fatalf("tournament %d: %d rounds stored, want 2 (round 2 of 4 games)", k, len(got.State.Rounds))
		}
		rounds := 0
		for _, row := range db.Dump(t)["tournament_rounds"] {
			if row[0] == fmt.Sprint(cup.ID) {
				rounds++
			}
		}
		if rounds != 2 {
			t.Errorf("tournament %d: %d rows of rounds, want 2", k, rounds)
		}
	}
}

// testTournamentStepsMeet: two processes step a tournament whose round is
// finished at the same instant: both load it, both pair the next round
// (the same round: pairing is a function of the state), and only then do
// they write (each step waits inside its function until the other has
// paired too). One write wins; the other's compare-and-swap fails, its
// function runs again on the winner's tournament and pairs nothing. The
// round is stored once.
func testTournamentStepsMeet(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	stores := [2]sessions.Store{db.Open(t, clk), db.Open(t, clk)}
	cup := start(t, stores[0], newCup(t, stores[0], "guild-1", tournament.Config{Rounds: 3}, 6, clk.Now()).ID, clk.Now())
	for _, ch := range startGames(t, stores[0], cup, 1, clk.Now()) {
		playGame(t, stores[0], ch, winOpener)
	}
	var (
		met   sync.WaitGroup
		wg    sync.WaitGroup
		calls [2]atomic.Int32
		steps [2]sessions.TournamentStep
		errs  [2]error
	)
	met.Add(2)
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = tournamentsOf(t, st).UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error {
				var err error
				steps[i], err = x.Step(clk.Now(), sessions.DefaultPolicy())
				if calls[i].Add(1) == 1 {
					met.Done()
					met.Wait() // both have paired from the same tournament
				}
				return err
			})
		}()
	}
	wg.Wait()
	won := 0
	for i := range stores {
		switch {
		case errs[i] == nil && slices.Equal(steps[i].Paired, []int{2}) && calls[i].Load() == 1:
			won++
		case errors.Is(errs[i], sessions.ErrNothingDue) && calls[i].Load() == 2 && len(steps[i].Paired) == 0:
		default:
			t.Errorf("store %d: step %+v, %v after %d calls; want the winner's one call, or the loser's second that pairs nothing",
				i, steps[i], errs[i], calls[i].Load())
		}
	}
	if won != 1 {
		t.Errorf("%d steps paired round 2, want 1", won)
	}
	if got := mustTournament(t, stores[1], cup.ID); len(got.State.Rounds) != 2 {
		t.Errorf("%d rounds stored, want 2", len(got.State.Rounds))
	}
}

// testTournamentRestartMidRound: a tournament survives a restart in the
// middle of a round: the process that stored it goes, another opens the
// database, finds the round's results so far and its games, plays the
// rest and pairs the next round.
func testTournamentRestartMidRound(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	first := db.Open(t, clk)
	cup := start(t, first, newCup(t, first, "guild-1", tournament.Config{}, 6, clk.Now()).ID, clk.Now())
	chans := startGames(t, first, cup, 1, clk.Now())
	playGame(t, first, chans[0], winOpener)
	mustUpdate(t, first, chans[1], func(s *sessions.Session) error { _, err := s.Match.Play(game.Player1, 2); return err }) // under way
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	second := db.Open(t, clk)
	got := mustTournament(t, second, cup.ID)
	if len(got.State.Rounds) != 1 || got.State.Rounds[0].Pairings[0].Result != tournament.OpenerWins {
		t.Fatalf("after the restart: %+v", got.State.Rounds)
	}
	for b := range 3 {
		if got.Games[0][b].ChannelID != chans[b] || got.Games[0][b].SessionID == 0 {
			t.Errorf("game %d after the restart: %+v, want its session in %s", b+1, got.Games[0][b], chans[b])
		}
	}
	if s := step(t, second, cup.ID, clk.Now()); len(s.Paired) != 0 {
		t.Fatalf("round 2 paired with games under way: %+v", s)
	}
	mustUpdate(t, second, chans[1], func(s *sessions.Session) error {
		for _, c := range []int{1, 2, 1, 2, 1, 2} { // the opener's four in column 3
			if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
				return err
			}
		}
		return nil
	})
	playGame(t, second, chans[2], winSecond)
	if s := step(t, second, cup.ID, clk.Now()); !slices.Equal(s.Paired, []int{2}) || len(s.Games) != 3 {
		t.Fatalf("after the round: step %+v, want round 2 paired and its 3 games claimed", s)
	}
	final := mustTournament(t, second, cup.ID)
	want := []tournament.Result{tournament.OpenerWins, tournament.OpenerWins, tournament.SecondWins}
	for b, w := range want {
		if got := final.State.Rounds[0].Pairings[b].Result; got != w {
			t.Errorf("round 1, board %d: %q, want %q", b+1, got, w)
		}
	}
}

// testTournamentTwoStoresUpdate: two processes changing one tournament at
// once (members joining through both) both have their change kept: the
// loser of the compare-and-swap runs again on the winner's tournament.
func testTournamentTwoStoresUpdate(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	stores := [2]sessions.Store{db.Open(t, clk), db.Open(t, clk)}
	cup := newCup(t, stores[0], "guild-1", tournament.Config{}, 0, clk.Now())
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := tournamentsOf(t, stores[i%2]).UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error {
				return x.Join(entrant(i), 0, false, clk.Now())
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := mustTournament(t, stores[1], cup.ID)
	if len(got.State.Players) != n || got.Revision != n {
		t.Errorf("%d players, revision %d; want %d and %d", len(got.State.Players), got.Revision, n, n)
	}
}

// testTournamentReadsWhole: a tournament read while another process
// writes it comes back whole, as it stood at one revision: its rounds,
// pairings and results never from two writes (a round paired, its
// pairings not; a result of a round paired since). One store plays a
// Swiss of up to nine rounds, result by result, while another reads it
// again and again.
func testTournamentReadsWhole(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	writer, reader := db.Open(t, clk), db.Open(t, clk)
	cup := start(t, writer, newCup(t, writer, "guild-1", tournament.Config{Rounds: 9}, 10, clk.Now()).ID, clk.Now())
	done := make(chan struct{})
	var reads atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := tournamentsOf(t, reader).Tournament(t.Context(), cup.ID)
			if err != nil {
				t.Errorf("read %d: %v", reads.Load()+1, err)
				return
			}
			if err := got.Validate(); err != nil {
				t.Errorf("read %d: %v", reads.Load()+1, err)
				return
			}
			reads.Add(1)
		}
	})
	stop := func() { close(done); wg.Wait() }
	for tour := mustTournament(t, writer, cup.ID); !tour.Over(); tour = mustTournament(t, writer, cup.ID) {
		round := len(tour.State.Rounds)
		for _, p := range tour.State.Rounds[round-1].Pairings {
			if p.Result != tournament.Pending {
				continue
			}
			if _, err := tournamentsOf(t, writer).UpdateTournament(t.Context(), cup.ID, func(x *sessions.Tournament) error {
				st, err := tournament.RecordResult(x.State, round, p.Opener, tournament.SecondWins)
				x.State = st
				return err
			}); err != nil {
				stop()
				t.Fatal(err)
			}
		}
		step(t, writer, cup.ID, clk.Now())
	}
	stop()
	if got := mustTournament(t, reader, cup.ID); len(got.State.Rounds) < 5 || reads.Load() == 0 {
		t.Errorf("at the end: %d rounds, after %d reads", len(got.State.Rounds), reads.Load())
	}
}

// testTournamentDueAndList: DueTournaments lists the tournaments whose Due
// has come, earliest first, and Tournaments a server's, newest first.
func testTournamentDueAndList(t *testing.T, b Backend) {
	clk := newClock()
	st := b.NewDB(t).Open(t, clk)
	ts := tournamentsOf(t, st)
	a := newCup(t, st, "guild-1", tournament.Config{Name: "A"}, 0, clk.Now())
	b2 := newCup(t, st, "guild-2", tournament.Config{Name: "B"}, 0, clk.Now())
	c := newCup(t, st, "guild-1", tournament.Config{Name: "C"}, 0, clk.Now())
	set := func(id int64, due time.Time) {
		if _, err := ts.UpdateTournament(t.Context(), id, func(x *sessions.Tournament) error { x.Due = due; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	now := clk.Now()
	set(a.ID, now.Add(time.Minute))
	set(b2.ID, now.Add(-time.Minute))
	set(c.ID, time.Time{})
	for _, tc := range []struct {
		at    time.Time
		limit int
		want  []int64
	}{
		{now, 0, []int64{b2.ID}},
		{now.Add(time.Minute), 0, []int64{b2.ID, a.ID}},
		{now.Add(time.Hour), 1, []int64{b2.ID}},
	} {
		if got, err := ts.DueTournaments(t.Context(), tc.at, tc.limit); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("DueTournaments(%v, %d) = %v, %v; want %v", tc.at, tc.limit, got, err, tc.want)
		}
	}
	list, err := ts.Tournaments(t.Context(), "guild-1", 10)
	if err != nil || len(list) != 2 || list[0].ID != c.ID || list[1].ID != a.ID {
		t.Errorf("Tournaments(guild-1) = %v, %v; want C then A", list, err)
	}
	if list, err := ts.Tournaments(t.Context(), "guild-3", 10); err != nil || len(list) != 0 || list == nil {
		t.Errorf("Tournaments(guild-3) = %v, %v; want an empty list", list, err)
	}
	if _, err := ts.Tournaments(t.Context(), "guild-1", 0); err == nil {
		t.Errorf("Tournaments with limit 0: no error")
	}
}

// testTournamentForget: a forgotten member leaves no row naming them; in a
// tournament that started, their entry and games stay under a placeholder
// (the standings, and everyone's tie-breaks, unchanged; withdrawn while it
// runs), and in one open for sign-up their entry goes.
func testTournamentForget(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clk := newClock()
	st := db.Open(t, clk)
	gone := entrant(3)
	running := start(t, st, newCup(t, st, "guild-1", tournament.Config{}, 4, clk.Now()).ID, clk.Now())
	chans := startGames(t, st, running, 1, clk.Now())
	for _, ch := range chans {
		playGame(t, st, ch, winOpener)
	}
	open := newCup(t, st, "guild-1", tournament.Config{}, 4, clk.Now())
	standingsBefore, err := tournament.Standings(mustTournament(t, st, running.ID).State)
	if err != nil {
		t.Fatal(err)
	}
	// The member's game sessions go with Forget, as any of their sessions.
	n, err := st.Forget(t.Context(), gone.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n.TournamentEntries != 2 || n.Matches != 1 {
		t.Errorf("Forget = %+v, want 2 tournament entries and their 1 game", n)
	}
	if rows := rowsNaming(t, db, gone.ID); len(rows) != 0 {
		t.Errorf("rows naming the member after Forget:\n%s", strings.Join(rows, "\n"))
	}
	after := mustTournament(t, st, running.ID)
	standingsAfter, err := tournament.Standings(after.State)
	if err != nil {
		t.Fatal(err)
	}
	seq := 3 // the third to join
	for i, s := range standingsAfter {
		w := standingsBefore[i]
		if w.Player == gone.ID {
			w.Player, w.Withdrawn = sessions.ForgottenID(seq), true
		}
		if fmt.Sprint(s) != fmt.Sprint(w) {
			t.Errorf("standings line %d: got %+v, want %+v", i+1, s, w)
		}
	}
	if e, ok := after.Entry(sessions.ForgottenID(seq)); !ok || !e.Withdrawn || after.Names[e.ID] != "" {
		t.Errorf("the placeholder's entry: %+v, %t, name %q", e, ok, after.Names[e.ID])
	}
	if o := mustTournament(t, st, open.ID); len(o.State.Players) != 3 {
		t.Errorf("the tournament open for sign-up keeps %d players, want 3", len(o.State.Players))
	}
	if after.CreatedBy != alice.ID {
		t.Fatalf("created by %q", after.CreatedBy)
	}
	if _, err := st.Forget(t.Context(), alice.ID); err != nil {
		t.Fatal(err)
	}
	if got := mustTournament(t, st, running.ID).CreatedBy; got != "" {
		t.Errorf("created by %q after the admin was forgotten", got)
	}
}

// testTournamentExportImport: tournaments, their entries, rounds and
// pairings export and import with the sessions of their games, whole or
// one server's, and go on in the copy.
func testTournamentExportImport(t *testing.T, b Backend) {
	clk := newClock()
	src := b.NewDB(t).Open(t, clk)
	cup := start(t, src, newCup(t, src, "guild-1", tournament.Config{}, 5, clk.Now()).ID, clk.Now())
	chans := startGames(t, src, cup, 1, clk.Now())
	playGame(t, src, chans[0], winOpener)
	newCup(t, src, "guild-2", tournament.Config{Name: "Elsewhere"}, 2, clk.Now())
	var file bytes.Buffer
	n, err := exportOf(t, src).Export(t.Context(), &file, sessions.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Tournaments != 2 || n.TournamentEntries != 7 || n.TournamentRounds != 1 || n.TournamentPairings != 3 || n.Matches != 2 {
		t.Errorf("export counts %+v", n)
	}
	dst := b.NewDB(t).Open(t, clk)
	if got, err := importOf(t, dst).Import(t.Context(), bytes.NewReader(file.Bytes())); err != nil || got != n {
		t.Fatalf("Import = %+v, %v; want %+v", got, err, n)
	}
	a, c := mustTournament(t, src, cup.ID), mustTournament(t, dst, cup.ID)
	if fmt.Sprint(a.State, a.Games, a.Names, a.Status, a.Revision) != fmt.Sprint(c.State, c.Games, c.Names, c.Status, c.Revision) {
		t.Errorf("imported tournament differs:\n got %+v\nwant %+v", c, a)
	}
	if s := mustGet(t, dst, chans[1]); s.Tournament != (sessions.TournamentLink{ID: cup.ID, Round: 1, Board: 2}) {
		t.Errorf("imported game's link %+v", s.Tournament)
	}
	// The copy plays on: the game's result reaches its pairing there.
	playGame(t, dst, chans[1], winSecond)
	if got := mustTournament(t, dst, cup.ID).State.Rounds[0].Pairings[1].Result; got != tournament.SecondWins {
		t.Errorf("a game finished in the copy: %q", got)
	}
	// New tournaments get IDs after the imported ones.
	if fresh := newCup(t, dst, "guild-1", tournament.Config{}, 0, clk.Now()); fresh.ID <= cup.ID+1 {
		t.Errorf("a new tournament after the import got ID %d", fresh.ID)
	}
	// One server's export holds its tournament only.
	var one bytes.Buffer
	n1, err := exportOf(t, src).Export(t.Context(), &one, sessions.ExportOptions{GuildID: "guild-2"})
	if err != nil || n1.Tournaments != 1 || n1.TournamentEntries != 2 || n1.TournamentPairings != 0 {
		t.Errorf("guild-2's export: %+v, %v", n1, err)
	}
	// A tournament's rows that do not hold together are refused.
	bad := strings.Replace(file.String(), `"result":"1-0"`, `"result":"3-0"`, 1)
	if bad == file.String() {
		t.Fatal("no result to damage in the export")
	}
	if _, err := importOf(t, b.NewDB(t).Open(t, clk)).Import(t.Context(), strings.NewReader(bad)); !errors.Is(err, sessions.ErrCorrupt) {
		t.Errorf("an export with a damaged result: %v, want ErrCorrupt", err)
	}
}

// testTournamentAbandonedGame: a game whose session is abandoned (its row
// no longer replays) is recorded as neither player's: a double forfeit.
func testTournamentAbandonedGame(t *testing.T, b Backend) {
	clk := newClock()
	st := b.NewDB(t).Open(t, clk)
	cup := start(t, st, newCup(t, st, "guild-1", tournament.Config{}, 2, clk.Now()).ID, clk.Now())
	chans := startGames(t, st, cup, 1, clk.Now())
	if _, err := st.Abandon(t.Context(), chans[0]); err != nil {
		t.Fatal(err)
	}
	if got := mustTournament(t, st, cup.ID).State.Rounds[0].Pairings[0].Result; got != tournament.DoubleForfeit {
		t.Errorf("abandoned game: %q, want a double forfeit", got)
	}
}
