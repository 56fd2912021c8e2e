package sessionstest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// The contract of sessions.PuzzleStore, run by Run on every backend.

// runPuzzles runs the puzzles' tests, each on a fresh database.
func runPuzzles(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"AttemptRoundtrip", testAttemptRoundtrip},
		{"AttemptChangeRules", testAttemptChangeRules},
		{"FirstAttemptOnlyRated", testFirstAttemptOnlyRated},
		{"FirstAttemptRacing", testFirstAttemptRacing},
		{"FinishRacing", testFinishRacing},
		{"StreakAndIdle", testStreakAndIdle},
		{"PuzzleLeaderboard", testPuzzleLeaderboard},
		{"PuzzleScans", testPuzzleScans},
		{"DailySettings", testDailySettings},
		{"PuzzleOfDay", testPuzzleOfDay},
		{"DailyPostClaimedOnce", testDailyPostClaimedOnce},
		{"DailySolvers", testDailySolvers},
		{"ForgetPuzzles", testForgetPuzzles},
		{"ExportImportPuzzles", testExportImportPuzzles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, b) })
	}
}

// puzzleRater is the rater of the tests: Glicko-2 with τ 0.75, as
// puzzle.Rate (which this package does not import).
func puzzleRater(member, puzzle rating.Rating, solved bool) (rating.Rating, rating.Rating) {
	score := 0.0
	if solved {
		score = 1
	}
	return rating.System{Tau: 0.75}.Match(member, puzzle, score)
}

// puzzlesOf returns the PuzzleStore of st, a backend's Store.
func puzzlesOf(t *testing.T, st sessions.Store) sessions.PuzzleStore {
	t.Helper()
	p, ok := st.(sessions.PuzzleStore)
	if !ok {
		t.Fatalf("%T is no sessions.PuzzleStore", st)
	}
	return p
}

// openPuzzles opens a store on a fresh database with clock c.
func openPuzzles(t *testing.T, b Backend, c *clocktest.Fake) (sessions.PuzzleStore, DB) {
	t.Helper()
	db := b.NewDB(t)
	return puzzlesOf(t, db.Open(t, c)), db
}

// puzzleAt is a puzzle's rating as it starts: 1500 for the tests.
var puzzleAt = rating.Rating{R: 1500, RD: 350, Sigma: 0.06}

// startAttempt starts m's attempt at puzzle id in guild.
func startAttempt(t *testing.T, st sessions.PuzzleStore, m sessions.Member, guild, id, daily string) *sessions.Attempt {
	t.Helper()
	a, err := st.StartAttempt(t.Context(), &sessions.Attempt{UserID: m.ID, GuildID: guild, PuzzleID: id,
		Puzzle: "6x7c4 4453326 win5 3 gen:1 " + id, PuzzleRating: puzzleAt, Daily: daily})
	if err != nil {
		t.Fatalf("StartAttempt(%s, %s) error = %v", m.Name, id, err)
	}
	return a
}

