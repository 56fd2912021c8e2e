// Package sessionstest is the contract test suite of sessions.Store: every
// behaviour the bot relies on, run against any backend. A backend's tests
// call Run with a Backend that makes empty databases:
//
//	func TestContract(t *testing.T) {
//		sessionstest.Run(t, sessionstest.Backend{NewDB: newTestDB})
//	}
//
// The suite covers one active session per channel (refused by the
// database, across stores), serialised updates within a process and
// across processes (two Stores on one database stand in for two
// processes), the revision check and Update's retry on a fresh copy, stats
// and pair records written in the same transaction as the result,
// deadlines and Due, PostDue, webhooks, history, the leaderboard's order,
// CountActive, Abandon, corrupt rows, servers' settings (read fresh by
// every process, changed with a compare-and-swap across processes), a
// member's last challenge and active channels, Forget (no row left that
// names the member), the moderator who ended a session, ratings (a rated
// result changes both players' ratings in the transaction that records
// it, by Glicko-2; unrated matches change none; the leaderboard by rating;
// the rated matches of two members in a day), export and import, whole
// or of one server, and tournaments (tournament.go: their rows, a game's
// session recorded on its pairing once and its result with the session's
// end, a round advanced once under racing results from two stores, a
// restart in the middle of a round, forget-me, export and import); and
// sessions.PuzzleStore (puzzles.go), and sessions.CardStore (cards.go: a
// match's result card shared once, across processes and restarts). Bench
// gives the benchmarks of the move path.
package sessionstest

import (
	"testing"

	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/sessions"
)

// Backend makes databases for the suite.
type Backend struct {
	// NewDB creates an empty database (or schema) for one test, removed
	// when the test ends.
	NewDB func(tb testing.TB) DB
}

// DB is one empty database made by a Backend.
type DB interface {
	// Open opens a Store on the database with the clock now, migrating
	// its schema if needed. Every call opens another Store, as another
	// process would; each is closed when the test ends (closing it twice
	// is harmless).
	Open(tb testing.TB, c clock.Clock, opts ...sessions.Option) sessions.Store
	// Exec runs one statement on the database directly, as another
	// program would, with ? placeholders.
	Exec(tb testing.TB, query string, args ...any)
	// RefusePairRecords makes the database refuse every insert into
	// pair_records with an error whose text holds "pair records refused"
	// (a trigger), so that a test can make the stats write fail.
	RefusePairRecords(tb testing.TB)
	// RefuseRatings makes the database refuse every insert into and
	// update of member_ratings with an error whose text holds "ratings
	// refused" (a trigger), so that a test can make the ratings write
	// fail.
	RefuseRatings(tb testing.TB)
	// LockWaiters returns how many calls of st (a Store this DB opened)
	// wait now for the per-channel lock of channelID, not counting the one
	// that holds it: a hook into the backend's engine, which its exported
	// Store does not show, for the test that proves a second Update waits.
	// A backend reaches it from its own tests (an export_test.go).
	LockWaiters(st sessions.Store, channelID string) int
	// RowReads returns how many times st (a Store this DB opened) has read
	// a channel's newest session from the database, each one statement:
	// a hook into the backend's engine, as LockWaiters, for the test that
	// counts the reads of a move.
	RowReads(st sessions.Store) int64
	// Dump returns every row of every table of the database (or schema),
	// as another program would read them, by table name: each row as the
	// text of its columns (NULL as ""), for the test that proves no row
	// names a member Forget removed.
	Dump(tb testing.TB) map[string][][]string
}

