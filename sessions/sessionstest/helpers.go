package sessionstest

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
)

// t0 is the fake clock's start. It is not in UTC on purpose: the store must
// convert.
var t0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600))

var (
	alice = sessions.Member{ID: "100000000000000001", Name: "Alice"}
	bob   = sessions.Member{ID: "100000000000000002", Name: "Bob"}
	carol = sessions.Member{ID: "100000000000000003", Name: "Carol"}
)

// newClock returns the fake clock of a test, at t0.
func newClock() *clocktest.Fake { return clocktest.At(t0) }

// mustOpen opens a store on a fresh database with a clock fixed at t0.
func mustOpen(tb testing.TB, b Backend) sessions.Store {
	tb.Helper()
	return b.NewDB(tb).Open(tb, newClock())
}

// mustMatch returns a new match with cfg after the given drops, each made by
// the player to move.
func mustMatch(tb testing.TB, cfg game.Config, columns ...int) *game.Match {
	tb.Helper()
	m, err := game.NewMatch(cfg)
	if err != nil {
		tb.Fatalf("NewMatch(%+v) error = %v", cfg, err)
	}
	mustPlay(tb, m, columns...)
	return m
}

// mustPlay drops a disc in each column in turn, for the player to move.
func mustPlay(tb testing.TB, m *game.Match, columns ...int) {
	tb.Helper()
	for _, c := range columns {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			tb.Fatalf("Play(%v, %d) after %v error = %v", m.ToMove(), c, m.Actions(), err)
		}
	}
}

// newSession returns a challenge from alice to bob in channel, with a fresh
// classic match.
func newSession(tb testing.TB, channel string) *sessions.Session {
	tb.Helper()
	cfg := game.DefaultConfig()
	return &sessions.Session{
		ChannelID: channel,
		GuildID:   "guild-1",
		Players:   [2]sessions.Member{alice, bob},
		Config:    cfg,
		Match:     mustMatch(tb, cfg),
		Phase:     sessions.PhaseChallenge,
	}
}

// mustCreate stores sess and returns the stored copy.
func mustCreate(tb testing.TB, st sessions.Store, sess *sessions.Session) *sessions.Session {
	tb.Helper()
	got, err := st.Create(tb.Context(), sess)
	if err != nil {
		tb.Fatalf("Create(%s) error = %v", sess.ChannelID, err)
	}
	return got
}

// mustGet returns the channel's newest session.
func mustGet(tb testing.TB, st sessions.Store, channel string) *sessions.Session {
	tb.Helper()
	got, err := st.Get(tb.Context(), channel)
	if err != nil {
		tb.Fatalf("Get(%s) error = %v", channel, err)
	}
	return got
}

// mustUpdate runs Update and fails the test on error.
func mustUpdate(tb testing.TB, st sessions.Store, channel string, fn func(*sessions.Session) error) *sessions.Session {
	tb.Helper()
	got, err := st.Update(tb.Context(), channel, fn)
	if err != nil {
		tb.Fatalf("Update(%s) error = %v", channel, err)
	}
	return got
}