// finishAttempt ends attempt a as result (hinted when hint).
func finishAttempt(t *testing.T, st sessions.PuzzleStore, a *sessions.Attempt, result sessions.AttemptResult, hint bool) *sessions.Attempt {
	t.Helper()
	got, err := st.UpdateAttempt(t.Context(), a.ID, puzzleRater, func(x *sessions.Attempt) error {
		x.Moves, x.Result, x.Hinted = x.Moves+"4", result, x.Hinted || hint
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateAttempt(%d → %s) error = %v", a.ID, result, err)
	}
	return got
}

func mustPuzzlePlayer(t *testing.T, st sessions.PuzzleStore, m sessions.Member) sessions.PuzzlePlayer {
	t.Helper()
	p, err := st.PuzzlePlayer(t.Context(), m.ID)
	if err != nil {
		t.Fatalf("PuzzlePlayer(%s) error = %v", m.Name, err)
	}
	return p
}

// testAttemptRoundtrip: an attempt reads back as started, its moves and
// hint written by UpdateAttempt, its finish timed by the clock, and the
// puzzles a member started are the ones seen.
func testAttemptRoundtrip(t *testing.T, b Backend) {
	c := newClock()
	st, _ := openPuzzles(t, b, c)
	a := startAttempt(t, st, alice, "guild-1", "puzzle0001", "2025-03-14")
	if a.ID == 0 || !a.First || a.Result != sessions.AttemptOpen || !a.StartedAt.Equal(t0) || a.StartedAt.Location() != time.UTC {
		t.Errorf("StartAttempt() = %+v, want an ID, first, open, started at %v in UTC", a, t0)
	}
	got, err := st.Attempt(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(*got) != fmt.Sprint(*a) {
		t.Errorf("Attempt() = %+v, want %+v", *got, *a)
	}
	c.Advance(time.Minute)
	moved, err := st.UpdateAttempt(t.Context(), a.ID, puzzleRater, func(x *sessions.Attempt) error {
		x.Moves, x.Hinted = "43", true
		return nil
	})
	if err != nil || moved.Moves != "43" || !moved.Hinted || moved.Revision != a.Revision+1 || !moved.FinishedAt.IsZero() {
		t.Fatalf("UpdateAttempt(moves) = %+v, %v, want moves 43, hinted, revision +1, open", moved, err)
	}
	c.Advance(time.Minute)
	done := finishAttempt(t, st, a, sessions.AttemptFailed, false)
	if !done.FinishedAt.Equal(t0.Add(2*time.Minute)) || done.Change == nil {
		t.Errorf("finished attempt = %+v, want finished at +2m and rated", done)
	}
	again, _ := st.Attempt(t.Context(), a.ID)
	if again.Result != sessions.AttemptFailed || again.Moves != "434" || again.Change == nil || *again.Change != *done.Change || !again.FinishedAt.Equal(done.FinishedAt) {
		t.Errorf("Attempt() after the finish = %+v, want it as UpdateAttempt returned it: %+v", again, done)
	}
	if _, err := st.Attempt(t.Context(), a.ID+100); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Attempt(unknown) error = %v, want %v", err, sessions.ErrNotFound)
	}
	startAttempt(t, st, alice, "", "puzzle0002", "")
	startAttempt(t, st, bob, "guild-1", "puzzle0003", "")
	seen, err := st.SeenPuzzles(t.Context(), alice.ID)
	if err != nil || len(seen) != 2 || !seen["puzzle0001"] || !seen["puzzle0002"] {
		t.Errorf("SeenPuzzles(alice) = %v, %v, want puzzle0001 and puzzle0002", seen, err)
	}
	if _, err := st.StartAttempt(t.Context(), &sessions.Attempt{UserID: alice.ID, PuzzleID: "x"}); !errors.Is(err, sessions.ErrInvalidSession) {
		t.Errorf("StartAttempt(no puzzle line) error = %v, want %v", err, sessions.ErrInvalidSession)
	}
}

// testAttemptChangeRules: UpdateAttempt writes nothing when fn fails,
// refuses a change of what is not the moves, the hint or the result, an
// unknown result, and any change of a finished attempt.
func testAttemptChangeRules(t *testing.T, b Backend) {
	st, _ := openPuzzles(t, b, newClock())
	a := startAttempt(t, st, alice, "guild-1", "puzzle0001", "")
	boom := errors.New("boom")
	if _, err := st.UpdateAttempt(t.Context(), a.ID, puzzleRater, func(x *sessions.Attempt) error { x.Moves = "4"; return boom }); err != boom {
		t.Errorf("UpdateAttempt(fn fails) error = %v, want fn's own", err)
	}
	for _, tt := range []struct {
		name string
		fn   func(*sessions.Attempt)
	}{
		{"another member", func(x *sessions.Attempt) { x.UserID = bob.ID }},
		{"another puzzle", func(x *sessions.Attempt) { x.PuzzleID = "other" }},
		{"first", func(x *sessions.Attempt) { x.First = false }},
		{"an unknown result", func(x *sessions.Attempt) { x.Result = "won" }},
	} {
		if _, err := st.UpdateAttempt(t.Context(), a.ID, puzzleRater, func(x *sessions.Attempt) error { tt.fn(x); return nil }); !errors.Is(err, sessions.ErrInvalidSession) {
			t.Errorf("UpdateAttempt(%s) error = %v, want %v", tt.name, err, sessions.ErrInvalidSession)
		}
	}
	if got, _ := st.Attempt(t.Context(), a.ID); got.Moves != "" || got.Revision != a.Revision {
		t.Errorf("attempt after refused updates = %+v, want it unchanged", got)
	}
	finishAttempt(t, st, a, sessions.AttemptSolved, false)
	if _, err := st.UpdateAttempt(t.Context(), a.ID, puzzleRater, func(x *sessions.Attempt) error { x.Result = sessions.AttemptOpen; return nil }); !errors.Is(err, sessions.ErrInvalidSession) {
		t.Errorf("UpdateAttempt(reopen) error = %v, want %v", err, sessions.ErrInvalidSession)
	}
	if _, err := st.UpdateAttempt(t.Context(), a.ID, puzzleRater, func(x *sessions.Attempt) error { x.Moves += "1"; return nil }); !errors.Is(err, sessions.ErrInvalidSession) {
		t.Errorf("UpdateAttempt(a move after the finish) error = %v, want %v", err, sessions.ErrInvalidSession)
	}
	if p := mustPuzzlePlayer(t, st, alice); p.Rated != 1 {
		t.Errorf("PuzzlePlayer(alice).Rated = %d after refused updates of a finished attempt, want 1", p.Rated)
	}
}

// testFirstAttemptOnlyRated: the first attempt at a puzzle is rated by
// the rater, from the member's new rating and the attempt's puzzle
// rating, both written; a second attempt at it changes no rating, solved
// or not; and the puzzle's second first attempt (another member) starts
// from its stored rating.
func testFirstAttemptOnlyRated(t *testing.T, b Backend) {
	st, _ := openPuzzles(t, b, newClock())
	first := finishAttempt(t, st, startAttempt(t, st, alice, "guild-1", "puzzle0001", ""), sessions.AttemptFailed, false)
	wantMember, wantPuzzle := puzzleRater(rating.New(), puzzleAt, false)
	if first.Change == nil || first.Change.MemberBefore != rating.New() || first.Change.PuzzleBefore != puzzleAt ||
		first.Change.MemberAfter != wantMember || first.Change.PuzzleAfter != wantPuzzle {
		t.Fatalf("first attempt's Change = %+v, want %v → %v and %v → %v", first.Change, rating.New(), wantMember, puzzleAt, wantPuzzle)
	}
	p := mustPuzzlePlayer(t, st, alice)
	if p.Rating != wantMember || p.Rated != 1 || p.Solved != 0 || p.Best != wantMember.R || !p.LastRated.Equal(t0) {
		t.Errorf("PuzzlePlayer(alice) = %+v, want %v, 1 rated, 0 solved, best %v, last rated at t0", p, wantMember, wantMember.R)
	}
	second := startAttempt(t, st, alice, "guild-1", "puzzle0001", "")
	if second.First {
		t.Errorf("second attempt's First = true, want false")
	}
	second = finishAttempt(t, st, second, sessions.AttemptSolved, false)
	if second.Change != nil {
		t.Errorf("second attempt's Change = %+v, want nil: only the first attempt is rated", second.Change)
	}
	if got := mustPuzzlePlayer(t, st, alice); got.Rating != wantMember || got.Rated != 1 {
		t.Errorf("PuzzlePlayer(alice) after a second attempt = %+v, want the rating of the first (%v) and 1 rated", got, wantMember)
	}
	ratings, err := st.PuzzleRatings(t.Context())
	if err != nil || len(ratings) != 1 || ratings["puzzle0001"] != wantPuzzle {
		t.Fatalf("PuzzleRatings() = %v, %v, want puzzle0001 at %v", ratings, err, wantPuzzle)
	}
	bobs := finishAttempt(t, st, startAttempt(t, st, bob, "guild-1", "puzzle0001", ""), sessions.AttemptSolved, false)
	bobMember, bobPuzzle := puzzleRater(rating.New(), wantPuzzle, true)
	if bobs.Change == nil || bobs.Change.PuzzleBefore != wantPuzzle || bobs.Change.PuzzleAfter != bobPuzzle || bobs.Change.MemberAfter != bobMember {
		t.Errorf("bob's first attempt's Change = %+v, want the puzzle from its stored %v to %v", bobs.Change, wantPuzzle, bobPuzzle)
	}
	// A hinted solve is rated as a failure.
	hinted := finishAttempt(t, st, startAttempt(t, st, carol, "guild-1", "puzzle0002", ""), sessions.AttemptSolved, true)
	carolMember, _ := puzzleRater(rating.New(), puzzleAt, false)
	if hinted.Change == nil || hinted.Change.MemberAfter != carolMember {
		t.Errorf("a hinted solve's Change = %+v, want the member rated as failing (%v)", hinted.Change, carolMember)
	}
	if c := mustPuzzlePlayer(t, st, carol); c.Solved != 0 || c.Rated != 1 {
		t.Errorf("PuzzlePlayer(carol) after a hinted solve = %+v, want 1 rated, 0 solved", c)
	}
}

// testFirstAttemptRacing: two processes start one member's attempts at
// one puzzle at once, many times over: exactly one of each pair is first.
func testFirstAttemptRacing(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.PuzzleStore{puzzlesOf(t, db.Open(t, newClock())), puzzlesOf(t, db.Open(t, newClock()))}
	for k := range 8 {
		id := fmt.Sprintf("race%06d", k)
		var (
			wg     sync.WaitGroup
			firsts [2]bool
			errs   [2]error
		)
		for i, st := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := st.StartAttempt(t.Context(), &sessions.Attempt{UserID: alice.ID, PuzzleID: id, Puzzle: "line", PuzzleRating: puzzleAt})
				errs[i] = err
				if err == nil {
					firsts[i] = a.First
				}
			}()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil || firsts[0] == firsts[1] {
			t.Fatalf("two StartAttempt at once: first %v, errors %v, want exactly one first", firsts, errs)
		}
	}
}

