package sessionstest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// challenge stores a challenge from p1 to p2 in channel of guild and
// returns it.
func challenge(t *testing.T, st sessions.Store, guild, channel string, p1, p2 sessions.Member) *sessions.Session {
	t.Helper()
	s := newSession(t, channel)
	s.GuildID, s.Players = guild, [2]sessions.Member{p1, p2}
	return mustCreate(t, st, s)
}

// cancel ends the active session of channel as declined.
func cancel(t *testing.T, st sessions.Store, channel string) {
	t.Helper()
	mustUpdate(t, st, channel, func(s *sessions.Session) error {
		s.Phase, s.End = sessions.PhaseCancelled, sessions.EndDeclined
		return nil
	})
}

// testLastChallenge checks when a member last challenged in a server: the
// newest creation of a session where they are the challenger (any phase,
// made by any process), not one where they were challenged, nor one in
// another server; the zero time for a member who never challenged there.
func testLastChallenge(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clock := newClock()
	st, other := db.Open(t, clock), db.Open(t, clock)
	last := func(st sessions.Store, guild string, m sessions.Member) time.Time {
		t.Helper()
		at, err := st.LastChallenge(t.Context(), guild, m.ID)
		if err != nil {
			t.Fatalf("LastChallenge(%s, %s) error = %v", guild, m.Name, err)
		}
		if !at.IsZero() && at.Location() != time.UTC {
			t.Errorf("LastChallenge(%s, %s) = %v, want UTC", guild, m.Name, at)
		}
		return at
	}
	if at := last(st, "guild-1", alice); !at.IsZero() {
		t.Errorf("LastChallenge() of a member who never challenged = %v, want the zero time", at)
	}

	challenge(t, st, "guild-1", "chan-1", alice, bob) // t0
	cancel(t, st, "chan-1")
	clock.Advance(time.Hour)
	challenge(t, other, "guild-1", "chan-2", alice, carol) // t0+1h, by another process, ended below
	cancel(t, other, "chan-2")
	clock.Advance(time.Hour)
	challenge(t, st, "guild-1", "chan-3", bob, alice)   // alice challenged: not hers
	challenge(t, st, "guild-2", "chan-4", alice, carol) // another server
	challenge(t, st, "", "dm-1", alice, bob)            // a direct message
	// Later writes do not count.
	mustUpdate(t, st, "chan-4", func(s *sessions.Session) error { s.MessageID = "m"; return nil })

	tests := []struct {
		name   string
		guild  string
		member sessions.Member
		want   time.Time
	}{
		{"her newest challenge, ended, made by another process", "guild-1", alice, t0.Add(time.Hour)},
		{"the challenged one's own challenge", "guild-1", bob, t0.Add(2 * time.Hour)},
		{"another server", "guild-2", alice, t0.Add(2 * time.Hour)},
		{"direct messages", "", alice, t0.Add(2 * time.Hour)},
		{"challenged only", "guild-1", carol, time.Time{}},
		{"a server where she never played", "guild-3", alice, time.Time{}},
	}
	for _, tt := range tests {
		for i, s := range []sessions.Store{st, other} {
			if got := last(s, tt.guild, tt.member); !got.Equal(tt.want) {
				t.Errorf("%s: store %d: LastChallenge(%q, %s) = %v, want %v", tt.name, i+1, tt.guild, tt.member.Name, got, tt.want.UTC())
			}
		}
	}
}

