package sqlstore

import "strings"

// PlannedQuery is a statement of the engine that must never read a whole
// table: the backends' tests ask their database for its plan (EXPLAIN)
// and check it.
type PlannedQuery struct {
	// Name says what the statement serves.
	Name string
	// SQL is the statement as the engine runs it, with ? placeholders.
	SQL string
	// Args are its arguments, all text.
	Args []string
	// Table is the table it must not read whole.
	Table string
	// Indexes are the indexes its plan must use, by name; none for a
	// lookup of the primary key, whose name differs between the backends.
	Indexes []string
	// Ordered means the statement's ORDER BY ... LIMIT is read in the
	// order of its index, without sorting: a seek, however many rows match.
	Ordered bool
}

// Literal returns q.SQL with its arguments written in as SQL string
// literals, for EXPLAIN.
func (q PlannedQuery) Literal() string {
	var b strings.Builder
	args := q.Args
	for _, r := range q.SQL {
		if r == '?' && len(args) > 0 {
			b.WriteString("'" + strings.ReplaceAll(args[0], "'", "''") + "'")
			args = args[1:]
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// PlannedQueries returns the statements whose plans the backends' tests
// check: those of the member queries and Forget, which the indexes of
// schema version 5 serve, the lookups of every click, and the ratings'
// (schema version 6): the statements of a rated result, Rating,
// RatingLeaderboard, RatedToday and Forget's.
func PlannedQueries() []PlannedQuery {
	const user, other, guild = "100000000000000001", "100000000000000002", "guild-1"
	const t = "2025-03-14T14:09:26.535897932Z"
	return []PlannedQuery{
		{Name: "Get, Update: the channel's newest session", SQL: newestSQL, Args: []string{"chan-1"},
			Table: "matches", Indexes: []string{"matches_by_channel"}, Ordered: true},
		{Name: "LastChallenge", SQL: lastChallengeSQL, Args: []string{user, guild},
			Table: "matches", Indexes: []string{"matches_by_challenger"}, Ordered: true},
		// Through the member's sessions (matches_by_challenger and
		// matches_by_opponent) or the active ones
		// (matches_one_active_per_channel), whichever the planner finds
		// fewer: PostgreSQL weighs them by its statistics.
		{Name: "ActiveChannelsOf", SQL: activeChannelsSQL, Args: []string{user, user}, Table: "matches"},
		{Name: "Forget: the member's sessions", SQL: forgetMatchesSQL, Args: []string{user, user},
			Table: "matches", Indexes: []string{"matches_by_challenger", "matches_by_opponent"}},
		{Name: "Forget: the sessions the member ended", SQL: forgetEndedBySQL, Args: []string{user},
			Table: "matches", Indexes: []string{"matches_ended_by"}},
		{Name: "GuildSettings", SQL: selectSettingsSQL, Args: []string{guild}, Table: "guild_settings"},
		{Name: "Pair", SQL: selectPairSQL, Args: []string{guild, user, other}, Table: "pair_records"},
		{Name: "a rated result: a player's rating, locked", SQL: lockRatingSQL, Args: []string{guild, user, "1500", "350", "0.06"},
			Table: "member_ratings"},
		{Name: "a rated result: a player's new rating", SQL: writeRatingSQL,
			Args: []string{"1662.3", "290.3", "0.06", "1", "1662.3", t, guild, user}, Table: "member_ratings"},
		{Name: "a rated result: the change on the match", SQL: matchRatingsSQL, Args: []string{"{}", t, "7"}, Table: "matches"},
		{Name: "Rating", SQL: selectRatingSQL, Args: []string{guild, user}, Table: "member_ratings"},
		{Name: "RatingLeaderboard", SQL: ratingLeaderboardSQL, Args: []string{guild, "5", "10"},
			Table: "member_ratings", Indexes: []string{"member_ratings_ranking"}, Ordered: true},
		{Name: "RatedToday", SQL: ratedTodaySQL, Args: []string{guild, user, other, user, other, t},
			Table: "matches", Indexes: []string{"matches_rated_pairs"}},
		{Name: "Forget: the member's ratings", SQL: forgetRatingsSQL, Args: []string{user},
			Table: "member_ratings", Indexes: []string{"member_ratings_by_user"}},
	}
}