// assertSameSession compares every field of two sessions, the match by its
// actions and observable state.
func assertSameSession(tb testing.TB, got, want *sessions.Session) {
	tb.Helper()
	if got.ID != want.ID {
		tb.Errorf("ID = %d, want %d", got.ID, want.ID)
	}
	if got.ChannelID != want.ChannelID {
		tb.Errorf("ChannelID = %q, want %q", got.ChannelID, want.ChannelID)
	}
	if got.GuildID != want.GuildID {
		tb.Errorf("GuildID = %q, want %q", got.GuildID, want.GuildID)
	}
	if got.Players != want.Players {
		tb.Errorf("Players = %+v, want %+v", got.Players, want.Players)
	}
	if got.Config != want.Config {
		tb.Errorf("Config = %+v, want %+v", got.Config, want.Config)
	}
	if got.Phase != want.Phase {
		tb.Errorf("Phase = %q, want %q", got.Phase, want.Phase)
	}
	if got.MessageID != want.MessageID {
		tb.Errorf("MessageID = %q, want %q", got.MessageID, want.MessageID)
	}
	if got.Theme != want.Theme || got.AI != want.AI || got.End != want.End {
		tb.Errorf("Theme, AI, End = %q, %q, %q, want %q, %q, %q", got.Theme, got.AI, got.End, want.Theme, want.AI, want.End)
	}
	if !got.Deadline.Equal(want.Deadline) || !got.PostDue.Equal(want.PostDue) || got.PostSeq != want.PostSeq {
		tb.Errorf("Deadline, PostDue, PostSeq = %v, %v, %d, want %v, %v, %d",
			got.Deadline, got.PostDue, got.PostSeq, want.Deadline, want.PostDue, want.PostSeq)
	}
	if got.Webhook.AppID != want.Webhook.AppID || got.Webhook.Token != want.Webhook.Token ||
		got.Webhook.Message != want.Webhook.Message || !got.Webhook.At.Equal(want.Webhook.At) {
		tb.Errorf("Webhook = %+v, want %+v", got.Webhook, want.Webhook)
	}
	if got.EndedBy != want.EndedBy {
		tb.Errorf("EndedBy = %q, want %q", got.EndedBy, want.EndedBy)
	}
	if got.Place != want.Place {
		tb.Errorf("Place = %+v, want %+v", got.Place, want.Place)
	}
	if got.Rated != want.Rated || got.RatedCapped != want.RatedCapped {
		tb.Errorf("Rated, RatedCapped = %t, %t, want %t, %t", got.Rated, got.RatedCapped, want.Rated, want.RatedCapped)
	}
	if !sameRatings(got.Ratings, want.Ratings) {
		tb.Errorf("Ratings = %s, want %s", showRatings(got.Ratings), showRatings(want.Ratings))
	}
	if got.CreatedAt != want.CreatedAt {
		tb.Errorf("CreatedAt = %v, want %v", got.CreatedAt, want.CreatedAt)
	}
	if got.UpdatedAt != want.UpdatedAt {
		tb.Errorf("UpdatedAt = %v, want %v", got.UpdatedAt, want.UpdatedAt)
	}
	assertSameMatch(tb, got.Match, want.Match)
}

func assertSameMatch(tb testing.TB, got, want *game.Match) {
	tb.Helper()
	if got == nil || want == nil {
		if got != want {
			tb.Errorf("Match = %v, want %v", got, want)
		}
		return
	}
	if !slices.Equal(got.Actions(), want.Actions()) {
		tb.Errorf("Match.Actions() = %v, want %v", got.Actions(), want.Actions())
	}
	if got.Config() != want.Config() {
		tb.Errorf("Match.Config() = %+v, want %+v", got.Config(), want.Config())
	}
	if g, w := got.Round().Number(), want.Round().Number(); g != w {
		tb.Errorf("Match.Round().Number() = %d, want %d", g, w)
	}
	if g, w := got.Round().Board().String(), want.Round().Board().String(); g != w {
		tb.Errorf("Match.Round().Board() =\n%s want\n%s", g, w)
	}
	if got.Over() != want.Over() || got.Winner() != want.Winner() || got.ToMove() != want.ToMove() {
		tb.Errorf("Match over/winner/to move = %t/%v/%v, want %t/%v/%v",
			got.Over(), got.Winner(), got.ToMove(), want.Over(), want.Winner(), want.ToMove())
	}
	for _, p := range []game.Player{game.Player1, game.Player2} {
		if g, w := got.Score(p), want.Score(p); g != w {
			tb.Errorf("Match.Score(%v) = %d, want %d", p, g, w)
		}
	}
}

// DumpTables reads every row of every table that tablesQuery names (one
// column: the table's name) in db, each column as text (NULL as ""): what
// a backend's DB.Dump returns.
func DumpTables(tb testing.TB, db *sql.DB, tablesQuery string) map[string][][]string {
	tb.Helper()
	var tables []string
	rows, err := db.QueryContext(tb.Context(), tablesQuery)
	if err != nil {
		tb.Fatalf("list the tables: %v", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			tb.Fatalf("list the tables: %v", err)
		}
		tables = append(tables, name)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		tb.Fatalf("list the tables: %v", err)
	}
	out := make(map[string][][]string, len(tables))
	for _, table := range tables {
		out[table] = dumpTable(tb, db, table)
	}
	return out
}

// dumpTable reads every row of table as text.
func dumpTable(tb testing.TB, db *sql.DB, table string) [][]string {
	tb.Helper()
	rows, err := db.QueryContext(tb.Context(), `SELECT * FROM "`+table+`"`)
	if err != nil {
		tb.Fatalf("read table %s: %v", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatalf("read table %s: %v", table, err)
	}
	list := [][]string{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatalf("read table %s: %v", table, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
			case []byte:
				row[i] = string(v)
			default:
				row[i] = fmt.Sprint(v)
			}
		}
		list = append(list, row)
	}
	if err := rows.Err(); err != nil {
		tb.Fatalf("read table %s: %v", table, err)
	}
	return list
}