// testActiveChannelsOf checks the channels of a member's active sessions:
// challenges and matches being played, on either side, in every server and
// outside one; not those that ended, nor other members', nor one whose
// opponent an Update replaced (which writes the players' IDs).
func testActiveChannelsOf(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	dave := sessions.Member{ID: "100000000000000004", Name: "Dave"}
	challenge(t, st, "guild-1", "chan-b", alice, bob) // a challenge she made
	challenge(t, st, "guild-1", "chan-a", carol, alice)
	// A match she plays, challenged.
	mustUpdate(t, st, "chan-a", func(s *sessions.Session) error { s.Phase = sessions.PhasePlaying; return nil })
	finish(t, st, "chan-c", alice, bob, game.Player1, false) // over
	challenge(t, st, "guild-1", "chan-d", alice, bob)
	cancel(t, st, "chan-d")                           // ended
	challenge(t, st, "guild-2", "chan-e", bob, alice) // another server
	challenge(t, st, "", "dm-1", alice, carol)        // a direct message
	challenge(t, st, "guild-1", "chan-f", bob, carol) // not hers
	challenge(t, st, "guild-1", "chan-g", bob, carol)
	// An opponent replaced by an Update: the new one's, no longer carol's.
	if got := mustUpdate(t, st, "chan-g", func(s *sessions.Session) error { s.Players[1] = dave; return nil }); got.Players[1] != dave {
		t.Fatalf("Update() replacing the opponent: Players = %v, want dave second", got.Players)
	}
	tests := []struct {
		member sessions.Member
		want   []string
	}{
		{alice, []string{"chan-a", "chan-b", "chan-e", "dm-1"}},
		{bob, []string{"chan-b", "chan-e", "chan-f", "chan-g"}},
		{carol, []string{"chan-a", "chan-f", "dm-1"}},
		{dave, []string{"chan-g"}},
		{sessions.Member{ID: "100000000000000005", Name: "Erin"}, []string{}},
	}
	for _, tt := range tests {
		got, err := st.ActiveChannelsOf(t.Context(), tt.member.ID)
		if err != nil {
			t.Fatalf("ActiveChannelsOf(%s) error = %v", tt.member.Name, err)
		}
		if got == nil || !slices.Equal(got, tt.want) {
			t.Errorf("ActiveChannelsOf(%s) = %#v, want %#v", tt.member.Name, got, tt.want)
		}
	}
}

