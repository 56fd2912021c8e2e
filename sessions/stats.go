package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/connectn/connectn/game"
)

// Stats is one member's record in one server, over matches against members
// or (kept apart) against the bot. A forfeit and a timeout count as a match
// lost by the player who forfeited or let the time run out.
type Stats struct {
	// GuildID and UserID name the member.
	GuildID, UserID string
	// VsAI is true for the record against the bot.
	VsAI bool
	// Matches counts the matches finished; Wins + Losses == Matches.
	Matches, Wins, Losses int
	// RoundsWon, RoundsLost and RoundsDrawn count the rounds of those
	// matches (a forfeited round is lost by the player who forfeited).
	RoundsWon, RoundsLost, RoundsDrawn int
	// Streak counts the matches won in a row, up to the last one; BestStreak
	// is the longest such run ever.
	Streak, BestStreak int
}

// WinRate returns Wins / Matches, from 0 to 1; 0 with no match.
func (s Stats) WinRate() float64 {
	if s.Matches == 0 {
		return 0
	}
	return float64(s.Wins) / float64(s.Matches)
}

// PairRecord is one member's record in matches against one other member of
// the same server.
type PairRecord struct {
	Wins, Losses int
}

// LeaderboardRule states the order of Leaderboard, for users to read: the
// most match wins first, then the higher win rate, then the better round
// difference (rounds won minus rounds lost).
const LeaderboardRule = "most match wins, then highest win rate, then best round difference (rounds won − rounds lost)"

