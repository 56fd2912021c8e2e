package sessionstest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// rated is an option of finish: the challenge is rated, as the bot makes
// a rated challenge.
func rated(s *sessions.Session) { s.Rated = true }

// inGuild returns an option of finish that puts the session in server
// guild.
func inGuild(guild string) func(*sessions.Session) {
	return func(s *sessions.Session) { s.GuildID = guild }
}

// sameRatings reports whether a and b are both nil or hold the same
// figures, bit for bit.
func sameRatings(a, b *sessions.RatingChange) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func showRatings(r *sessions.RatingChange) string {
	if r == nil {
		return "nil"
	}
	return fmt.Sprintf("%+v", *r)
}

// newRating is the rating of member m in guild when they never played a
// rated match there.
func newRating(guild string, m sessions.Member) sessions.MemberRating {
	return sessions.MemberRating{GuildID: guild, UserID: m.ID, Rating: rating.New()}
}

// mustRating returns the rating of m in guild.
func mustRating(t *testing.T, st sessions.Store, guild string, m sessions.Member) sessions.MemberRating {
	t.Helper()
	r, err := st.Rating(t.Context(), guild, m.ID)
	if err != nil {
		t.Fatalf("Rating(%s, %s) error = %v", guild, m.Name, err)
	}
	return r
}

// assertRating checks the rating of m in guild, every field bit for bit.
func assertRating(t *testing.T, st sessions.Store, guild string, m sessions.Member, want sessions.MemberRating) {
	t.Helper()
	got := mustRating(t, st, guild, m)
	if !got.LastPlayed.IsZero() && got.LastPlayed.Location() != time.UTC {
		t.Errorf("Rating(%s, %s).LastPlayed = %v, want UTC", guild, m.Name, got.LastPlayed)
	}
	if got != want {
		t.Errorf("Rating(%s, %s) = %+v, want %+v", guild, m.Name, got, want)
	}
}

// mustRatedToday returns RatedToday.
func mustRatedToday(t *testing.T, st sessions.Store, guild string, a, b sessions.Member, since time.Time) int {
	t.Helper()
	n, err := st.RatedToday(t.Context(), guild, a.ID, b.ID, since)
	if err != nil {
		t.Fatalf("RatedToday(%s, %s, %s, %v) error = %v", guild, a.Name, b.Name, since, err)
	}
	return n
}

// ratingRows returns the rows of member_ratings, read directly.
func ratingRows(t *testing.T, db DB) [][]string {
	t.Helper()
	rows, ok := db.Dump(t)["member_ratings"]
	if !ok {
		t.Fatal("the dump has no table member_ratings")
	}
	return rows
}