// testFinishRacing: two processes finish one attempt at once: one wins,
// the other sees it finished (its fn refuses), and the member is rated
// once.
func testFinishRacing(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := puzzlesOf(t, db.Open(t, newClock())), puzzlesOf(t, db.Open(t, newClock()))
	a := startAttempt(t, one, alice, "guild-1", "puzzle0001", "")
	errDone := errors.New("finished already")
	var (
		wg     sync.WaitGroup
		loaded sync.WaitGroup // both have read the attempt open: their writes race
		errs   [2]error
	)
	loaded.Add(2)
	for i, st := range []sessions.PuzzleStore{one, two} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			calls := 0
			_, errs[i] = st.UpdateAttempt(t.Context(), a.ID, puzzleRater, func(x *sessions.Attempt) error {
				if calls++; calls == 1 {
					loaded.Done()
					loaded.Wait()
				}
				if x.Result != sessions.AttemptOpen {
					return errDone
				}
				x.Result = sessions.AttemptSolved
				return nil
			})
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) || (!errors.Is(errs[0], errDone) && !errors.Is(errs[1], errDone)) {
		t.Fatalf("two finishes at once: errors %v, want one nil and one %v", errs, errDone)
	}
	if p := mustPuzzlePlayer(t, one, alice); p.Rated != 1 || p.Solved != 1 || p.Streak != 1 {
		t.Errorf("PuzzlePlayer(alice) = %+v, want rated once, 1 solved, streak 1", p)
	}
}