// recordResult adds the result of the finished match sess to the stats of
// its players, in tx: for a match between members, both players' stats and
// their pair records; for a match against the bot, the member's stats
// against the bot only.
func recordResult(ctx context.Context, tx *sql.Tx, sess *Session, now time.Time) error {
	m := sess.Match
	if sess.Phase != PhaseFinished || m == nil || !m.Over() {
		return fmt.Errorf("record result of session %d: match not finished", sess.ID)
	}
	players := []game.Player{game.Player1, game.Player2}
	vsAI := sess.AI != ""
	if vsAI {
		players = players[:1] // the bot keeps no stats
	}
	for _, p := range players {
		won := m.Winner() == p
		rec := m.Record(p)
		if err := addStats(ctx, tx, sess.GuildID, sess.Member(p).ID, vsAI, won, rec, now); err != nil {
			return fmt.Errorf("record result of session %d: %w", sess.ID, err)
		}
		if vsAI {
			continue
		}
		wins, losses := 0, 1
		if won {
			wins, losses = 1, 0
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO pair_records (guild_id, user_id, opponent_id, wins, losses)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (guild_id, user_id, opponent_id) DO UPDATE SET
				wins = wins + excluded.wins, losses = losses + excluded.losses`,
			sess.GuildID, sess.Member(p).ID, sess.Member(p.Other()).ID, wins, losses); err != nil {
			return fmt.Errorf("record result of session %d: pair record: %w", sess.ID, err)
		}
	}
	return nil
}

func addStats(ctx context.Context, tx *sql.Tx, guildID, userID string, vsAI, won bool, rec game.Record, now time.Time) error {
	wins, losses := 0, 1
	if won {
		wins, losses = 1, 0
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO member_stats
		(guild_id, user_id, vs_ai, matches, wins, losses, rounds_won, rounds_lost, rounds_drawn, streak, best_streak, updated_at)
		VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (guild_id, user_id, vs_ai) DO UPDATE SET
			matches = matches + 1,
			wins = wins + excluded.wins,
			losses = losses + excluded.losses,
			rounds_won = rounds_won + excluded.rounds_won,
			rounds_lost = rounds_lost + excluded.rounds_lost,
			rounds_drawn = rounds_drawn + excluded.rounds_drawn,
			streak = CASE WHEN excluded.wins = 1 THEN streak + 1 ELSE 0 END,
			best_streak = MAX(best_streak, CASE WHEN excluded.wins = 1 THEN streak + 1 ELSE 0 END),
			updated_at = excluded.updated_at`,
		guildID, userID, boolInt(vsAI), wins, losses, rec.Wins, rec.Losses, rec.Draws, wins, wins, formatTime(now))
	if err != nil {
		return fmt.Errorf("stats of %s: %w", userID, err)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

const selectStats = `SELECT guild_id, user_id, vs_ai, matches, wins, losses,
	rounds_won, rounds_lost, rounds_drawn, streak, best_streak FROM member_stats`

func scanStats(row interface{ Scan(...any) error }) (Stats, error) {
	var st Stats
	err := row.Scan(&st.GuildID, &st.UserID, &st.VsAI, &st.Matches, &st.Wins, &st.Losses,
		&st.RoundsWon, &st.RoundsLost, &st.RoundsDrawn, &st.Streak, &st.BestStreak)
	return st, err
}

// Stats returns the record of member userID in server guildID, against
// members (vsAI false) or against the bot (vsAI true). A member who never
// finished such a match has the zero record (with GuildID, UserID and VsAI
// filled in), not an error.
func (s *Store) Stats(ctx context.Context, guildID, userID string, vsAI bool) (Stats, error) {
	st, err := scanStats(s.db.QueryRowContext(ctx, selectStats+` WHERE guild_id = ? AND user_id = ? AND vs_ai = ?`,
		guildID, userID, boolInt(vsAI)))
	if errors.Is(err, sql.ErrNoRows) {
		return Stats{GuildID: guildID, UserID: userID, VsAI: vsAI}, nil
	}
	if err != nil {
		return Stats{}, fmt.Errorf("stats of %s in guild %s: %w", userID, guildID, err)
	}
	return st, nil
}

// Pair returns the record of member userID against member opponentID in
// server guildID; the zero record when they never finished a match.
func (s *Store) Pair(ctx context.Context, guildID, userID, opponentID string) (PairRecord, error) {
	var r PairRecord
	err := s.db.QueryRowContext(ctx, `SELECT wins, losses FROM pair_records
		WHERE guild_id = ? AND user_id = ? AND opponent_id = ?`, guildID, userID, opponentID).Scan(&r.Wins, &r.Losses)
	if errors.Is(err, sql.ErrNoRows) {
		return PairRecord{}, nil
	}
	if err != nil {
		return PairRecord{}, fmt.Errorf("record of %s against %s in guild %s: %w", userID, opponentID, guildID, err)
	}
	return r, nil
}

// Leaderboard returns the best members of server guildID in matches between
// members, at most limit of them (limit from 1 to 100), ranked by
// LeaderboardRule and then by user ID. Members with no finished match are
// left out; matches against the bot do not count.
func (s *Store) Leaderboard(ctx context.Context, guildID string, limit int) ([]Stats, error) {
	if limit < 1 || limit > 100 {
		return nil, fmt.Errorf("leaderboard of guild %s: limit %d out of range 1..100", guildID, limit)
	}
	rows, err := s.db.QueryContext(ctx, selectStats+` WHERE guild_id = ? AND vs_ai = 0 AND matches > 0
		ORDER BY wins DESC, CAST(wins AS REAL) / matches DESC, rounds_won - rounds_lost DESC, user_id ASC LIMIT ?`, guildID, limit)
	if err != nil {
		return nil, fmt.Errorf("leaderboard of guild %s: %w", guildID, err)
	}
	defer rows.Close()
	list := []Stats{}
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

// Due returns the channels, at most limit of them (all when limit <= 0),
// whose active session has work due at now: a Deadline that has passed, or
// a PostDue that has come. The earliest due come first. The caller settles
// each with Update, which sees the latest state.
func (s *Store) Due(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		limit = -1
	}
	t := formatTime(now)
	rows, err := s.db.QueryContext(ctx, `SELECT channel_id FROM (
			SELECT channel_id, deadline_at AS due FROM matches
				WHERE phase IN ('challenge', 'playing') AND deadline_at <> '' AND deadline_at <= ?
			UNION ALL
			SELECT channel_id, post_due AS due FROM matches
				WHERE phase IN ('challenge', 'playing') AND post_due <> '' AND post_due <= ?
		) GROUP BY channel_id ORDER BY MIN(due), channel_id LIMIT ?`, t, t, limit)
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

// CountActive returns how many sessions are active (challenges and matches
// being played) across all channels.
func (s *Store) CountActive(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM matches WHERE phase IN ('challenge', 'playing')`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count active sessions: %w", err)
	}
	return n, nil
}