// testRatingsRatedMatch checks what a rated match does to the ratings: a
// member never rated has rating.New() and no game; the rated match that
// finishes changes both players' ratings by rating.Match from their
// ratings before it (score 1 for the winner, whichever side; a forfeit
// after the first disc counts), which the session's Ratings holds, as
// Update returns it and every store reads it; each member's games,
// best R and last rated match follow; after a gap of days on the store's
// clock each rating idles for the days passed (rating.Idle) before the
// match rates it; another server's ratings are apart; a session created
// already finished is rated too.
func testRatingsRatedMatch(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clock := newClock()
	st, other := db.Open(t, clock), db.Open(t, clock)
	for _, m := range []sessions.Member{alice, bob} {
		assertRating(t, st, "guild-1", m, newRating("guild-1", m))
	}

	// Alice (player 1) beats Bob; both are new.
	first := finish(t, st, "chan-1", alice, bob, game.Player1, false, rated)
	a1, b1 := rating.Match(rating.New(), rating.New(), 1)
	want := &sessions.RatingChange{Before: [2]rating.Rating{rating.New(), rating.New()}, After: [2]rating.Rating{a1, b1}}
	if !sameRatings(first.Ratings, want) {
		t.Errorf("Update() finishing a rated match: Ratings = %s, want %s", showRatings(first.Ratings), showRatings(want))
	}
	for i, s := range []sessions.Store{st, other} {
		got := mustGet(t, s, "chan-1")
		if !sameRatings(got.Ratings, want) {
			t.Errorf("store %d: Get().Ratings = %s, want %s", i+1, showRatings(got.Ratings), showRatings(want))
		}
		assertSameSession(t, got, first)
	}
	end1 := t0.UTC()
	assertRating(t, other, "guild-1", alice, sessions.MemberRating{GuildID: "guild-1", UserID: alice.ID, Rating: a1, Games: 1, Best: a1.R, LastPlayed: end1})
	// Bob's best is his R after his one rated match, below 1500.
	assertRating(t, other, "guild-1", bob, sessions.MemberRating{GuildID: "guild-1", UserID: bob.ID, Rating: b1, Games: 1, Best: b1.R, LastPlayed: end1})
	if b1.R >= rating.DefaultR {
		t.Fatalf("the loser's new R = %v, want below %v", b1.R, rating.DefaultR)
	}
	assertRating(t, st, "guild-2", alice, newRating("guild-2", alice))

	// Three days and five hours later Bob, player 1 this time, beats her,
	// through the other store: each rating idles for the days since its
	// last rated match, then the match rates them.
	gap := 3*24*time.Hour + 5*time.Hour
	clock.Advance(gap)
	days := gap.Hours() / rating.PeriodLength.Hours()
	bIdle, aIdle := rating.Idle(b1, days), rating.Idle(a1, days)
	if bIdle.RD <= b1.RD || aIdle.RD <= a1.RD {
		t.Fatalf("Idle(%v days) does not widen RD: %v -> %v", days, b1.RD, bIdle.RD)
	}
	b2, a2 := rating.Match(bIdle, aIdle, 1)
	second := finish(t, other, "chan-2", bob, alice, game.Player1, false, rated)
	want = &sessions.RatingChange{Before: [2]rating.Rating{bIdle, aIdle}, After: [2]rating.Rating{b2, a2}}
	if !sameRatings(second.Ratings, want) {
		t.Errorf("the second rated match, %v later: Ratings = %s, want %s", gap, showRatings(second.Ratings), showRatings(want))
	}
	assertSameSession(t, mustGet(t, st, "chan-2"), second)
	end2 := t0.Add(gap).UTC()
	if b2.R <= b1.R || a2.R >= a1.R {
		t.Fatalf("the second match: bob %v -> %v, alice %v -> %v; want bob up, alice down", b1.R, b2.R, a1.R, a2.R)
	}
	assertRating(t, st, "guild-1", alice, sessions.MemberRating{GuildID: "guild-1", UserID: alice.ID, Rating: a2, Games: 2, Best: a1.R, LastPlayed: end2})
	assertRating(t, st, "guild-1", bob, sessions.MemberRating{GuildID: "guild-1", UserID: bob.ID, Rating: b2, Games: 2, Best: b2.R, LastPlayed: end2})

	// At once, Carol (new) beats Alice, player 1, who forfeits after a disc
	// each: Alice's rating does not idle (no time passed), Carol's is new.
	third := finish(t, st, "chan-3", alice, carol, game.Player2, false, rated)
	a3, c3 := rating.Match(a2, rating.New(), 0)
	want = &sessions.RatingChange{Before: [2]rating.Rating{a2, rating.New()}, After: [2]rating.Rating{a3, c3}}
	if third.End != sessions.EndForfeit || !sameRatings(third.Ratings, want) {
		t.Errorf("a rated match forfeited after the first disc: end %q, Ratings = %s, want %q and %s", third.End, showRatings(third.Ratings), sessions.EndForfeit, showRatings(want))
	}
	assertRating(t, st, "guild-1", carol, sessions.MemberRating{GuildID: "guild-1", UserID: carol.ID, Rating: c3, Games: 1, Best: c3.R, LastPlayed: end2})

	// A rated session created already finished (a replay, say) is rated
	// like any other, in another server.
	over := newSession(t, "chan-4")
	over.GuildID, over.Players, over.Rated, over.Phase = "guild-2", [2]sessions.Member{bob, carol}, true, sessions.PhasePlaying
	over.Config, over.Match = oneWin, mustMatch(t, oneWin, 1, 0, 1, 0, 1, 0, 1)
	created := mustCreate(t, st, over)
	b4, c4 := rating.Match(rating.New(), rating.New(), 1)
	want = &sessions.RatingChange{Before: [2]rating.Rating{rating.New(), rating.New()}, After: [2]rating.Rating{b4, c4}}
	if created.Phase != sessions.PhaseFinished || !sameRatings(created.Ratings, want) {
		t.Errorf("Create() of a finished rated match: phase %q, Ratings = %s, want %q and %s", created.Phase, showRatings(created.Ratings), sessions.PhaseFinished, showRatings(want))
	}
	assertSameSession(t, mustGet(t, other, "chan-4"), created)
	assertRating(t, other, "guild-2", bob, sessions.MemberRating{GuildID: "guild-2", UserID: bob.ID, Rating: b4, Games: 1, Best: b4.R, LastPlayed: end2})
	if r := mustRating(t, other, "guild-1", bob); r.Games != 2 {
		t.Errorf("bob's rating in guild-1 after a match in guild-2: %d games, want 2", r.Games)
	}
}