// Run runs the whole suite against b, each test as a subtest on a fresh
// database.
func Run(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"CreateGetRoundtrip", testCreateGetRoundtrip},
		{"UpdateRoundtrip", testUpdateRoundtrip},
		{"KeepsNoCallerMemory", testKeepsNoCallerMemory},
		{"HandsOutOwnCopies", testHandsOutOwnCopies},
		{"UpdateWritesEachChange", testUpdateWritesEachChange},
		{"UpdateWritesSettledEnd", testUpdateWritesSettledEnd},
		{"ReopenMidMatch", testReopenMidMatch},
		{"CreateActiveSession", testCreateActiveSession},
		{"IDsNeverReused", testIDsNeverReused},
		{"CreateValidation", testCreateValidation},
		{"UpdateFnErrorWritesNothing", testUpdateFnErrorWritesNothing},
		{"UpdateInvalidChange", testUpdateInvalidChange},
		{"NotFound", testNotFound},
		{"CorruptRow", testCorruptRow},
		{"Closed", testClosed},
		{"UpdateContextCancelled", testUpdateContextCancelled},
		{"TwoStoresRetry", testTwoStoresRetry},
		{"TwoStoresStaleClick", testTwoStoresStaleClick},
		{"TwoStoresSeeEachOther", testTwoStoresSeeEachOther},
		{"TwoStoresRefusalRechecked", testTwoStoresRefusalRechecked},
		{"TwoStoresTakeTurnsReadOnce", testTwoStoresTakeTurnsReadOnce},
		{"TwoStoresAtRandom", testTwoStoresAtRandom},
		{"SecondUpdateWaits", testSecondUpdateWaits},
		{"ConflictAfterMaxAttempts", testConflictAfterMaxAttempts},
		{"ConcurrentStaleClicks", testConcurrentStaleClicks},
		{"ConcurrentAppends", testConcurrentAppends},
		{"ConcurrentTurns", testConcurrentTurns},
		{"ConcurrentCreates", testConcurrentCreates},
		{"ChannelsIndependent", testChannelsIndependent},
		{"ManyChannelsAtOnce", testManyChannelsAtOnce},
		{"ManyChannelsTwoStores", testManyChannelsTwoStores},
		{"ProcessesRaceOneClick", testProcessesRaceOneClick},
		{"ProcessesPlayInTurn", testProcessesPlayInTurn},
		{"DeadlineFiresOnce", testDeadlineFiresOnce},
		{"StatsAndLeaderboard", testStatsAndLeaderboard},
		{"StatsRankingRule", testStatsRankingRule},
		{"StatsAgainstTheBotKeptApart", testStatsAgainstTheBotKeptApart},
		{"StatsCountedOnce", testStatsCountedOnce},
		{"ResultAndStatsInOneTransaction", testResultAndStatsInOneTransaction},
		{"Due", testDue},
		{"SessionRules", testSessionRules},
		{"ExportImport", testExportImport},
		{"ExportOneGuild", testExportOneGuild},
		{"GuildSettingsRoundtrip", testGuildSettingsRoundtrip},
		{"GuildSettingsTwoStores", testGuildSettingsTwoStores},
		{"GuildSettingsConcurrent", testGuildSettingsConcurrent},
		{"GuildSettingsConflict", testGuildSettingsConflict},
		{"GuildSettingsStored", testGuildSettingsStored},
		{"LastChallenge", testLastChallenge},
		{"ActiveChannelsOf", testActiveChannelsOf},
		{"EndedBy", testEndedBy},
		{"Forget", testForget},
		{"RatingsRatedMatch", testRatingsRatedMatch},
		{"RatingsInOneTransaction", testRatingsInOneTransaction},
		{"RatingsUnrated", testRatingsUnrated},
		{"RatingLeaderboard", testRatingLeaderboard},
		{"RatedToday", testRatedToday},
		{"RatingsRoundtrip", testRatingsRoundtrip},
		{"RatingsConcurrent", testRatingsConcurrent},
	}
	for _, tt := range append(tests, tournamentTests...) {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, b) })
	}
	t.Run("Puzzles", func(t *testing.T) { runPuzzles(t, b) })
	t.Run("Cards", func(t *testing.T) { runCards(t, b) })
}
