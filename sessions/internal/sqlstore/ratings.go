package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// lockRatingSQL reads a member's rating in a server for the transaction
// that rates a match, and holds the row until that transaction ends: an
// upsert that inserts the row of a member never rated there (rating.New(),
// no game; the transaction then writes their rating over it) or, for a row
// that exists, changes nothing (it sets a column of no index to itself)
// but locks it. In PostgreSQL another transaction rating the same member
// (a match of theirs finishing at the same time in another channel) then
// waits, and reads what this one wrote, so that no result is lost; SQLite
// writes one transaction at a time anyway. Its arguments: the server, the
// member, then R, RD and σ of a new rating. A rated result runs it with
// two rows (twoRows), both players at once, in the order of their IDs.
const lockRatingSQL = `INSERT INTO member_ratings (guild_id, user_id, r, rd, sigma, games, best, last_played)
	VALUES (?, ?, ?, ?, ?, 0, 0, '')
	ON CONFLICT (guild_id, user_id) DO UPDATE SET last_played = member_ratings.last_played
	RETURNING guild_id, user_id, r, rd, sigma, games, best, last_played`

// writeRatingSQL writes a member's rating after a rated match. Its
// arguments: R, RD, σ, games, best, last_played, then the server and the
// member.
const writeRatingSQL = `UPDATE member_ratings SET r = ?, rd = ?, sigma = ?, games = ?, best = ?, last_played = ?
	WHERE guild_id = ? AND user_id = ?`

// matchRatingsSQL writes what a rated match did to the ratings on its row,
// in the transaction that wrote its result (whose compare-and-swap moved
// the revision on already), and when (rated_at, which RatedToday counts).
const matchRatingsSQL = `UPDATE matches SET ratings = ?, rated_at = ? WHERE id = ?`

// selectRatingSQL reads a member's rating in a server (Rating): a lookup
// of the primary key.
const selectRatingSQL = `SELECT guild_id, user_id, r, rd, sigma, games, best, last_played FROM member_ratings
	WHERE guild_id = ? AND user_id = ?`

// ratingLeaderboardSQL reads the best rated members of a server with at
// least a number of rated matches, through member_ratings_ranking
// (guild_id, r DESC, games DESC, user_id), in its order: a seek, the rows
// of members with too few matches skipped. Its arguments: the server, the
// fewest matches, the limit.
const ratingLeaderboardSQL = `SELECT guild_id, user_id, r, rd, sigma, games, best, last_played FROM member_ratings
	WHERE guild_id = ? AND games >= ? ORDER BY r DESC, games DESC, user_id LIMIT ?`

// ratedTodaySQL counts the rated matches of two members in a server since
// a time, either one challenger, through the partial index
// matches_rated_pairs (guild_id, player1_id, player2_id, rated_at), whose
// condition it repeats so that both databases see that it serves: a seek
// for each order of the two. Both players' IDs are among the two and the
// table refuses a row whose players are the same member, so the two IN
// lists hold exactly the rows of the two orders. Its arguments: the
// server, the two members, the two members again, then the time.
const ratedTodaySQL = `SELECT count(*) FROM matches
	WHERE guild_id = ? AND player1_id IN (?, ?) AND player2_id IN (?, ?) AND rated_at <> '' AND rated_at >= ?`

// rates reports whether the finished match of sess changes its players'
// ratings: it is Rated, between two members (no AI), on a Rateable board,
// and at least one disc was dropped in it (a forfeit before the first disc
// is never rated).
func rates(sess *sessions.Session) bool {
	if !sess.Rated || sess.AI != "" || !sessions.Rateable(sess.Config) {
		return false
	}
	m := sess.Match
	for i := range m.Plies() {
		if m.Action(i).Kind == game.Drop {
			return true
		}
	}
	return false
}