// testRatingsInOneTransaction makes the transaction that finishes a rated
// match fail, once after the ratings are written (the store writes them
// before the stats, and the pair records are refused) and once on the
// ratings themselves, and checks that nothing of it was stored: the match
// is still being played, without Ratings, and neither the ratings nor the
// stats changed. It fails if the ratings and the result are written in
// two transactions, in either order.
func testRatingsInOneTransaction(t *testing.T, b Backend) {
	tests := []struct {
		name   string
		refuse func(DB, testing.TB)
		msg    string
	}{
		{"pair records refused, after the ratings", DB.RefusePairRecords, "pair records refused"},
		{"ratings refused", DB.RefuseRatings, "ratings refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := b.NewDB(t)
			st := db.Open(t, newClock())
			sess := newSession(t, "chan-1")
			sess.Config, sess.Match, sess.Phase, sess.Rated = oneWin, mustMatch(t, oneWin), sessions.PhasePlaying, true
			mustCreate(t, st, sess)
			tt.refuse(db, t)
			_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
				mustPlay(t, s.Match, 0, 1, 0, 1, 0, 1, 0)
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Update() finishing the rated match error = %v, want the failure %q", err, tt.msg)
			}
			for i, s := range []sessions.Store{st, db.Open(t, newClock())} {
				got := mustGet(t, s, "chan-1")
				if got.Phase != sessions.PhasePlaying || got.Match.Plies() != 0 || got.Ratings != nil {
					t.Errorf("store %d: after the failed write: phase %q, %d plies, Ratings %s; want the match as it was",
						i+1, got.Phase, got.Match.Plies(), showRatings(got.Ratings))
				}
			}
			if rows := ratingRows(t, db); len(rows) != 0 {
				t.Errorf("member_ratings after the failed write = %q, want no row", rows)
			}
			for _, m := range []sessions.Member{alice, bob} {
				assertRating(t, st, "guild-1", m, newRating("guild-1", m))
			}
			if s, _ := st.Stats(t.Context(), "guild-1", alice.ID, false); s.Matches != 0 {
				t.Errorf("Stats() = %+v, want nothing written", s)
			}
			if n := mustRatedToday(t, st, "guild-1", alice, bob, t0.Add(-time.Hour)); n != 0 {
				t.Errorf("RatedToday() = %d, want 0", n)
			}
		})
	}
}

