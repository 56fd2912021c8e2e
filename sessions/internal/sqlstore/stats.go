package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// addStatsSQL adds one finished match to a member's record. The streak
// counts match wins in a row; best_streak keeps the longest (written with
// CASE rather than SQLite's MAX or PostgreSQL's GREATEST, to be one
// statement for both).
const addStatsSQL = `INSERT INTO member_stats
	(guild_id, user_id, vs_ai, matches, wins, losses, rounds_won, rounds_lost, rounds_drawn, streak, best_streak, updated_at)
	VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (guild_id, user_id, vs_ai) DO UPDATE SET
		matches = member_stats.matches + 1,
		wins = member_stats.wins + excluded.wins,
		losses = member_stats.losses + excluded.losses,
		rounds_won = member_stats.rounds_won + excluded.rounds_won,
		rounds_lost = member_stats.rounds_lost + excluded.rounds_lost,
		rounds_drawn = member_stats.rounds_drawn + excluded.rounds_drawn,
		streak = CASE WHEN excluded.wins = 1 THEN member_stats.streak + 1 ELSE 0 END,
		best_streak = CASE WHEN excluded.wins = 1 AND member_stats.streak + 1 > member_stats.best_streak
			THEN member_stats.streak + 1 ELSE member_stats.best_streak END,
		updated_at = excluded.updated_at`

const addPairSQL = `INSERT INTO pair_records (guild_id, user_id, opponent_id, wins, losses)
	VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (guild_id, user_id, opponent_id) DO UPDATE SET
		wins = pair_records.wins + excluded.wins, losses = pair_records.losses + excluded.losses`

// recordResult adds the result of the finished match sess, which ended at
// now, to the ratings of its players when it is rated (recordRatings,
// which sets sess.Ratings) and to their stats, in tx: for a match between
// members, both players' stats and their pair records; for a match
// against the bot, the member's stats against the bot only. The rows are
// written in the order of the players' user IDs, so that two
// transactions that write the same members' rows (two matches finishing
// at once in PostgreSQL) take their row locks in the same order.
func (s *Store) recordResult(ctx context.Context, tx txn, sess *sessions.Session, now time.Time) error {
	m := sess.Match
	if sess.Phase != sessions.PhaseFinished || m == nil || !m.Over() {
		return fmt.Errorf("record result of session %d: match not finished", sess.ID)
	}
	if err := s.recordRatings(ctx, tx, sess, now); err != nil {
		return fmt.Errorf("record result of session %d: %w", sess.ID, err)
	}
	players := []game.Player{game.Player1, game.Player2}
	vsAI := sess.AI != ""
	if vsAI {
		players = players[:1] // the bot keeps no stats
	} else if sess.Players[1].ID < sess.Players[0].ID {
		players[0], players[1] = game.Player2, game.Player1
	}
	// Both players' rows are written by one statement each (stats, pair
	// records), a row per player in the order above: on PostgreSQL each
	// statement is a round trip.
	var stats, pairs []any
	for _, p := range players {
		wins, losses := 0, 1
		if m.Winner() == p {
			wins, losses = 1, 0
		}
		rec := m.Record(p)
		stats = append(stats, sess.GuildID, sess.Member(p).ID, boolInt(vsAI), wins, losses,
			rec.Wins, rec.Losses, rec.Draws, wins, wins, formatTime(now))
		pairs = append(pairs, sess.GuildID, sess.Member(p).ID, sess.Member(p.Other()).ID, wins, losses)
	}
	addStats := s.st.addStats
	if len(players) == 2 {
		addStats = s.st.addStats2
	}
	if err := tx.exec(ctx, addStats, stats...); err != nil {
		return fmt.Errorf("record result of session %d: stats: %w", sess.ID, err)
	}
	if vsAI {
		return nil
	}
	if err := tx.exec(ctx, s.st.addPair2, pairs...); err != nil {
		return fmt.Errorf("record result of session %d: pair records: %w", sess.ID, err)
	}
	return nil
}