// testEndedBy checks the moderator's name on a session they ended: written
// by Update, read back by Get and History, in another store, after
// reopening; and written by Create too.
func testEndedBy(t *testing.T, b Backend) {
	db := b.NewDB(t)
	st, other := db.Open(t, newClock()), db.Open(t, newClock())
	mustCreate(t, st, newSession(t, "chan-1"))
	mustGet(t, other, "chan-1") // in the other store's memory before the end
	ended := mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
		s.Phase, s.End, s.EndedBy = sessions.PhaseCancelled, sessions.EndEnded, carol.ID
		return nil
	})
	if ended.EndedBy != carol.ID || ended.End != sessions.EndEnded {
		t.Errorf("Update() = end %q by %q, want %q by carol", ended.End, ended.EndedBy, sessions.EndEnded)
	}
	assertSameSession(t, mustGet(t, other, "chan-1"), ended)
	if h, err := other.History(t.Context(), "chan-1", 0); err != nil || len(h) != 1 || h[0].EndedBy != carol.ID {
		t.Errorf("History() = %v, %v, want the session ended by carol", h, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	assertSameSession(t, mustGet(t, db.Open(t, newClock()), "chan-1"), ended)

	s := newSession(t, "chan-2")
	s.Phase, s.End, s.EndedBy = sessions.PhaseCancelled, sessions.EndEnded, bob.ID
	if got := mustCreate(t, other, s); got.EndedBy != bob.ID || mustGet(t, other, "chan-2").EndedBy != bob.ID {
		t.Errorf("Create() of a session ended by bob: EndedBy = %q, want bob's", got.EndedBy)
	}
}

// rowsNaming returns the rows of every table of db that hold id in any
// column, as "table: row".
func rowsNaming(t *testing.T, db DB, id string) []string {
	t.Helper()
	var out []string
	for table, rows := range db.Dump(t) {
		for _, row := range rows {
			if slices.ContainsFunc(row, func(col string) bool { return strings.Contains(col, id) }) {
				out = append(out, fmt.Sprintf("%s: %q", table, row))
			}
		}
	}
	slices.Sort(out)
	return out
}

// testForget checks that Forget leaves no row of any table naming the
// member (every column of every table read as text), keeps every other
// member's rows, counts what it removed, and that a channel whose newest
// session was removed shows its previous session, or none, to this store
// and to another that had the removed one in memory, which cannot bring it
// back.
func testForget(t *testing.T, b Backend) {
	db := b.NewDB(t)
	st, other := db.Open(t, newClock()), db.Open(t, newClock())
	ai := sessions.Member{ID: "900000000000000009", Name: "ConnectN"}

	finish(t, st, "chan-1", alice, bob, game.Player1, false, rated) // alice's stats, pair records and rating
	finish(t, st, "chan-2", bob, carol, game.Player2, false, rated) // others' stats, pair records and ratings
	challenge(t, st, "guild-1", "chan-3", carol, alice)             // challenged, active
	vsBot := newSession(t, "chan-4")
	vsBot.Players, vsBot.AI, vsBot.Phase = [2]sessions.Member{alice, ai}, "easy", sessions.PhasePlaying
	mustCreate(t, st, vsBot)
	mustUpdate(t, st, "chan-4", func(s *sessions.Session) error { return s.Match.Forfeit(game.Player1) }) // stats against the bot
	previous := finish(t, st, "chan-5", bob, carol, game.Player1, false, rated)
	challenge(t, st, "guild-1", "chan-5", alice, bob) // the channel's newest
	challenge(t, st, "", "dm-6", alice, bob)          // the channel's only one
	challenge(t, st, "guild-1", "chan-7", bob, carol)
	moderated := mustUpdate(t, st, "chan-7", func(s *sessions.Session) error {
		s.Phase, s.End, s.EndedBy = sessions.PhaseCancelled, sessions.EndEnded, alice.ID
		return nil
	})
	mustUpdateSettings(t, st, "guild-1", alice.ID, func(g *sessions.GuildSettings) error { g.Rows = ptr(7); return nil })
	mustUpdateSettings(t, st, "guild-2", bob.ID, func(g *sessions.GuildSettings) error { g.Rows = ptr(8); return nil })
	for _, ch := range []string{"chan-1", "chan-3", "chan-5", "dm-6", "chan-7"} {
		mustGet(t, other, ch) // in the other process's memory
	}
	if _, err := other.History(t.Context(), "chan-5", 0); err != nil {
		t.Fatal(err)
	}
	if len(rowsNaming(t, db, alice.ID)) == 0 {
		t.Fatal("no row names alice before Forget: the dump reads nothing")
	}
	othersBefore := map[string][]string{}
	for _, m := range []sessions.Member{bob, carol} {
		othersBefore[m.ID] = rowsNaming(t, db, m.ID)
	}

	n, err := st.Forget(t.Context(), alice.ID)
	if err != nil {
		t.Fatalf("Forget() error = %v", err)
	}
	if want := (sessions.ForgetCounts{Matches: 5, MemberStats: 2, PairRecords: 2, MemberRatings: 1}); n != want {
		t.Errorf("Forget() = %+v, want %+v (chan-1, 3, 4, 5 and dm-6; her records against members and the bot; alice-bob both ways; her rating)", n, want)
	}
	if rows := rowsNaming(t, db, alice.ID); len(rows) != 0 {
		t.Errorf("rows naming alice after Forget:\n%s", strings.Join(rows, "\n"))
	}
	tables := db.Dump(t)
	for _, table := range []string{"matches", "member_stats", "pair_records", "guild_settings", "member_ratings"} {
		if _, ok := tables[table]; !ok {
			t.Errorf("the dump has no table %s", table)
		}
	}
	// Bob's and Carol's rows that do not name Alice stay as they were.
	for _, m := range []sessions.Member{bob, carol} {
		after := rowsNaming(t, db, m.ID)
		for _, r := range othersBefore[m.ID] {
			if !strings.Contains(r, alice.ID) && !slices.Contains(after, r) {
				t.Errorf("%s's row was removed or changed by Forget: %s", m.Name, r)
			}
		}
	}
	// Their records stay as they were: the counts name no one.
	for _, tt := range []struct {
		m       sessions.Member
		matches int
	}{{bob, 3}, {carol, 2}} {
		if s, _ := st.Stats(t.Context(), "guild-1", tt.m.ID, false); s.Matches != tt.matches {
			t.Errorf("Stats(%s) after Forget = %+v, want their %d matches kept", tt.m.Name, s, tt.matches)
		}
	}
	if p, _ := st.Pair(t.Context(), "guild-1", bob.ID, carol.ID); p.Wins+p.Losses != 2 {
		t.Errorf("Pair(bob, carol) after Forget = %+v, want their 2 matches kept", p)
	}
	// Their ratings stay as they were, the games against her included;
	// hers is gone.
	if r := mustRating(t, st, "guild-1", bob); r.Games != 3 {
		t.Errorf("Rating(bob) after Forget = %+v, want his 3 rated matches kept", r)
	}
	assertRating(t, st, "guild-1", alice, newRating("guild-1", alice))
	if g := mustSettings(t, st, "guild-1"); showValue(g.Rows) != "7" || g.UpdatedBy != "" {
		t.Errorf("guild-1's settings after Forget = %s, want them kept, changed by no one", showSettings(g))
	}
	if g := mustSettings(t, st, "guild-2"); g.UpdatedBy != bob.ID {
		t.Errorf("guild-2's settings after Forget = %s, want them kept, changed by bob", showSettings(g))
	}

	// A new session where a removed one was: the other store, which had
	// the removed one in memory, finds the new one; its ID was never
	// given before.
	fresh := challenge(t, st, "guild-1", "chan-3", bob, carol)
	if got := mustUpdate(t, other, "chan-3", func(s *sessions.Session) error { s.MessageID = "m"; return nil }); got.ID != fresh.ID || got.Players[0] != bob {
		t.Errorf("the other store's Update(chan-3) wrote session %d of %s, want the new session %d of bob", got.ID, got.Players[0].Name, fresh.ID)
	}
	if fresh.ID <= moderated.ID {
		t.Errorf("a session created after Forget got ID %d, want more than every earlier one (%d)", fresh.ID, moderated.ID)
	}

	errStale := errors.New("stale button")
	for i, s := range []sessions.Store{st, other} {
		for _, ch := range []string{"chan-1", "chan-4", "dm-6"} {
			if got, err := s.Get(t.Context(), ch); !errors.Is(err, sessions.ErrNotFound) {
				t.Errorf("store %d: Get(%s) after Forget = %v, %v, want %v", i+1, ch, got, err, sessions.ErrNotFound)
			}
			if h, err := s.History(t.Context(), ch, 0); err != nil || len(h) != 0 {
				t.Errorf("store %d: History(%s) after Forget = %d sessions, %v, want none", i+1, ch, len(h), err)
			}
			// The other store may call fn on what it remembers (the
			// contract lets a first call start from memory), but neither
			// a write nor a refusal of it counts: the row is gone.
			for _, fnErr := range []error{nil, errStale} {
				called := false
				_, err := s.Update(t.Context(), ch, func(*sessions.Session) error { called = true; return fnErr })
				if !errors.Is(err, sessions.ErrNotFound) || (s == st && called) {
					t.Errorf("store %d: Update(%s) after Forget, fn returning %v: error = %v, fn called %t, want %v (and fn not called by the store that forgot)",
						i+1, ch, fnErr, err, called, sessions.ErrNotFound)
				}
			}
		}
		assertSameSession(t, mustGet(t, s, "chan-5"), previous)
		if h, err := s.History(t.Context(), "chan-5", 0); err != nil || len(h) != 1 || h[0].ID != previous.ID {
			t.Errorf("store %d: History(chan-5) after Forget = %v, %v, want the previous session only", i+1, h, err)
		}
		var seen int64
		if _, err := s.Update(t.Context(), "chan-5", func(s *sessions.Session) error { seen = s.ID; return errStale }); !errors.Is(err, errStale) || seen != previous.ID {
			t.Errorf("store %d: Update(chan-5) after Forget: fn saw session %d (error %v), want the previous session %d", i+1, seen, err, previous.ID)
		}
		want := *moderated
		want.EndedBy = ""
		assertSameSession(t, mustGet(t, s, "chan-7"), &want)
		if at, err := s.LastChallenge(t.Context(), "guild-1", alice.ID); err != nil || !at.IsZero() {
			t.Errorf("store %d: LastChallenge(alice) after Forget = %v, %v, want the zero time", i+1, at, err)
		}
		if chans, err := s.ActiveChannelsOf(t.Context(), alice.ID); err != nil || len(chans) != 0 {
			t.Errorf("store %d: ActiveChannelsOf(alice) after Forget = %v, %v, want none", i+1, chans, err)
		}
	}

	if n, err := st.Forget(t.Context(), alice.ID); err != nil || n != (sessions.ForgetCounts{}) {
		t.Errorf("Forget() again = %+v, %v, want nothing removed", n, err)
	}
	if _, err := st.Forget(t.Context(), ""); err == nil {
		t.Error("Forget(\"\") error = nil, want an empty user ID refused")
	}
}