// testRatingsUnrated checks the matches that change no rating, each
// finished with its result in the stats: unrated, played unrated because
// of the day's limit, rated but forfeited (or timed out) before the first
// disc, rated against the bot, rated on a board other than the standard
// one. None writes a row of member_ratings, nor Ratings on the session,
// nor counts in RatedToday.
func testRatingsUnrated(t *testing.T, b Backend) {
	robot := sessions.Member{ID: "900000000000000001", Name: "ConnectN"}
	small := game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 1}
	tests := []struct {
		name string
		vsAI bool
		play func(t *testing.T, st sessions.Store) *sessions.Session
	}{
		{name: "unrated", play: func(t *testing.T, st sessions.Store) *sessions.Session {
			return finish(t, st, "chan-1", alice, bob, game.Player1, false)
		}},
		{name: "capped: played unrated", play: func(t *testing.T, st sessions.Store) *sessions.Session {
			return finish(t, st, "chan-1", alice, bob, game.Player1, false, func(s *sessions.Session) { s.RatedCapped = true })
		}},
		{name: "rated, timed out before the first disc", play: func(t *testing.T, st sessions.Store) *sessions.Session {
			return finish(t, st, "chan-1", alice, bob, game.Player2, true, rated)
		}},
		{name: "rated, forfeited before the first disc", play: func(t *testing.T, st sessions.Store) *sessions.Session {
			s := newSession(t, "chan-1")
			s.Config, s.Match = oneWin, mustMatch(t, oneWin)
			mustCreate(t, st, s)
			// Rated when the match starts, as the bot may set it.
			mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
				s.Phase, s.Rated = sessions.PhasePlaying, true
				return nil
			})
			return mustUpdate(t, st, "chan-1", func(s *sessions.Session) error { return s.Match.Forfeit(game.Player2) })
		}},
		{name: "rated, against the bot", vsAI: true, play: func(t *testing.T, st sessions.Store) *sessions.Session {
			s := newSession(t, "chan-1")
			s.Players[1], s.AI, s.Phase, s.Rated = robot, "hard", sessions.PhasePlaying, true
			s.Config, s.Match = oneWin, mustMatch(t, oneWin)
			mustCreate(t, st, s)
			return mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
				mustPlay(t, s.Match, 0, 1, 0, 1, 0, 1, 0)
				return nil
			})
		}},
		{name: "rated, on a 4 × 4 board", play: func(t *testing.T, st sessions.Store) *sessions.Session {
			s := newSession(t, "chan-1")
			s.Config, s.Match, s.Phase, s.Rated = small, mustMatch(t, small), sessions.PhasePlaying, true
			mustCreate(t, st, s)
			return mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
				mustPlay(t, s.Match, 0, 1, 0, 1, 0)
				return nil
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := b.NewDB(t)
			st := db.Open(t, newClock())
			got := tt.play(t, st)
			if got.Phase != sessions.PhaseFinished || got.Ratings != nil {
				t.Errorf("the finished session: phase %q, Ratings %s; want finished, nil", got.Phase, showRatings(got.Ratings))
			}
			if s := mustGet(t, st, "chan-1"); s.Ratings != nil {
				t.Errorf("Get().Ratings = %s, want nil", showRatings(s.Ratings))
			}
			if s, _ := st.Stats(t.Context(), "guild-1", alice.ID, tt.vsAI); s.Matches != 1 {
				t.Errorf("Stats(alice) = %+v, want the match counted", s)
			}
			if rows := ratingRows(t, db); len(rows) != 0 {
				t.Errorf("member_ratings = %q, want no row", rows)
			}
			for _, m := range []sessions.Member{alice, bob, robot} {
				assertRating(t, st, "guild-1", m, newRating("guild-1", m))
			}
			if n := mustRatedToday(t, st, "guild-1", alice, got.Players[1], t0.Add(-time.Hour)); n != 0 {
				t.Errorf("RatedToday() = %d, want 0", n)
			}
		})
	}
}