// twoRows returns the INSERT query with its VALUES row given twice, for
// two rows' arguments one after the other.
func twoRows(query string) string {
	i := strings.Index(query, "VALUES (")
	if i < 0 {
		panic("twoRows: no VALUES in " + query)
	}
	i += len("VALUES ")
	j := i + strings.IndexByte(query[i:], ')') + 1
	return query[:j] + ", " + query[i:j] + query[j:]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

const selectStats = `SELECT guild_id, user_id, vs_ai, matches, wins, losses,
	rounds_won, rounds_lost, rounds_drawn, streak, best_streak FROM member_stats`

func scanStats(row interface{ Scan(...any) error }) (sessions.Stats, error) {
	var st sessions.Stats
	var vsAI int64
	err := row.Scan(&st.GuildID, &st.UserID, &vsAI, &st.Matches, &st.Wins, &st.Losses,
		&st.RoundsWon, &st.RoundsLost, &st.RoundsDrawn, &st.Streak, &st.BestStreak)
	st.VsAI = vsAI != 0
	return st, err
}

// Stats implements sessions.Store.
func (s *Store) Stats(ctx context.Context, guildID, userID string, vsAI bool) (sessions.Stats, error) {
	st, err := scanStats(s.db.QueryRowContext(ctx, s.d.Rebind(selectStats+` WHERE guild_id = ? AND user_id = ? AND vs_ai = ?`),
		guildID, userID, boolInt(vsAI)))
	if errors.Is(err, sql.ErrNoRows) {
		return sessions.Stats{GuildID: guildID, UserID: userID, VsAI: vsAI}, nil
	}
	if err != nil {
		return sessions.Stats{}, fmt.Errorf("stats of %s in guild %s: %w", userID, guildID, err)
	}
	return st, nil
}

// Pair implements sessions.Store.
func (s *Store) Pair(ctx context.Context, guildID, userID, opponentID string) (sessions.PairRecord, error) {
	var r sessions.PairRecord
	err := s.st.pair.QueryRowContext(ctx, guildID, userID, opponentID).Scan(&r.Wins, &r.Losses)
	if errors.Is(err, sql.ErrNoRows) {
		return sessions.PairRecord{}, nil
	}
	if err != nil {
		return sessions.PairRecord{}, fmt.Errorf("record of %s against %s in guild %s: %w", userID, opponentID, guildID, err)
	}
	return r, nil
}

// selectPairSQL reads the record of a member against an opponent (Pair,
// shown under every finished match).
const selectPairSQL = `SELECT wins, losses FROM pair_records
	WHERE guild_id = ? AND user_id = ? AND opponent_id = ?`

// Leaderboard implements sessions.Store.
func (s *Store) Leaderboard(ctx context.Context, guildID string, limit int) ([]sessions.Stats, error) {
	if limit < 1 || limit > 100 {
		return nil, fmt.Errorf("leaderboard of guild %s: limit %d out of range 1..100", guildID, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(selectStats+` WHERE guild_id = ? AND vs_ai = 0 AND matches > 0
		ORDER BY wins DESC, CAST(wins AS DOUBLE PRECISION) / matches DESC, rounds_won - rounds_lost DESC, user_id ASC LIMIT ?`), guildID, limit)
	if err != nil {
		return nil, fmt.Errorf("leaderboard of guild %s: %w", guildID, err)
	}
	defer rows.Close()
	list := []sessions.Stats{}
	for rows.Next() {
		st, err := scanStats(rows)
		if err != nil {
			return nil, fmt.Errorf("leaderboard of guild %s: %w", guildID, err)
		}
		list = append(list, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("leaderboard of guild %s: %w", guildID, err)
	}
	return list, nil
}

// Due implements sessions.Store.
func (s *Store) Due(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		limit = noLimit
	}
	t := formatTime(now)
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(`SELECT channel_id FROM (
			SELECT channel_id, deadline_at AS due FROM matches
				WHERE phase IN ('challenge', 'playing') AND deadline_at <> '' AND deadline_at <= ?
			UNION ALL
			SELECT channel_id, post_due AS due FROM matches
				WHERE phase IN ('challenge', 'playing') AND post_due <> '' AND post_due <= ?
		) due GROUP BY channel_id ORDER BY MIN(due), channel_id LIMIT ?`), t, t, limit)
	if err != nil {
		return nil, fmt.Errorf("due sessions: %w", err)
	}
	defer rows.Close()
	list := []string{}
	for rows.Next() {
		var ch string
		if err := rows.Scan(&ch); err != nil {
			return nil, fmt.Errorf("due sessions: %w", err)
		}
		list = append(list, ch)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("due sessions: %w", err)
	}
	return list, nil
}

// CountActive implements sessions.Store.
func (s *Store) CountActive(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM matches WHERE phase IN ('challenge', 'playing')`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count active sessions: %w", err)
	}
	return n, nil
}
