package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/connectn/connectn/sessions"
)

// lastChallengeSQL reads the newest creation time of a member's challenges
// in a server: one seek at the end of their range of matches_by_challenger
// (player1_id, guild_id, created_at), read backwards; no row when there is
// none.
const lastChallengeSQL = `SELECT created_at FROM matches WHERE player1_id = ? AND guild_id = ?
	ORDER BY created_at DESC LIMIT 1`

// activeChannelsSQL reads the channels of a member's active sessions,
// through matches_by_challenger and matches_by_opponent: the member's
// sessions, then their phase. Its arguments: the member twice.
const activeChannelsSQL = `SELECT channel_id FROM matches
	WHERE (player1_id = ? OR player2_id = ?) AND phase IN ('challenge', 'playing') ORDER BY channel_id`

// forgetMatchesSQL removes a member's sessions, through
// matches_by_challenger and matches_by_opponent, and returns their IDs.
// Its arguments: the member twice.
const forgetMatchesSQL = `DELETE FROM matches WHERE player1_id = ? OR player2_id = ? RETURNING id`

// forgetEndedBySQL takes a member's name off the sessions they ended as a
// moderator, through the partial index matches_ended_by (whose condition
// the query repeats, so that both databases see it serves), moving their
// revision on, and returns their IDs.
const forgetEndedBySQL = `UPDATE matches SET ended_by = '', revision = revision + 1
	WHERE ended_by = ? AND ended_by <> '' RETURNING id`

// forgetRatingsSQL removes a member's ratings, in every server, through
// member_ratings_by_user. The ratings JSON of the matches that stay names
// no one (it holds numbers only, indexed as the players), and the matches
// the member played are removed with them.
const forgetRatingsSQL = `DELETE FROM member_ratings WHERE user_id = ?`

// LastChallenge implements sessions.Store.
func (s *Store) LastChallenge(ctx context.Context, guildID, userID string) (time.Time, error) {
	var last string
	err := s.st.lastChallenge.QueryRowContext(ctx, userID, guildID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("last challenge of %s in guild %s: %w", userID, guildID, err)
	}
	t, err := time.Parse(TimeFormat, last)
	if err != nil {
		return time.Time{}, fmt.Errorf("last challenge of %s in guild %s: created_at: %w: %w", userID, guildID, sessions.ErrCorrupt, err)
	}
	return t, nil
}

// ActiveChannelsOf implements sessions.Store.
func (s *Store) ActiveChannelsOf(ctx context.Context, userID string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(activeChannelsSQL), userID, userID)
	if err != nil {
		return nil, fmt.Errorf("active channels of %s: %w", userID, err)
	}
	defer rows.Close()
	list := []string{}
	for rows.Next() {
		var ch string
		if err := rows.Scan(&ch); err != nil {
			return nil, fmt.Errorf("active channels of %s: %w", userID, err)
		}
		list = append(list, ch)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("active channels of %s: %w", userID, err)
	}
	return list, nil
}

// Forget implements sessions.Store.
func (s *Store) Forget(ctx context.Context, userID string) (sessions.ForgetCounts, error) {
	var n sessions.ForgetCounts
	if userID == "" {
		return n, errors.New("forget: empty user id")
	}
	var deleted, renamed []int64
	done := s.lockWrites()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		n = sessions.ForgetCounts{}
		if n.SharedCards, err = execCount(ctx, tx, s.d.Rebind(forgetSharedCardsSQL), userID, userID, userID); err != nil {
			return fmt.Errorf("shared cards: %w", err)
		}
		deleted, err = queryIDs(ctx, tx, s.d.Rebind(forgetMatchesSQL), userID, userID)
		if err != nil {
			return fmt.Errorf("matches: %w", err)
		}
		n.Matches = len(deleted)
		if n.MemberStats, err = execCount(ctx, tx, s.d.Rebind(`DELETE FROM member_stats WHERE user_id = ?`), userID); err != nil {
			return fmt.Errorf("member records: %w", err)
		}
		if n.PairRecords, err = execCount(ctx, tx, s.d.Rebind(`DELETE FROM pair_records WHERE user_id = ? OR opponent_id = ?`), userID, userID); err != nil {
			return fmt.Errorf("pair records: %w", err)
		}
		if n.MemberRatings, err = execCount(ctx, tx, s.d.Rebind(forgetRatingsSQL), userID); err != nil {
			return fmt.Errorf("ratings: %w", err)
		}
		if err := s.forgetPuzzles(ctx, tx, userID, &n); err != nil {
			return err
		}
		// Rows that stay but lose the name: their revision moves on, so
		// that no process trusts its memory of them.
		renamed, err = queryIDs(ctx, tx, s.d.Rebind(forgetEndedBySQL), userID)
		if err != nil {
			return fmt.Errorf("sessions ended by them: %w", err)
		}
		if _, err = execCount(ctx, tx, s.d.Rebind(`UPDATE guild_settings SET updated_by = '', revision = revision + 1 WHERE updated_by = ?`), userID); err != nil {
			return fmt.Errorf("settings changed by them: %w", err)
		}
		if n.TournamentEntries, err = s.forgetTournaments(ctx, tx, userID, s.clock()); err != nil {
			return fmt.Errorf("tournaments: %w", err)
		}
		return nil
	})
	done()
	if err != nil {
		return sessions.ForgetCounts{}, fmt.Errorf("forget %s: %w", userID, err)
	}
	for _, id := range append(deleted, renamed...) {
		s.cache.drop(id)
	}
	return n, nil
}

// queryIDs runs query in tx and returns the IDs its rows hold (a single
// column).
func queryIDs(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// execCount runs query in tx and returns how many rows it changed.
func execCount(ctx context.Context, tx *sql.Tx, query string, args ...any) (int, error) {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	k, err := res.RowsAffected()
	return int(k), err
}