// testRatingLeaderboard checks the leaderboard by rating: the members with
// at least MinRatedGames rated matches, by R (highest first), then the
// most rated matches, then user ID; at most limit of them, limit from 1 to
// 100; one server's. First with ratings that rated matches wrote (two
// members with identical histories tie on R and games), then with rows
// written directly, to set ties on R and games at will.
func testRatingLeaderboard(t *testing.T, b Backend) {
	db := b.NewDB(t)
	st := db.Open(t, newClock())
	dave := sessions.Member{ID: "100000000000000004", Name: "Dave"}
	board := func(guild string, limit int) []string {
		t.Helper()
		list, err := st.RatingLeaderboard(t.Context(), guild, limit)
		if err != nil {
			t.Fatalf("RatingLeaderboard(%s, %d) error = %v", guild, limit, err)
		}
		ids := []string{}
		for _, r := range list {
			ids = append(ids, r.UserID)
		}
		return ids
	}
	// Alice beats Bob 5 times; Carol beats Dave 4 times: Carol and Dave
	// have too few rated matches, whatever their ratings.
	for i := range sessions.MinRatedGames {
		finish(t, st, "chan-1", alice, bob, game.Player1, false, rated)
		if i < sessions.MinRatedGames-1 {
			finish(t, st, "chan-2", carol, dave, game.Player1, false, rated)
		}
	}
	if r := mustRating(t, st, "guild-1", carol); r.Games != sessions.MinRatedGames-1 || r.R <= mustRating(t, st, "guild-1", bob).R {
		t.Fatalf("carol's rating = %+v, want %d games and above bob's", r, sessions.MinRatedGames-1)
	}
	if got, want := board("guild-1", 10), []string{alice.ID, bob.ID}; !slices.Equal(got, want) {
		t.Errorf("RatingLeaderboard() = %v, want %v (alice, bob: carol and dave have %d rated matches)", got, want, sessions.MinRatedGames-1)
	}
	list, err := st.RatingLeaderboard(t.Context(), "guild-1", 1)
	if err != nil || len(list) != 1 || list[0] != mustRating(t, st, "guild-1", alice) {
		t.Errorf("RatingLeaderboard(limit 1) = %+v, %v, want alice's rating only", list, err)
	}
	// A fifth: Carol and Dave have Alice's and Bob's histories, bit for bit,
	// and come after them by user ID.
	finish(t, st, "chan-2", carol, dave, game.Player1, false, rated)
	if got, want := board("guild-1", 10), []string{alice.ID, carol.ID, bob.ID, dave.ID}; !slices.Equal(got, want) {
		t.Errorf("RatingLeaderboard() = %v, want %v (alice, carol, bob, dave)", got, want)
	}
	if got := board("guild-2", 10); len(got) != 0 {
		t.Errorf("RatingLeaderboard(guild-2) = %v, want none", got)
	}

	// Rows written directly, in guild-9: ties on R broken by games, then
	// by user ID.
	last := t0.UTC().Format("2006-01-02T15:04:05.000000000Z")
	p := func(n string) string { return "30000000000000000" + n }
	for _, r := range []struct {
		guild, user string
		r           float64
		games       int
	}{
		{"guild-9", p("9"), 1600, 5},
		{"guild-9", p("8"), 1600, 7},
		{"guild-9", p("7"), 1600, 7},
		{"guild-9", p("6"), 1700, 5},
		{"guild-9", p("5"), 1800, sessions.MinRatedGames - 1},
		{"guild-9", p("4"), 1550, 5},
		{"guild-8", p("3"), 2000, 9},
	} {
		db.Exec(t, `INSERT INTO member_ratings (guild_id, user_id, r, rd, sigma, games, best, last_played) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			r.guild, r.user, r.r, 80.0, 0.06, r.games, r.r, last)
	}
	if got, want := board("guild-9", 100), []string{p("6"), p("7"), p("8"), p("9"), p("4")}; !slices.Equal(got, want) {
		t.Errorf("RatingLeaderboard(guild-9) = %v, want %v", got, want)
	}
	if got, want := board("guild-9", 2), []string{p("6"), p("7")}; !slices.Equal(got, want) {
		t.Errorf("RatingLeaderboard(guild-9, limit 2) = %v, want %v", got, want)
	}
	want := sessions.MemberRating{GuildID: "guild-9", UserID: p("6"), Rating: rating.Rating{R: 1700, RD: 80, Sigma: 0.06}, Games: 5, Best: 1700, LastPlayed: t0.UTC()}
	if list, err := st.RatingLeaderboard(t.Context(), "guild-9", 1); err != nil || len(list) != 1 || list[0] != want {
		t.Errorf("RatingLeaderboard(guild-9, limit 1) = %+v, %v, want [%+v]", list, err, want)
	}
	for _, limit := range []int{0, -1, 101} {
		if _, err := st.RatingLeaderboard(t.Context(), "guild-9", limit); err == nil {
			t.Errorf("RatingLeaderboard(limit %d) error = nil, want an error", limit)
		}
	}
}

// testRatedToday checks the count of rated matches between two members:
// in either order of challenger, in their server only, finished matches
// whose result changed the ratings (not an unrated one, nor a rated one
// forfeited before the first disc, nor one still being played), ended at
// or after the time given, on the store's clock; a 24-hour window moves
// with it. A member's removed matches no longer count.
func testRatedToday(t *testing.T, b Backend) {
	clock := newClock()
	st := b.NewDB(t).Open(t, clock)
	finish(t, st, "chan-1", alice, bob, game.Player1, false, rated) // t0
	clock.Advance(time.Hour)
	finish(t, st, "chan-1", bob, alice, game.Player2, false, rated) // t0+1h, bob challenged
	clock.Advance(time.Hour)
	// At t0+2h, none of these counts for alice and bob in guild-1.
	finish(t, st, "chan-1", alice, bob, game.Player1, false)                            // unrated
	finish(t, st, "chan-1", alice, bob, game.Player1, true, rated)                      // forfeited before the first disc
	finish(t, st, "chan-2", alice, bob, game.Player1, false, rated, inGuild("guild-2")) // another server
	finish(t, st, "chan-3", alice, carol, game.Player1, false, rated)                   // another member
	challenge(t, st, "guild-1", "chan-4", alice, bob)
	mustUpdate(t, st, "chan-4", func(s *sessions.Session) error { // still being played
		s.Phase, s.Rated = sessions.PhasePlaying, true
		_, err := s.Match.Play(game.Player1, 3)
		return err
	})

	now := clock.Now()
	day := now.Add(-24 * time.Hour)
	tests := []struct {
		name  string
		guild string
		a, b  sessions.Member
		since time.Time
		want  int
	}{
		{"the last 24 hours", "guild-1", alice, bob, day, 2},
		{"the other order", "guild-1", bob, alice, day, 2},
		{"since the first ended, exactly", "guild-1", alice, bob, t0, 2},
		{"just after the first ended", "guild-1", bob, alice, t0.Add(time.Nanosecond), 1},
		{"since the second ended, in UTC", "guild-1", alice, bob, t0.Add(time.Hour).UTC(), 1},
		{"after both", "guild-1", alice, bob, t0.Add(time.Hour + time.Nanosecond), 0},
		{"another server", "guild-2", bob, alice, day, 1},
		{"another pair", "guild-1", carol, alice, day, 1},
		{"a pair that never played", "guild-1", bob, carol, day, 0},
	}
	for _, tt := range tests {
		if got := mustRatedToday(t, st, tt.guild, tt.a, tt.b, tt.since); got != tt.want {
			t.Errorf("%s: RatedToday(%s, %s, %s, %v) = %d, want %d", tt.name, tt.guild, tt.a.Name, tt.b.Name, tt.since, got, tt.want)
		}
	}
	// A day and half an hour later, the first has left the window.
	clock.Advance(22*time.Hour + 30*time.Minute)
	if got := mustRatedToday(t, st, "guild-1", alice, bob, clock.Now().Add(-24*time.Hour)); got != 1 {
		t.Errorf("RatedToday() 24h30 after the first = %d, want 1", got)
	}
	if _, err := st.Forget(t.Context(), bob.ID); err != nil {
		t.Fatal(err)
	}
	if got := mustRatedToday(t, st, "guild-1", alice, bob, day); got != 0 {
		t.Errorf("RatedToday() after bob was forgotten = %d, want 0", got)
	}
}

// testRatingsRoundtrip checks Rated, RatedCapped and Ratings on a session:
// written by Create and by Update (set and cleared again), read back by
// Get, by another store and after reopening; and the Ratings a store
// returns are the caller's own: changing them changes nothing stored.
func testRatingsRoundtrip(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clock := newClock()
	st, other := db.Open(t, clock), db.Open(t, clock)
	change := &sessions.RatingChange{
		Before: [2]rating.Rating{{R: 1500, RD: 350, Sigma: 0.06}, {R: 1712.345678901234, RD: 61.5, Sigma: 0.0599999}},
		After:  [2]rating.Rating{{R: 1642.1, RD: 301.25, Sigma: 0.06000001}, {R: 1698.0000000001, RD: 61.2, Sigma: 0.0599998}},
	}
	in := newSession(t, "chan-1")
	in.Rated, in.RatedCapped, in.Ratings = true, true, change
	created := mustCreate(t, st, in)
	if !created.Rated || !created.RatedCapped || !sameRatings(created.Ratings, change) {
		t.Errorf("Create() = Rated %t, RatedCapped %t, Ratings %s; want both set and %s", created.Rated, created.RatedCapped, showRatings(created.Ratings), showRatings(change))
	}
	assertSameSession(t, mustGet(t, other, "chan-1"), created)
	// The copies a store returns are the caller's own.
	stored := *change
	created.Ratings.Before[0].R = 2
	if *change != stored {
		t.Errorf("changing the Ratings Create returned changed those given to it: %+v, want %+v", *change, stored)
	}
	mustGet(t, st, "chan-1").Ratings.After[0].R = 1
	if got := mustGet(t, st, "chan-1"); !sameRatings(got.Ratings, &stored) {
		t.Errorf("Get().Ratings after changing the copies Create and Get returned = %s, want %s unchanged", showRatings(got.Ratings), showRatings(&stored))
	}
	change.After[1].R = 3 // the caller's own, given to Create
	if got := mustGet(t, st, "chan-1"); !sameRatings(got.Ratings, &stored) {
		t.Errorf("Get().Ratings after changing the Ratings given to Create = %s, want %s unchanged", showRatings(got.Ratings), showRatings(&stored))
	}
	*change = stored

	steps := []struct {
		name string
		fn   func(*sessions.Session)
	}{
		{"cleared", func(s *sessions.Session) { s.Rated, s.RatedCapped, s.Ratings = false, false, nil }},
		{"rated when the match starts", func(s *sessions.Session) { s.Phase, s.Rated = sessions.PhasePlaying, true }},
		{"capped, with a disc", func(s *sessions.Session) {
			s.Rated, s.RatedCapped = false, true
			mustPlay(t, s.Match, 3)
		}},
		{"ratings set", func(s *sessions.Session) { s.Ratings = change }},
	}
	for _, step := range steps {
		clock.Advance(time.Second)
		updated := mustUpdate(t, st, "chan-1", func(s *sessions.Session) error { step.fn(s); return nil })
		want := mustGet(t, st, "chan-1")
		if updated.Rated != want.Rated || updated.RatedCapped != want.RatedCapped || !sameRatings(updated.Ratings, want.Ratings) {
			t.Errorf("%s: Update() returned %t, %t, %s; Get() reads %t, %t, %s", step.name,
				updated.Rated, updated.RatedCapped, showRatings(updated.Ratings), want.Rated, want.RatedCapped, showRatings(want.Ratings))
		}
		for i, s := range []sessions.Store{other, db.Open(t, clock)} {
			got := mustGet(t, s, "chan-1")
			if got.Rated != updated.Rated || got.RatedCapped != updated.RatedCapped || !sameRatings(got.Ratings, updated.Ratings) {
				t.Errorf("%s: store %d reads %t, %t, %s; want %t, %t, %s", step.name, i+2,
					got.Rated, got.RatedCapped, showRatings(got.Ratings), updated.Rated, updated.RatedCapped, showRatings(updated.Ratings))
			}
		}
	}
	got := mustGet(t, other, "chan-1")
	if got.Rated || !got.RatedCapped || !sameRatings(got.Ratings, change) || got.Match.Plies() != 1 {
		t.Errorf("after the updates: Rated %t, RatedCapped %t, Ratings %s, %d plies; want false, true, %s, 1",
			got.Rated, got.RatedCapped, showRatings(got.Ratings), got.Match.Plies(), showRatings(change))
	}
}

// testRatingsConcurrent finishes rated matches between the same two
// members in many channels at once, through two stores (two processes),
// each member player 1 in half of them, and checks that no result is
// lost: each match was rated from the ratings the one before it left
// (the matches' Ratings chain from rating.New() to the members' stored
// ratings, in some order), and each member has one rated match per
// channel. It fails if two matches read the same rating (a lost update)
// and, in PostgreSQL, if their transactions deadlock.
func testRatingsConcurrent(t *testing.T, b Backend) {
	const channels = 16
	db := b.NewDB(t)
	clock := newClock()
	stores := []sessions.Store{db.Open(t, clock), db.Open(t, clock)}
	for i := range channels {
		s := newSession(t, fmt.Sprintf("chan-%d", i))
		s.Config, s.Phase, s.Rated = oneWin, sessions.PhasePlaying, true
		if i%2 == 1 {
			s.Players = [2]sessions.Member{bob, alice}
		}
		// Player 1 wins with the next disc.
		s.Match = mustMatch(t, oneWin, 0, 1, 0, 1, 0, 1)
		mustCreate(t, stores[0], s)
	}
	var wg sync.WaitGroup
	done := make([]*sessions.Session, channels)
	errs := make([]error, channels)
	for i := range channels {
		wg.Go(func() {
			done[i], errs[i] = stores[i%2].Update(t.Context(), fmt.Sprintf("chan-%d", i), func(s *sessions.Session) error {
				_, err := s.Match.Play(game.Player1, 0)
				return err
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Update(chan-%d) finishing the match error = %v", i, err)
		}
	}
	// ratingOf returns m's rating before and after the match of s.
	ratingOf := func(s *sessions.Session, m sessions.Member) (before, after rating.Rating) {
		i := s.PlayerOf(m.ID) - 1
		return s.Ratings.Before[i], s.Ratings.After[i]
	}
	for _, m := range []sessions.Member{alice, bob} {
		left := slices.Clone(done)
		cur := rating.New()
		for range channels {
			k := slices.IndexFunc(left, func(s *sessions.Session) bool {
				before, _ := ratingOf(s, m)
				return s.Ratings != nil && before == cur
			})
			if k < 0 {
				t.Fatalf("%s: no match was rated from %+v, the rating the one before left: a result was lost", m.Name, cur)
			}
			_, cur = ratingOf(left[k], m)
			left = slices.Delete(left, k, k+1)
		}
		if got := mustRating(t, stores[1], "guild-1", m); got.Rating != cur || got.Games != channels {
			t.Errorf("%s: Rating() = %+v, want %+v after %d rated matches", m.Name, got, cur, channels)
		}
	}
}