// recordRatings rates the finished match of sess, which ended at now, in
// tx, when it rates (see rates): it reads and locks both players' ratings
// in the server (in the order of their user IDs), idles each for the
// rating periods since their last rated match, rates the match, writes
// both ratings and the change on the match's row, and sets sess.Ratings.
// Any other match is left as it is.
func (s *Store) recordRatings(ctx context.Context, tx txn, sess *sessions.Session, now time.Time) error {
	if !rates(sess) {
		return nil
	}
	order := [2]int{0, 1}
	if sess.Players[1].ID < sess.Players[0].ID {
		order = [2]int{1, 0}
	}
	// Both players' rows are locked by one statement, a row each in the
	// order of their IDs.
	var cur [2]sessions.MemberRating
	fresh := rating.New()
	var args []any
	for _, i := range order {
		args = append(args, sess.GuildID, sess.Players[i].ID, fresh.R, fresh.RD, fresh.Sigma)
	}
	rows, err := tx.query(ctx, s.st.lockRating2, args...)
	if err != nil {
		return fmt.Errorf("ratings of %s and %s: %w", sess.Players[0].ID, sess.Players[1].ID, err)
	}
	defer rows.Close()
	found := 0
	for rows.Next() {
		r, err := scanRating(rows)
		if err != nil {
			return fmt.Errorf("ratings of %s and %s: %w", sess.Players[0].ID, sess.Players[1].ID, err)
		}
		for i, p := range sess.Players {
			if p.ID == r.UserID {
				cur[i] = r
				found++
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ratings of %s and %s: %w", sess.Players[0].ID, sess.Players[1].ID, err)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("ratings of %s and %s: %w", sess.Players[0].ID, sess.Players[1].ID, err)
	}
	if found != 2 {
		return fmt.Errorf("ratings of %s and %s: %d rows locked, want 2", sess.Players[0].ID, sess.Players[1].ID, found)
	}
	var change sessions.RatingChange
	for i, r := range cur {
		change.Before[i] = r.Rating
		if r.Games > 0 && !r.LastPlayed.IsZero() {
			change.Before[i] = rating.Idle(r.Rating, now.Sub(r.LastPlayed).Hours()/rating.PeriodLength.Hours())
		}
	}
	score := 0.0
	if sess.Match.Winner() == game.Player1 {
		score = 1
	}
	change.After[0], change.After[1] = rating.Match(change.Before[0], change.Before[1], score)

	for _, i := range order {
		after, best := change.After[i], change.After[i].R
		if cur[i].Games > 0 {
			best = max(best, cur[i].Best)
		}
		if err := tx.exec(ctx, s.st.writeRating, after.R, after.RD, after.Sigma, cur[i].Games+1, best, formatTime(now),
			sess.GuildID, sess.Players[i].ID); err != nil {
			return fmt.Errorf("rating of %s: %w", sess.Players[i].ID, err)
		}
	}
	text, err := encodeRatings(&change)
	if err != nil {
		return err
	}
	if err := tx.exec(ctx, s.st.matchRatings, text, formatTime(now), sess.ID); err != nil {
		return fmt.Errorf("ratings of the match: %w", err)
	}
	sess.Ratings = &change
	return nil
}

// scanRating reads a row of member_ratings (guild_id, user_id, r, rd,
// sigma, games, best, last_played), as lockRatingSQL, selectRatingSQL and
// ratingLeaderboardSQL return them.
func scanRating(row interface{ Scan(...any) error }) (sessions.MemberRating, error) {
	var r sessions.MemberRating
	var last string
	if err := row.Scan(&r.GuildID, &r.UserID, &r.R, &r.RD, &r.Sigma, &r.Games, &r.Best, &last); err != nil {
		return sessions.MemberRating{}, err
	}
	t, err := parseOptionalTime(last)
	if err != nil {
		return sessions.MemberRating{}, fmt.Errorf("last_played: %w: %w", sessions.ErrCorrupt, err)
	}
	r.LastPlayed = t
	return r, nil
}

// Rating implements sessions.Store.
func (s *Store) Rating(ctx context.Context, guildID, userID string) (sessions.MemberRating, error) {
	r, err := scanRating(s.st.rating.QueryRowContext(ctx, guildID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return sessions.MemberRating{GuildID: guildID, UserID: userID, Rating: rating.New()}, nil
	}
	if err != nil {
		return sessions.MemberRating{}, fmt.Errorf("rating of %s in guild %s: %w", userID, guildID, err)
	}
	return r, nil
}

// RatingLeaderboard implements sessions.Store.
func (s *Store) RatingLeaderboard(ctx context.Context, guildID string, limit int) ([]sessions.MemberRating, error) {
	if limit < 1 || limit > 100 {
		return nil, fmt.Errorf("rating leaderboard of guild %s: limit %d out of range 1..100", guildID, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(ratingLeaderboardSQL), guildID, sessions.MinRatedGames, limit)
	if err != nil {
		return nil, fmt.Errorf("rating leaderboard of guild %s: %w", guildID, err)
	}
	defer rows.Close()
	list := []sessions.MemberRating{}
	for rows.Next() {
		r, err := scanRating(rows)
		if err != nil {
			return nil, fmt.Errorf("rating leaderboard of guild %s: %w", guildID, err)
		}
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rating leaderboard of guild %s: %w", guildID, err)
	}
	return list, nil
}

// RatedToday implements sessions.Store.
func (s *Store) RatedToday(ctx context.Context, guildID, userA, userB string, since time.Time) (int, error) {
	var n int
	if err := s.st.ratedToday.QueryRowContext(ctx, guildID, userA, userB, userA, userB, formatTime(since)).Scan(&n); err != nil {
		return 0, fmt.Errorf("rated matches of %s and %s in guild %s: %w", userA, userB, guildID, err)
	}
	return n, nil
}