// testStreakAndIdle: solves without a hint build the streak, a hinted
// solve or a failure ends it, the best streak stays; a member's rating
// idles for the periods since their last rated attempt.
func testStreakAndIdle(t *testing.T, b Backend) {
	c := newClock()
	st, _ := openPuzzles(t, b, c)
	var streaks []int
	for k, tt := range []struct {
		result sessions.AttemptResult
		hint   bool
	}{{sessions.AttemptSolved, false}, {sessions.AttemptSolved, false}, {sessions.AttemptSolved, true}, {sessions.AttemptSolved, false}, {sessions.AttemptFailed, false}} {
		a := finishAttempt(t, st, startAttempt(t, st, alice, "guild-1", fmt.Sprintf("streak%04d", k), ""), tt.result, tt.hint)
		streaks = append(streaks, a.Streak)
	}
	if fmt.Sprint(streaks) != "[1 2 0 1 0]" {
		t.Errorf("streaks after each attempt = %v, want [1 2 0 1 0]", streaks)
	}
	p := mustPuzzlePlayer(t, st, alice)
	if p.Streak != 0 || p.BestStreak != 2 || p.Rated != 5 || p.Solved != 3 {
		t.Errorf("PuzzlePlayer(alice) = %+v, want streak 0, best 2, 5 rated, 3 solved", p)
	}
	c.Advance(10 * rating.PeriodLength)
	a := finishAttempt(t, st, startAttempt(t, st, alice, "guild-1", "idle000001", ""), sessions.AttemptSolved, false)
	if want := rating.Idle(p.Rating, 10); a.Change == nil || a.Change.MemberBefore != want {
		t.Errorf("after 10 idle periods, MemberBefore = %+v, want %v", a.Change, want)
	}
}

// testPuzzleLeaderboard: members of the server with enough rated
// attempts, by rating; a member who played elsewhere only is left out.
func testPuzzleLeaderboard(t *testing.T, b Backend) {
	st, _ := openPuzzles(t, b, newClock())
	play := func(m sessions.Member, guild string, solved int) {
		for k := range sessions.MinPuzzleAttempts {
			r := sessions.AttemptFailed
			if k < solved {
				r = sessions.AttemptSolved
			}
			finishAttempt(t, st, startAttempt(t, st, m, guild, fmt.Sprintf("%s%02d", m.Name, k), ""), r, false)
		}
	}
	play(alice, "guild-1", 2)
	play(bob, "guild-1", 5)
	play(carol, "guild-2", 5)
	dave := sessions.Member{ID: "100000000000000004", Name: "Dave"}
	finishAttempt(t, st, startAttempt(t, st, dave, "guild-1", "dave", ""), sessions.AttemptSolved, false) // too few
	top, err := st.PuzzleLeaderboard(t.Context(), "guild-1", 10)
	if err != nil || len(top) != 2 || top[0].UserID != bob.ID || top[1].UserID != alice.ID || top[0].R <= top[1].R {
		t.Fatalf("PuzzleLeaderboard(guild-1) = %+v, %v, want bob then alice", top, err)
	}
	if top, _ := st.PuzzleLeaderboard(t.Context(), "guild-1", 1); len(top) != 1 {
		t.Errorf("PuzzleLeaderboard(limit 1) = %d members", len(top))
	}
	if _, err := st.PuzzleLeaderboard(t.Context(), "guild-1", 0); err == nil {
		t.Errorf("PuzzleLeaderboard(limit 0) error = nil, want one")
	}
}

// testPuzzleScans: a match is queued once, claimed by one process for its
// lease, claimed again once the lease is over (its process died), and its
// puzzles stored once however often it is finished.
func testPuzzleScans(t *testing.T, b Backend) {
	c := newClock()
	db := b.NewDB(t)
	one, two := puzzlesOf(t, db.Open(t, c)), puzzlesOf(t, db.Open(t, c))
	for k, st := range []sessions.PuzzleStore{one, two} {
		queued, err := st.QueuePuzzleScan(t.Context(), sessions.PuzzleScan{Match: 7, GuildID: "guild-1", ChannelID: "chan-1"})
		if err != nil || queued != (k == 0) {
			t.Errorf("QueuePuzzleScan #%d = %t, %v, want %t", k+1, queued, err, k == 0)
		}
	}
	sc, ok, err := one.ClaimPuzzleScan(t.Context(), time.Minute)
	if err != nil || !ok || sc.Match != 7 || sc.ChannelID != "chan-1" || sc.Tries != 1 || !sc.Due.Equal(t0.Add(time.Minute)) {
		t.Fatalf("ClaimPuzzleScan() = %+v, %t, %v, want match 7, try 1, due in a minute", sc, ok, err)
	}
	if _, ok, _ := two.ClaimPuzzleScan(t.Context(), time.Minute); ok {
		t.Errorf("a second ClaimPuzzleScan within the lease claimed it")
	}
	c.Advance(time.Minute)
	if sc, ok, _ := two.ClaimPuzzleScan(t.Context(), time.Minute); !ok || sc.Tries != 2 {
		t.Errorf("ClaimPuzzleScan() after the lease = %+v, %t, want it taken again, try 2", sc, ok)
	}
	found := []sessions.FoundPuzzle{
		{GuildID: "guild-1", ID: "found00001", Puzzle: "line 1", Players: [2]string{alice.ID, bob.ID}},
		{GuildID: "guild-1", ID: "found00002", Puzzle: "line 2", Players: [2]string{alice.ID, bob.ID}},
	}
	if n, err := two.FinishPuzzleScan(t.Context(), 7, found); err != nil || n != 2 {
		t.Errorf("FinishPuzzleScan() = %d, %v, want 2 added", n, err)
	}
	if n, err := one.FinishPuzzleScan(t.Context(), 7, found); err != nil || n != 0 {
		t.Errorf("FinishPuzzleScan() again = %d, %v, want 0 added", n, err)
	}
	c.Advance(time.Hour)
	if _, ok, _ := one.ClaimPuzzleScan(t.Context(), time.Minute); ok {
		t.Errorf("ClaimPuzzleScan() claimed a finished scan")
	}
	list, err := one.FoundPuzzles(t.Context(), "guild-1")
	if err != nil || len(list) != 2 || list[0].ID != "found00001" || list[0].Match != 7 || list[0].Players != found[0].Players || !list[0].FoundAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("FoundPuzzles(guild-1) = %+v, %v, want the two, from match 7, found at +1m", list, err)
	}
	if list, _ := one.FoundPuzzles(t.Context(), "guild-2"); len(list) != 0 || list == nil {
		t.Errorf("FoundPuzzles(guild-2) = %#v, want empty", list)
	}
}

// testDailySettings: the setting reads back, changes by a compare-and-swap
// that keeps two processes' changes, turns off with an empty channel, and
// is listed when due.
func testDailySettings(t *testing.T, b Backend) {
	c := newClock()
	db := b.NewDB(t)
	one, two := puzzlesOf(t, db.Open(t, c)), puzzlesOf(t, db.Open(t, c))
	if d, err := one.DailyPuzzle(t.Context(), "guild-1"); err != nil || d.ChannelID != "" || d.GuildID != "guild-1" {
		t.Errorf("DailyPuzzle(unset) = %+v, %v, want off", d, err)
	}
	next := t0.Add(time.Hour).UTC()
	set, err := one.UpdateDailyPuzzle(t.Context(), "guild-1", func(d *sessions.DailyPuzzle) error {
		d.ChannelID, d.Minute, d.Zone, d.Locale, d.Next = "chan-1", 8*60, "Europe/Berlin", "de", next
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Two processes change two things at once: both are kept.
	var wg sync.WaitGroup
	for _, f := range []func(){
		func() {
			_, err := one.UpdateDailyPuzzle(t.Context(), "guild-1", func(d *sessions.DailyPuzzle) error { d.LastError = "refused"; return nil })
			if err != nil {
				t.Error(err)
			}
		},
		func() {
			_, err := two.UpdateDailyPuzzle(t.Context(), "guild-1", func(d *sessions.DailyPuzzle) error { d.Minute = 9 * 60; return nil })
			if err != nil {
				t.Error(err)
			}
		},
	} {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
	got, _ := two.DailyPuzzle(t.Context(), "guild-1")
	if got.ChannelID != "chan-1" || got.Minute != 9*60 || got.LastError != "refused" || got.Zone != "Europe/Berlin" || got.Locale != "de" || !got.Next.Equal(next) || got.Revision != set.Revision+2 {
		t.Errorf("DailyPuzzle() after two changes at once = %+v, want both kept", got)
	}
	if _, err := one.UpdateDailyPuzzle(t.Context(), "guild-1", func(d *sessions.DailyPuzzle) error { d.Minute = 1440; return nil }); !errors.Is(err, sessions.ErrInvalidSession) {
		t.Errorf("UpdateDailyPuzzle(minute 1440) error = %v, want %v", err, sessions.ErrInvalidSession)
	}
	for _, tt := range []struct {
		at   time.Time
		want int
	}{{t0, 0}, {next, 1}, {next.Add(time.Hour), 1}} {
		if due, err := one.DueDailyPuzzles(t.Context(), tt.at, 0); err != nil || len(due) != tt.want {
			t.Errorf("DueDailyPuzzles(%v) = %+v, %v, want %d", tt.at, due, err, tt.want)
		}
	}
	off, _ := one.UpdateDailyPuzzle(t.Context(), "guild-1", func(d *sessions.DailyPuzzle) error { d.ChannelID = ""; return nil })
	if !off.Next.IsZero() {
		t.Errorf("turned off: Next = %v, want zero", off.Next)
	}
	if due, _ := one.DueDailyPuzzles(t.Context(), next.Add(time.Hour), 0); len(due) != 0 {
		t.Errorf("DueDailyPuzzles() after turning off = %+v, want none", due)
	}
}

// testPuzzleOfDay: the first puzzle recorded for a day is every process's.
func testPuzzleOfDay(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := puzzlesOf(t, db.Open(t, newClock())), puzzlesOf(t, db.Open(t, newClock()))
	if id, line, err := one.PuzzleOfDay(t.Context(), "2025-03-14", "first00001", "line 1"); err != nil || id != "first00001" || line != "line 1" {
		t.Errorf("PuzzleOfDay() = %s, %s, %v, want first00001", id, line, err)
	}
	if id, line, err := two.PuzzleOfDay(t.Context(), "2025-03-14", "other00001", "line 2"); err != nil || id != "first00001" || line != "line 1" {
		t.Errorf("PuzzleOfDay() in another process = %s, %s, %v, want the first, first00001", id, line, err)
	}
	if id, _, _ := two.PuzzleOfDay(t.Context(), "2025-03-15", "other00001", "line 2"); id != "other00001" {
		t.Errorf("PuzzleOfDay(the next day) = %s, want other00001", id)
	}
}

// testDailyPostClaimedOnce: of two processes claiming a day's post at
// once, one claims it; the claim lapses after its lease and is taken
// over, marked Retaken; a settled post is claimed by no one.
func testDailyPostClaimedOnce(t *testing.T, b Backend) {
	c := newClock()
	db := b.NewDB(t)
	stores := []sessions.PuzzleStore{puzzlesOf(t, db.Open(t, c)), puzzlesOf(t, db.Open(t, c))}
	post := sessions.DailyPost{GuildID: "guild-1", Day: "2025-03-14", ChannelID: "chan-1", PuzzleID: "daily00001", Puzzle: "line"}
	for round := range 5 {
		post.Day = fmt.Sprintf("2025-03-%02d", 14+round)
		var (
			wg      sync.WaitGroup
			claimed [2]bool
			errs    [2]error
		)
		for i, st := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, claimed[i], errs[i] = st.ClaimDailyPost(t.Context(), post, time.Minute)
			}()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil || claimed[0] == claimed[1] {
			t.Fatalf("two ClaimDailyPost at once = %v, %v, want exactly one claim", claimed, errs)
		}
	}
	p, ok, _ := stores[0].ClaimDailyPost(t.Context(), post, time.Minute)
	if ok || p.State != sessions.DailyClaimed || p.Retaken {
		t.Errorf("ClaimDailyPost() within the lease = %+v, %t, want the claim held by the other", p, ok)
	}
	c.Advance(time.Minute + time.Second)
	p, ok, err := stores[1].ClaimDailyPost(t.Context(), post, time.Minute)
	if err != nil || !ok || !p.Retaken || !p.LeaseUntil.Equal(c.Now().Add(time.Minute)) {
		t.Fatalf("ClaimDailyPost() after the lease = %+v, %t, %v, want it retaken for a minute", p, ok, err)
	}
	p, err = stores[1].UpdateDailyPost(t.Context(), post.GuildID, post.Day, func(d *sessions.DailyPost) error {
		d.State, d.MessageID, d.LeaseUntil = sessions.DailyPosted, "msg-1", time.Time{}
		return nil
	})
	if err != nil || p.State != sessions.DailyPosted || p.MessageID != "msg-1" || p.PuzzleID != "daily00001" {
		t.Fatalf("UpdateDailyPost(posted) = %+v, %v", p, err)
	}
	c.Advance(time.Hour)
	if p, ok, _ := stores[0].ClaimDailyPost(t.Context(), post, time.Minute); ok || p.MessageID != "msg-1" {
		t.Errorf("ClaimDailyPost() of a posted day = %+v, %t, want it not claimed, as posted", p, ok)
	}
	if _, err := stores[0].UpdateDailyPost(t.Context(), "guild-1", "2020-01-01", func(*sessions.DailyPost) error { return nil }); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("UpdateDailyPost(unknown day) error = %v, want %v", err, sessions.ErrNotFound)
	}
	if _, err := stores[0].UpdateDailyPost(t.Context(), "guild-1", post.Day, func(d *sessions.DailyPost) error { d.State = "lost"; return nil }); !errors.Is(err, sessions.ErrInvalidSession) {
		t.Errorf("UpdateDailyPost(unknown state) error = %v, want %v", err, sessions.ErrInvalidSession)
	}
	list, err := stores[0].DailyPosts(t.Context(), "guild-1", 2)
	if err != nil || len(list) != 2 || list[0].Day != "2025-03-18" || list[1].Day != "2025-03-17" {
		t.Errorf("DailyPosts(guild-1, 2) = %+v, %v, want the two newest days", list, err)
	}
}

// testDailySolvers: a member's solves from a daily post count once, make
// the post's edit due within DailyEditEvery (not later for more solves),
// and the edit, once made, is no longer due.
func testDailySolvers(t *testing.T, b Backend) {
	c := newClock()
	st, _ := openPuzzles(t, b, c)
	day := "2025-03-14"
	post := sessions.DailyPost{GuildID: "guild-1", Day: day, ChannelID: "chan-1", PuzzleID: "daily00001", Puzzle: "line"}
	if _, ok, err := st.ClaimDailyPost(t.Context(), post, time.Minute); !ok || err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateDailyPost(t.Context(), "guild-1", day, func(d *sessions.DailyPost) error {
		d.State, d.MessageID = sessions.DailyPosted, "msg-1"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	finishAttempt(t, st, startAttempt(t, st, alice, "guild-1", "daily00001", day), sessions.AttemptSolved, false)
	c.Advance(10 * time.Second)
	finishAttempt(t, st, startAttempt(t, st, alice, "guild-1", "daily00001", day), sessions.AttemptSolved, false) // again: not counted
	finishAttempt(t, st, startAttempt(t, st, bob, "guild-1", "daily00001", day), sessions.AttemptSolved, true)    // hinted: solved all the same
	finishAttempt(t, st, startAttempt(t, st, carol, "guild-1", "daily00001", day), sessions.AttemptFailed, false) // failed
	finishAttempt(t, st, startAttempt(t, st, carol, "guild-1", "daily00001", ""), sessions.AttemptSolved, false)  // not from the post
	if due, _ := st.DueDailyEdits(t.Context(), t0.Add(sessions.DailyEditEvery-time.Second), 0); len(due) != 0 {
		t.Errorf("DueDailyEdits() before DailyEditEvery = %+v, want none", due)
	}
	due, err := st.DueDailyEdits(t.Context(), t0.Add(sessions.DailyEditEvery), 0)
	if err != nil || len(due) != 1 || due[0].Solvers != 2 || due[0].Shown != 0 || !due[0].EditDue.Equal(t0.Add(sessions.DailyEditEvery)) {
		t.Fatalf("DueDailyEdits() = %+v, %v, want the post with 2 solvers, due a minute after the first solve", due, err)
	}
	if _, err := st.UpdateDailyPost(t.Context(), "guild-1", day, func(d *sessions.DailyPost) error {
		d.Shown, d.EditDue = d.Solvers, time.Time{}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if due, _ := st.DueDailyEdits(t.Context(), t0.Add(time.Hour), 0); len(due) != 0 {
		t.Errorf("DueDailyEdits() after the edit = %+v, want none", due)
	}
}

// testForgetPuzzles: Forget removes a member's attempts, puzzle record and
// the puzzles found in their matches, leaves no row naming them, keeps
// everyone else's, and the puzzles' ratings.
func testForgetPuzzles(t *testing.T, b Backend) {
	db := b.NewDB(t)
	base := db.Open(t, newClock())
	st := puzzlesOf(t, base)
	finishAttempt(t, st, startAttempt(t, st, alice, "guild-1", "puzzle0001", ""), sessions.AttemptSolved, false)
	startAttempt(t, st, alice, "guild-1", "puzzle0002", "")
	finishAttempt(t, st, startAttempt(t, st, bob, "guild-1", "puzzle0001", ""), sessions.AttemptFailed, false)
	st.QueuePuzzleScan(t.Context(), sessions.PuzzleScan{Match: 1, GuildID: "guild-1", ChannelID: "chan-1"})
	st.FinishPuzzleScan(t.Context(), 1, []sessions.FoundPuzzle{
		{GuildID: "guild-1", ID: "found00001", Puzzle: "line", Players: [2]string{alice.ID, bob.ID}},
		{GuildID: "guild-1", ID: "found00002", Puzzle: "line", Players: [2]string{carol.ID, bob.ID}},
	})
	n, err := base.Forget(t.Context(), alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n.PuzzleAttempts != 2 || n.PuzzlePlayers != 1 || n.FoundPuzzles != 1 {
		t.Errorf("Forget() = %+v, want 2 attempts, 1 puzzle record, 1 found puzzle", n)
	}
	if rows := rowsNaming(t, db, alice.ID); len(rows) != 0 {
		t.Errorf("rows naming alice after Forget:\n%s", strings.Join(rows, "\n"))
	}
	if p := mustPuzzlePlayer(t, st, bob); p.Rated != 1 {
		t.Errorf("PuzzlePlayer(bob) after Forget(alice) = %+v, want kept", p)
	}
	if list, _ := st.FoundPuzzles(t.Context(), "guild-1"); len(list) != 1 || list[0].ID != "found00002" {
		t.Errorf("FoundPuzzles() after Forget(alice) = %+v, want carol and bob's kept", list)
	}
	if r, _ := st.PuzzleRatings(t.Context()); len(r) != 1 {
		t.Errorf("PuzzleRatings() after Forget = %v, want the puzzle's rating kept", r)
	}
	if seen, _ := st.SeenPuzzles(t.Context(), alice.ID); len(seen) != 0 {
		t.Errorf("SeenPuzzles(alice) after Forget = %v, want none", seen)
	}
}

// testExportImportPuzzles: every puzzles' table goes through export and
// import as it is (the copy rates on, claims no posted day again, and
// gives new attempts IDs after the imported ones); a server's export
// holds its own rows and the records of its members; an import into a
// database with puzzles' rows changes nothing.
func testExportImportPuzzles(t *testing.T, b Backend) {
	c := newClock()
	srcBase := b.NewDB(t).Open(t, c)
	src := puzzlesOf(t, srcBase)
	finishAttempt(t, src, startAttempt(t, src, alice, "guild-1", "puzzle0001", "2025-03-14"), sessions.AttemptSolved, false)
	open := startAttempt(t, src, bob, "guild-2", "puzzle0002", "")
	src.QueuePuzzleScan(t.Context(), sessions.PuzzleScan{Match: 3, GuildID: "guild-1", ChannelID: "chan-1"})
	src.FinishPuzzleScan(t.Context(), 3, []sessions.FoundPuzzle{{GuildID: "guild-1", ID: "found00001", Puzzle: "line", Players: [2]string{alice.ID, bob.ID}}})
	src.QueuePuzzleScan(t.Context(), sessions.PuzzleScan{Match: 4, GuildID: "guild-2", ChannelID: "chan-2"})
	src.UpdateDailyPuzzle(t.Context(), "guild-1", func(d *sessions.DailyPuzzle) error {
		d.ChannelID, d.Minute, d.Next = "chan-1", 60, t0.Add(time.Hour)
		return nil
	})
	src.PuzzleOfDay(t.Context(), "2025-03-14", "puzzle0001", "line")
	src.ClaimDailyPost(t.Context(), sessions.DailyPost{GuildID: "guild-1", Day: "2025-03-14", ChannelID: "chan-1", PuzzleID: "puzzle0001", Puzzle: "line"}, time.Minute)
	src.UpdateDailyPost(t.Context(), "guild-1", "2025-03-14", func(d *sessions.DailyPost) error {
		d.State, d.MessageID = sessions.DailyPosted, "msg-1"
		return nil
	})

	var file bytes.Buffer
	n, err := exportOf(t, srcBase).Export(t.Context(), &file, sessions.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := sessions.ExportCounts{FoundPuzzles: 1, PuzzleScans: 2, PuzzleRatings: 1, PuzzlePlayers: 1, PuzzleAttempts: 2,
		DailyPuzzles: 1, PuzzleDays: 1, DailyPosts: 1}
	if n != want {
		t.Errorf("Export() counts = %+v, want %+v", n, want)
	}
	// A database with a puzzles' row is refused, and keeps what it has.
	busyBase := b.NewDB(t).Open(t, newClock())
	busy := puzzlesOf(t, busyBase)
	startAttempt(t, busy, carol, "", "puzzle0009", "")
	if _, err := importOf(t, busyBase).Import(t.Context(), bytes.NewReader(file.Bytes())); err == nil || !strings.Contains(err.Error(), "empty database") {
		t.Errorf("Import() into a database with an attempt error = %v, want it refused", err)
	}
	if list, _ := busy.FoundPuzzles(t.Context(), "guild-1"); len(list) != 0 {
		t.Errorf("a refused import left found puzzles: %+v", list)
	}

	dstBase := b.NewDB(t).Open(t, c)
	dst := puzzlesOf(t, dstBase)
	got, err := importOf(t, dstBase).Import(t.Context(), bytes.NewReader(file.Bytes()))
	if err != nil || got != n {
		t.Fatalf("Import() = %+v, %v, want %+v", got, err, n)
	}
	for _, m := range []sessions.Member{alice, bob} {
		if w, h := mustPuzzlePlayer(t, src, m), mustPuzzlePlayer(t, dst, m); fmt.Sprint(w) != fmt.Sprint(h) {
			t.Errorf("PuzzlePlayer(%s) of the copy = %+v, want %+v", m.Name, h, w)
		}
	}
	wantOpen, _ := src.Attempt(t.Context(), open.ID)
	if h, err := dst.Attempt(t.Context(), open.ID); err != nil || fmt.Sprint(*h) != fmt.Sprint(*wantOpen) {
		t.Errorf("Attempt(%d) of the copy = %+v, %v, want %+v", open.ID, h, err, wantOpen)
	}
	if a := finishAttempt(t, dst, open, sessions.AttemptSolved, false); a.Change == nil {
		t.Errorf("the copy's open first attempt finished unrated: %+v", a)
	}
	if a := startAttempt(t, dst, carol, "", "puzzle0003", ""); a.ID <= open.ID {
		t.Errorf("a new attempt in the copy has ID %d, want it after the imported %d", a.ID, open.ID)
	}
	if p, ok, _ := dst.ClaimDailyPost(t.Context(), sessions.DailyPost{GuildID: "guild-1", Day: "2025-03-14", ChannelID: "chan-1", PuzzleID: "x", Puzzle: "x"}, time.Minute); ok || p.MessageID != "msg-1" {
		t.Errorf("ClaimDailyPost() of a posted day in the copy = %+v, %t, want it posted", p, ok)
	}
	if d, _ := dst.DailyPuzzle(t.Context(), "guild-1"); d.ChannelID != "chan-1" || d.Minute != 60 {
		t.Errorf("DailyPuzzle() of the copy = %+v", d)
	}
	if id, _, _ := dst.PuzzleOfDay(t.Context(), "2025-03-14", "other", "other"); id != "puzzle0001" {
		t.Errorf("PuzzleOfDay() of the copy = %s, want puzzle0001", id)
	}

	var one bytes.Buffer
	n, err = exportOf(t, srcBase).Export(t.Context(), &one, sessions.ExportOptions{GuildID: "guild-1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (sessions.ExportCounts{FoundPuzzles: 1, PuzzleScans: 1, PuzzlePlayers: 1, PuzzleAttempts: 1, DailyPuzzles: 1, DailyPosts: 1}); n != want {
		t.Errorf("Export(guild-1) counts = %+v, want %+v (no puzzle rating nor day: they are the bot's, not a server's)", n, want)
	}
}
