package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// The puzzles' part of the engine: sessions.PuzzleStore on the tables of
// migration 8 (see its comment for what each holds).

var _ sessions.PuzzleStore = (*Store)(nil)

// QueuePuzzleScan implements sessions.PuzzleStore. With SerialWrites
// (SQLite) its insert joins the group commit of the moves (see batcher)
// instead of committing a transaction of its own: a match's end queues
// its scan, and a commit cost as much as the moves of a batch together.
// With a Pipeline (PostgreSQL) it joins the moves' pipeline the same way,
// instead of a round trip of its own (about one in ten of a match's).
func (s *Store) QueuePuzzleScan(ctx context.Context, scan sessions.PuzzleScan) (bool, error) {
	args := []any{scan.Match, scan.GuildID, scan.ChannelID, formatTime(s.clock())}
	var err error
	if s.st.queueScan != nil {
		err = s.writeSwap(&swap{ctx: ctx, stmt: s.st.queueScan, query: s.texts[s.st.queueScan], args: args})
	} else {
		done := s.lockWrites()
		err = swapped(s.db.ExecContext(ctx, s.d.Rebind(queueScanSQL), args...))
		done()
	}
	if errors.Is(err, errLost) {
		return false, nil // queued before
	} else if err != nil {
		return false, fmt.Errorf("queue the puzzle scan of match %d: %w", scan.Match, err)
	}
	return true, nil
}

// queueScanSQL queues a match's scan unless it is queued already; it
// changes no row then.
const queueScanSQL = `INSERT INTO puzzle_scans (match_id, guild_id, channel_id, due_at)
	VALUES (?, ?, ?, ?) ON CONFLICT (match_id) DO NOTHING`

// ClaimPuzzleScan implements sessions.PuzzleStore: it reads the scan due
// longest through puzzle_scans_due, then moves its due_at by a
// compare-and-swap on the due_at it read.
func (s *Store) ClaimPuzzleScan(ctx context.Context, lease time.Duration) (sessions.PuzzleScan, bool, error) {
	for try := 0; try < sessions.MaxAttempts; try++ {
		now := s.clock()
		var (
			sc  sessions.PuzzleScan
			due string
		)
		err := s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT match_id, guild_id, channel_id, due_at, tries FROM puzzle_scans
			WHERE done = 0 AND due_at <= ? ORDER BY due_at, match_id LIMIT 1`), formatTime(now)).Scan(
			&sc.Match, &sc.GuildID, &sc.ChannelID, &due, &sc.Tries)
		if errors.Is(err, sql.ErrNoRows) {
			return sessions.PuzzleScan{}, false, nil
		}
		if err != nil {
			return sessions.PuzzleScan{}, false, fmt.Errorf("claim a puzzle scan: %w", err)
		}
		sc.Due, sc.Tries = now.Add(lease), sc.Tries+1
		unlock := s.lockWrites()
		err = swapped(s.db.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_scans SET due_at = ?, tries = tries + 1
			WHERE match_id = ? AND due_at = ? AND done = 0`), formatTime(sc.Due), sc.Match, due))
		unlock()
		switch {
		case err == nil:
			return sc, true, nil
		case !errors.Is(err, errLost):
			return sessions.PuzzleScan{}, false, fmt.Errorf("claim the puzzle scan of match %d: %w", sc.Match, err)
		}
		backoff(ctx, try)
	}
	return sessions.PuzzleScan{}, false, fmt.Errorf("claim a puzzle scan: %d tries lost to other writers: %w", sessions.MaxAttempts, sessions.ErrConflict)
}

// FinishPuzzleScan implements sessions.PuzzleStore.
func (s *Store) FinishPuzzleScan(ctx context.Context, match int64, found []sessions.FoundPuzzle) (int, error) {
	added := 0
	now := formatTime(s.clock())
	done := s.lockWrites()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		added = 0
		for _, f := range found {
			n, err := execCount(ctx, tx, s.d.Rebind(`INSERT INTO found_puzzles (guild_id, puzzle_id, line, match_id, player1_id, player2_id, found_at)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, puzzle_id) DO NOTHING`),
				f.GuildID, f.ID, f.Puzzle, match, f.Players[0], f.Players[1], now)
			if err != nil {
				return fmt.Errorf("puzzle %s: %w", f.ID, err)
			}
			added += n
		}
		_, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_scans SET done = 1, found = found + ? WHERE match_id = ?`), added, match)
		return err
	})
	done()
	if err != nil {
		return 0, fmt.Errorf("finish the puzzle scan of match %d: %w", match, err)
	}
	return added, nil
}

// FoundPuzzles implements sessions.PuzzleStore: the server's range of
// found_puzzles' primary key.
func (s *Store) FoundPuzzles(ctx context.Context, guildID string) ([]sessions.FoundPuzzle, error) {
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(`SELECT guild_id, puzzle_id, line, match_id, player1_id, player2_id, found_at
		FROM found_puzzles WHERE guild_id = ? ORDER BY found_at, puzzle_id`), guildID)
	if err != nil {
		return nil, fmt.Errorf("found puzzles of guild %s: %w", guildID, err)
	}
	defer rows.Close()
	list := []sessions.FoundPuzzle{}
	for rows.Next() {
		var (
			f  sessions.FoundPuzzle
			at string
		)
		if err := rows.Scan(&f.GuildID, &f.ID, &f.Puzzle, &f.Match, &f.Players[0], &f.Players[1], &at); err != nil {
			return nil, fmt.Errorf("found puzzles of guild %s: %w", guildID, err)
		}
		if f.FoundAt, err = time.Parse(TimeFormat, at); err != nil {
			return nil, fmt.Errorf("found puzzle %s: found_at: %w: %w", f.ID, sessions.ErrCorrupt, err)
		}
		list = append(list, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("found puzzles of guild %s: %w", guildID, err)
	}
	return list, nil
}

// PuzzleRatings implements sessions.PuzzleStore: every row of
// puzzle_ratings (one per puzzle ever rated: a few thousand).
func (s *Store) PuzzleRatings(ctx context.Context) (map[string]rating.Rating, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT puzzle_id, r, rd, sigma FROM puzzle_ratings`)
	if err != nil {
		return nil, fmt.Errorf("puzzle ratings: %w", err)
	}
	defer rows.Close()
	out := map[string]rating.Rating{}
	for rows.Next() {
		var (
			id string
			r  rating.Rating
		)
		if err := rows.Scan(&id, &r.R, &r.RD, &r.Sigma); err != nil {
			return nil, fmt.Errorf("puzzle ratings: %w", err)
		}
		out[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("puzzle ratings: %w", err)
	}
	return out, nil
}

// puzzlePlayerColumns are the columns of puzzle_players, as
// scanPuzzlePlayer reads them.
const puzzlePlayerColumns = `user_id, r, rd, sigma, rated, solved, streak, best_streak, best, last_rated`

// scanPuzzlePlayer reads a row of puzzlePlayerColumns.
func scanPuzzlePlayer(row interface{ Scan(...any) error }) (sessions.PuzzlePlayer, error) {
	var (
		p    sessions.PuzzlePlayer
		last string
	)
	if err := row.Scan(&p.UserID, &p.R, &p.RD, &p.Sigma, &p.Rated, &p.Solved, &p.Streak, &p.BestStreak, &p.Best, &last); err != nil {
		return p, err
	}
	t, err := parseOptionalTime(last)
	if err != nil {
		return p, fmt.Errorf("last_rated: %w: %w", sessions.ErrCorrupt, err)
	}
	p.LastRated = t
	return p, nil
}

// PuzzlePlayer implements sessions.PuzzleStore.
func (s *Store) PuzzlePlayer(ctx context.Context, userID string) (sessions.PuzzlePlayer, error) {
	p, err := scanPuzzlePlayer(s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT `+puzzlePlayerColumns+` FROM puzzle_players WHERE user_id = ?`), userID))
	if errors.Is(err, sql.ErrNoRows) {
		return sessions.PuzzlePlayer{UserID: userID, Rating: rating.New()}, nil
	}
	if err != nil {
		return sessions.PuzzlePlayer{}, fmt.Errorf("puzzle record of %s: %w", userID, err)
	}
	return p, nil
}

// PuzzleLeaderboard implements sessions.PuzzleStore: the members who
// played in the server (puzzle_attempts_by_guild), their records by the
// primary key.
func (s *Store) PuzzleLeaderboard(ctx context.Context, guildID string, limit int) ([]sessions.PuzzlePlayer, error) {
	if limit < 1 || limit > 100 {
		return nil, fmt.Errorf("puzzle leaderboard of guild %s: limit %d out of range 1..100", guildID, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(`SELECT `+puzzlePlayerColumns+` FROM puzzle_players
		WHERE user_id IN (SELECT DISTINCT user_id FROM puzzle_attempts WHERE guild_id = ?) AND rated >= ?
		ORDER BY r DESC, rated DESC, user_id LIMIT ?`), guildID, sessions.MinPuzzleAttempts, limit)
	if err != nil {
		return nil, fmt.Errorf("puzzle leaderboard of guild %s: %w", guildID, err)
	}
	defer rows.Close()
	list := []sessions.PuzzlePlayer{}
	for rows.Next() {
		p, err := scanPuzzlePlayer(rows)
		if err != nil {
			return nil, fmt.Errorf("puzzle leaderboard of guild %s: %w", guildID, err)
		}
		list = append(list, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("puzzle leaderboard of guild %s: %w", guildID, err)
	}
	return list, nil
}

// SeenPuzzles implements sessions.PuzzleStore: a member's first attempts
// (every puzzle they started has one), through puzzle_attempts_first,
// whose condition the query repeats.
func (s *Store) SeenPuzzles(ctx context.Context, userID string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(`SELECT puzzle_id FROM puzzle_attempts WHERE user_id = ? AND first = 1`), userID)
	if err != nil {
		return nil, fmt.Errorf("puzzles seen by %s: %w", userID, err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("puzzles seen by %s: %w", userID, err)
		}
		seen[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("puzzles seen by %s: %w", userID, err)
	}
	return seen, nil
}

// attemptColumns are the columns of puzzle_attempts, as scanAttempt reads
// them.
const attemptColumns = `id, revision, user_id, guild_id, puzzle_id, line, puzzle_r, puzzle_rd, puzzle_sigma, daily, moves,
	hinted, result, first, change, started_at, finished_at`

// scanAttempt reads a row of attemptColumns.
func scanAttempt(row interface{ Scan(...any) error }) (*sessions.Attempt, error) {
	var (
		a                      sessions.Attempt
		hinted, first          int
		result, change, st, fi string
	)
	if err := row.Scan(&a.ID, &a.Revision, &a.UserID, &a.GuildID, &a.PuzzleID, &a.Puzzle,
		&a.PuzzleRating.R, &a.PuzzleRating.RD, &a.PuzzleRating.Sigma, &a.Daily, &a.Moves,
		&hinted, &result, &first, &change, &st, &fi); err != nil {
		return nil, err
	}
	a.Hinted, a.First, a.Result = hinted == 1, first == 1, sessions.AttemptResult(result)
	corrupt := func(what string, err error) error {
		return fmt.Errorf("attempt %d: %s: %w: %w", a.ID, what, sessions.ErrCorrupt, err)
	}
	var err error
	if a.StartedAt, err = time.Parse(TimeFormat, st); err != nil {
		return nil, corrupt("started_at", err)
	}
	if a.FinishedAt, err = parseOptionalTime(fi); err != nil {
		return nil, corrupt("finished_at", err)
	}
	if change != "" {
		a.Change = &sessions.PuzzleRatingChange{}
		if err := json.Unmarshal([]byte(change), a.Change); err != nil {
			return nil, corrupt("change", err)
		}
	}
	return &a, nil
}

// insertAttemptSQL inserts an attempt; %d is its first flag. As the first
// attempt (1) it does nothing when the member has a first attempt at the
// puzzle already (the partial unique index puzzle_attempts_first, named
// by its columns and condition), and returns no row.
const insertAttemptSQL = `INSERT INTO puzzle_attempts
	(user_id, guild_id, puzzle_id, line, puzzle_r, puzzle_rd, puzzle_sigma, daily, moves, first, started_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', %d, ?)`

// StartAttempt implements sessions.PuzzleStore: an insert as the first
// attempt, and when the unique index refuses it, one as a later attempt,
// in one transaction.
func (s *Store) StartAttempt(ctx context.Context, a *sessions.Attempt) (*sessions.Attempt, error) {
	if a.UserID == "" || a.PuzzleID == "" || a.Puzzle == "" {
		return nil, fmt.Errorf("start an attempt: empty member, puzzle ID or puzzle: %w", sessions.ErrInvalidSession)
	}
	out := *a
	out.Moves, out.Hinted, out.Result, out.Revision, out.Change, out.Streak = "", false, sessions.AttemptOpen, 0, nil, 0
	out.StartedAt, out.FinishedAt = s.clock(), time.Time{}
	args := []any{a.UserID, a.GuildID, a.PuzzleID, a.Puzzle, a.PuzzleRating.R, a.PuzzleRating.RD, a.PuzzleRating.Sigma, a.Daily,
		formatTime(out.StartedAt)}
	done := s.lockWrites()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, s.d.Rebind(fmt.Sprintf(insertAttemptSQL, 1)+
			` ON CONFLICT (user_id, puzzle_id) WHERE first = 1 DO NOTHING RETURNING id`), args...).Scan(&out.ID)
		out.First = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.QueryRowContext(ctx, s.d.Rebind(fmt.Sprintf(insertAttemptSQL, 0)+` RETURNING id`), args...).Scan(&out.ID)
		}
		return err
	})
	done()
	if err != nil {
		return nil, fmt.Errorf("start an attempt of %s at puzzle %s: %w", a.UserID, a.PuzzleID, err)
	}
	return &out, nil
}

// Attempt implements sessions.PuzzleStore.
func (s *Store) Attempt(ctx context.Context, id int64) (*sessions.Attempt, error) {
	a, err := scanAttempt(s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT `+attemptColumns+` FROM puzzle_attempts WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("attempt %d: %w", id, sessions.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("attempt %d: %w", id, err)
	}
	return a, nil
}

// UpdateAttempt implements sessions.PuzzleStore; see its contract for how
// it retries and what a finish writes.
func (s *Store) UpdateAttempt(ctx context.Context, id int64, rate sessions.PuzzleRater, fn func(*sessions.Attempt) error) (*sessions.Attempt, error) {
	for try := 0; try < sessions.MaxAttempts; try++ {
		old, err := s.Attempt(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("update: %w", err)
		}
		a := *old
		if old.Change != nil {
			c := *old.Change
			a.Change = &c
		}
		if err := fn(&a); err != nil {
			return nil, err
		}
		if err := checkAttemptChange(old, &a); err != nil {
			return nil, fmt.Errorf("update attempt %d: %w", id, err)
		}
		finishing := old.Result == sessions.AttemptOpen && a.Result != sessions.AttemptOpen
		if finishing && rate == nil {
			return nil, fmt.Errorf("update attempt %d: finished without a rater: %w", id, sessions.ErrInvalidSession)
		}
		now := s.clock()
		if finishing {
			a.FinishedAt = now
		}
		done := s.lockWrites()
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			a.Change, a.Streak = old.Change, 0
			if err := swapped(tx.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_attempts SET moves = ?, hinted = ?, result = ?, finished_at = ?,
				revision = revision + 1 WHERE id = ? AND revision = ?`),
				a.Moves, boolInt(a.Hinted), string(a.Result), formatOptionalTime(a.FinishedAt), id, old.Revision)); err != nil {
				return err
			}
			if finishing {
				return s.finishAttempt(ctx, tx, &a, rate, now)
			}
			return nil
		})
		done()
		switch {
		case err == nil:
			a.Revision = old.Revision + 1
			return &a, nil
		case !errors.Is(err, errLost):
			return nil, fmt.Errorf("update attempt %d: %w", id, err)
		}
		backoff(ctx, try)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("update attempt %d: %w", id, err)
		}
	}
	return nil, fmt.Errorf("update attempt %d: %d tries lost to other writers: %w", id, sessions.MaxAttempts, sessions.ErrConflict)
}

// checkAttemptChange refuses a change of anything but Moves, Hinted and
// Result, a result that is not one of the three, and a change of a
// finished attempt.
func checkAttemptChange(old, a *sessions.Attempt) error {
	switch {
	case a.ID != old.ID || a.UserID != old.UserID || a.GuildID != old.GuildID || a.PuzzleID != old.PuzzleID ||
		a.Puzzle != old.Puzzle || a.PuzzleRating != old.PuzzleRating || a.Daily != old.Daily || a.First != old.First ||
		a.Revision != old.Revision || !a.StartedAt.Equal(old.StartedAt) || !a.FinishedAt.Equal(old.FinishedAt):
		return fmt.Errorf("only the moves, the hint and the result may change: %w", sessions.ErrInvalidSession)
	case a.Result != sessions.AttemptOpen && a.Result != sessions.AttemptSolved && a.Result != sessions.AttemptFailed:
		return fmt.Errorf("result %q: %w", a.Result, sessions.ErrInvalidSession)
	case old.Result != sessions.AttemptOpen && (a.Result != old.Result || a.Moves != old.Moves || a.Hinted != old.Hinted):
		return fmt.Errorf("the attempt is finished: %w", sessions.ErrInvalidSession)
	}
	return nil
}

// lockPuzzlePlayerSQL reads a member's puzzle record for the transaction
// that finishes their attempt, inserting it (rating.New(), no attempt)
// for a member without one, and holds the row until the transaction ends
// (an upsert that changes nothing of an existing row but locks it), as
// lockRatingSQL does for a match: in PostgreSQL two attempts of one
// member finishing at once, in two processes, take turns, and the second
// reads what the first wrote. Its arguments: the member, R, RD and σ.
const lockPuzzlePlayerSQL = `INSERT INTO puzzle_players (user_id, r, rd, sigma) VALUES (?, ?, ?, ?)
	ON CONFLICT (user_id) DO UPDATE SET last_rated = puzzle_players.last_rated
	RETURNING ` + puzzlePlayerColumns

// lockPuzzleRatingSQL is lockPuzzlePlayerSQL for a puzzle's rating. Its
// arguments: the puzzle, R, RD and σ of the rating it starts from.
const lockPuzzleRatingSQL = `INSERT INTO puzzle_ratings (puzzle_id, r, rd, sigma) VALUES (?, ?, ?, ?)
	ON CONFLICT (puzzle_id) DO UPDATE SET attempts = puzzle_ratings.attempts
	RETURNING r, rd, sigma, attempts, solved`

// finishAttempt writes what the finish of a does, in tx, at now: the
// member's streak, the ratings of a first attempt (a.Change), and a
// daily post's count of solvers. The rows are locked member first, then
// puzzle, then post, in every transaction, so that none waits on another
// in a circle.
func (s *Store) finishAttempt(ctx context.Context, tx *sql.Tx, a *sessions.Attempt, rate sessions.PuzzleRater, now time.Time) error {
	fresh := rating.New()
	p, err := scanPuzzlePlayer(tx.QueryRowContext(ctx, s.d.Rebind(lockPuzzlePlayerSQL), a.UserID, fresh.R, fresh.RD, fresh.Sigma))
	if err != nil {
		return fmt.Errorf("puzzle record of %s: %w", a.UserID, err)
	}
	clean := a.Result == sessions.AttemptSolved && !a.Hinted
	if clean {
		p.Streak++
		p.BestStreak = max(p.BestStreak, p.Streak)
	} else {
		p.Streak = 0
	}
	a.Streak = p.Streak
	if a.First {
		var (
			c                sessions.PuzzleRatingChange
			attempts, solved int
		)
		if err := tx.QueryRowContext(ctx, s.d.Rebind(lockPuzzleRatingSQL), a.PuzzleID,
			a.PuzzleRating.R, a.PuzzleRating.RD, a.PuzzleRating.Sigma).Scan(
			&c.PuzzleBefore.R, &c.PuzzleBefore.RD, &c.PuzzleBefore.Sigma, &attempts, &solved); err != nil {
			return fmt.Errorf("rating of puzzle %s: %w", a.PuzzleID, err)
		}
		c.MemberBefore = p.Rating
		if p.Rated > 0 && !p.LastRated.IsZero() {
			c.MemberBefore = rating.Idle(p.Rating, now.Sub(p.LastRated).Hours()/rating.PeriodLength.Hours())
		}
		c.MemberAfter, c.PuzzleAfter = rate(c.MemberBefore, c.PuzzleBefore, clean)
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_ratings SET r = ?, rd = ?, sigma = ?, attempts = ?, solved = ?
			WHERE puzzle_id = ?`), c.PuzzleAfter.R, c.PuzzleAfter.RD, c.PuzzleAfter.Sigma, attempts+1, solved+boolInt(clean), a.PuzzleID); err != nil {
			return fmt.Errorf("rating of puzzle %s: %w", a.PuzzleID, err)
		}
		if p.Rated == 0 {
			p.Best = c.MemberAfter.R
		}
		p.Rating, p.Rated, p.Solved, p.Best, p.LastRated = c.MemberAfter, p.Rated+1, p.Solved+boolInt(clean), max(p.Best, c.MemberAfter.R), now
		text, err := json.Marshal(&c)
		if err != nil {
			return fmt.Errorf("encode the rating change: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_attempts SET change = ? WHERE id = ?`), string(text), a.ID); err != nil {
			return fmt.Errorf("rating change of attempt %d: %w", a.ID, err)
		}
		a.Change = &c
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_players SET r = ?, rd = ?, sigma = ?, rated = ?, solved = ?,
		streak = ?, best_streak = ?, best = ?, last_rated = ? WHERE user_id = ?`),
		p.R, p.RD, p.Sigma, p.Rated, p.Solved, p.Streak, p.BestStreak, p.Best, formatOptionalTime(p.LastRated), a.UserID); err != nil {
		return fmt.Errorf("puzzle record of %s: %w", a.UserID, err)
	}
	if a.Daily == "" || a.Result != sessions.AttemptSolved || a.GuildID == "" {
		return nil
	}
	// The member's solves are serialised by the lock on their record
	// above, so this count of their earlier solves of the post is exact.
	var before int
	if err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT count(*) FROM puzzle_attempts
		WHERE user_id = ? AND puzzle_id = ? AND result = 'solved' AND guild_id = ? AND daily = ? AND id <> ?`),
		a.UserID, a.PuzzleID, a.GuildID, a.Daily, a.ID).Scan(&before); err != nil {
		return fmt.Errorf("earlier solves of the daily puzzle: %w", err)
	}
	if before > 0 {
		return nil
	}
	due := formatTime(now.Add(sessions.DailyEditEvery))
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_daily_posts SET solvers = solvers + 1,
		edit_due = CASE WHEN edit_due = '' THEN ? ELSE edit_due END, revision = revision + 1, updated_at = ?
		WHERE guild_id = ? AND day = ? AND puzzle_id = ?`), due, formatTime(now), a.GuildID, a.Daily, a.PuzzleID); err != nil {
		return fmt.Errorf("solvers of the daily post of %s: %w", a.Daily, err)
	}
	return nil
}

// dailyColumns are the columns of puzzle_daily, as scanDaily reads them.
const dailyColumns = `guild_id, channel_id, minute, zone, locale, next_at, last_error, last_error_at, revision, updated_at`

// scanDaily reads a row of dailyColumns.
func scanDaily(row interface{ Scan(...any) error }) (sessions.DailyPuzzle, error) {
	var (
		d                 sessions.DailyPuzzle
		next, errAt, upAt string
	)
	if err := row.Scan(&d.GuildID, &d.ChannelID, &d.Minute, &d.Zone, &d.Locale, &next, &d.LastError, &errAt, &d.Revision, &upAt); err != nil {
		return d, err
	}
	var err error
	for _, f := range []struct {
		dst  *time.Time
		text string
		name string
	}{{&d.Next, next, "next_at"}, {&d.LastErrorAt, errAt, "last_error_at"}, {&d.UpdatedAt, upAt, "updated_at"}} {
		if *f.dst, err = parseOptionalTime(f.text); err != nil {
			return d, fmt.Errorf("daily puzzle of guild %s: %s: %w: %w", d.GuildID, f.name, sessions.ErrCorrupt, err)
		}
	}
	return d, nil
}

// DailyPuzzle implements sessions.PuzzleStore.
func (s *Store) DailyPuzzle(ctx context.Context, guildID string) (sessions.DailyPuzzle, error) {
	d, err := scanDaily(s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT `+dailyColumns+` FROM puzzle_daily WHERE guild_id = ?`), guildID))
	if errors.Is(err, sql.ErrNoRows) {
		return sessions.DailyPuzzle{GuildID: guildID}, nil
	}
	if err != nil {
		return sessions.DailyPuzzle{}, fmt.Errorf("daily puzzle of guild %s: %w", guildID, err)
	}
	return d, nil
}

// UpdateDailyPuzzle implements sessions.PuzzleStore: a compare-and-swap
// on the row's revision, or an insert that does nothing when another
// process inserted first.
func (s *Store) UpdateDailyPuzzle(ctx context.Context, guildID string, fn func(*sessions.DailyPuzzle) error) (sessions.DailyPuzzle, error) {
	if guildID == "" {
		return sessions.DailyPuzzle{}, errors.New("update the daily puzzle: empty guild id")
	}
	for try := 0; try < sessions.MaxAttempts; try++ {
		old, err := scanDaily(s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT `+dailyColumns+` FROM puzzle_daily WHERE guild_id = ?`), guildID))
		found := err == nil
		if errors.Is(err, sql.ErrNoRows) {
			old, err = sessions.DailyPuzzle{GuildID: guildID}, nil
		}
		if err != nil {
			return sessions.DailyPuzzle{}, fmt.Errorf("update the daily puzzle of guild %s: %w", guildID, err)
		}
		d := old
		if err := fn(&d); err != nil {
			return sessions.DailyPuzzle{}, err
		}
		if d.Minute < 0 || d.Minute > 1439 {
			return sessions.DailyPuzzle{}, fmt.Errorf("update the daily puzzle of guild %s: minute %d out of range 0..1439: %w", guildID, d.Minute, sessions.ErrInvalidSession)
		}
		d.GuildID, d.UpdatedAt = guildID, s.clock()
		if d.ChannelID == "" {
			d.Next = time.Time{}
		}
		args := []any{d.ChannelID, d.Minute, d.Zone, d.Locale, formatOptionalTime(d.Next), d.LastError, formatOptionalTime(d.LastErrorAt), formatTime(d.UpdatedAt)}
		done := s.lockWrites()
		if found {
			err = swapped(s.db.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_daily SET channel_id = ?, minute = ?, zone = ?, locale = ?, next_at = ?,
				last_error = ?, last_error_at = ?, updated_at = ?, revision = revision + 1 WHERE guild_id = ? AND revision = ?`),
				append(args, guildID, old.Revision)...))
			d.Revision = old.Revision + 1
		} else {
			err = swapped(s.db.ExecContext(ctx, s.d.Rebind(`INSERT INTO puzzle_daily (channel_id, minute, zone, locale, next_at, last_error, last_error_at,
				updated_at, guild_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO NOTHING`), append(args, guildID)...))
			d.Revision = 0
		}
		done()
		switch {
		case err == nil:
			return d, nil
		case !errors.Is(err, errLost):
			return sessions.DailyPuzzle{}, fmt.Errorf("update the daily puzzle of guild %s: %w", guildID, err)
		}
		backoff(ctx, try)
		if err := ctx.Err(); err != nil {
			return sessions.DailyPuzzle{}, fmt.Errorf("update the daily puzzle of guild %s: %w", guildID, err)
		}
	}
	return sessions.DailyPuzzle{}, fmt.Errorf("update the daily puzzle of guild %s: %d tries lost to other writers: %w", guildID, sessions.MaxAttempts, sessions.ErrConflict)
}

// DueDailyPuzzles implements sessions.PuzzleStore, through
// puzzle_daily_due, whose condition the query repeats.
func (s *Store) DueDailyPuzzles(ctx context.Context, now time.Time, limit int) ([]sessions.DailyPuzzle, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(`SELECT `+dailyColumns+` FROM puzzle_daily
		WHERE next_at <> '' AND next_at <= ? ORDER BY next_at, guild_id LIMIT `+limitClause(s.d, limit)), formatTime(now))
	if err != nil {
		return nil, fmt.Errorf("due daily puzzles: %w", err)
	}
	defer rows.Close()
	list := []sessions.DailyPuzzle{}
	for rows.Next() {
		d, err := scanDaily(rows)
		if err != nil {
			return nil, fmt.Errorf("due daily puzzles: %w", err)
		}
		list = append(list, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("due daily puzzles: %w", err)
	}
	return list, nil
}

// limitClause writes limit as a LIMIT's value, with no limit for -1
// (SQLite reads LIMIT -1 as none, PostgreSQL LIMIT ALL).
func limitClause(d Dialect, limit int) string {
	if limit < 0 {
		if d.Numbered {
			return "ALL"
		}
		return "-1"
	}
	return fmt.Sprint(limit)
}

// PuzzleOfDay implements sessions.PuzzleStore: an insert that does
// nothing when another process recorded the day first, then a read.
func (s *Store) PuzzleOfDay(ctx context.Context, day, id, line string) (string, string, error) {
	done := s.lockWrites()
	_, err := s.db.ExecContext(ctx, s.d.Rebind(`INSERT INTO puzzle_days (day, puzzle_id, line) VALUES (?, ?, ?) ON CONFLICT (day) DO NOTHING`),
		day, id, line)
	done()
	if err != nil {
		return "", "", fmt.Errorf("puzzle of %s: %w", day, err)
	}
	var gotID, gotLine string
	if err := s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT puzzle_id, line FROM puzzle_days WHERE day = ?`), day).Scan(&gotID, &gotLine); err != nil {
		return "", "", fmt.Errorf("puzzle of %s: %w", day, err)
	}
	return gotID, gotLine, nil
}

// postColumns are the columns of puzzle_daily_posts, as scanPost reads
// them.
const postColumns = `guild_id, day, channel_id, puzzle_id, line, state, message_id, lease_until, solvers, shown, edit_due,
	error, revision, created_at, updated_at`

// scanPost reads a row of postColumns.
func scanPost(row interface{ Scan(...any) error }) (sessions.DailyPost, error) {
	var (
		p                          sessions.DailyPost
		state, lease, edit, cr, up string
	)
	if err := row.Scan(&p.GuildID, &p.Day, &p.ChannelID, &p.PuzzleID, &p.Puzzle, &state, &p.MessageID, &lease,
		&p.Solvers, &p.Shown, &edit, &p.Error, &p.Revision, &cr, &up); err != nil {
		return p, err
	}
	p.State = sessions.DailyPostState(state)
	var err error
	for _, f := range []struct {
		dst  *time.Time
		text string
		name string
	}{{&p.LeaseUntil, lease, "lease_until"}, {&p.EditDue, edit, "edit_due"}, {&p.CreatedAt, cr, "created_at"}, {&p.UpdatedAt, up, "updated_at"}} {
		if *f.dst, err = parseOptionalTime(f.text); err != nil {
			return p, fmt.Errorf("daily post of %s in guild %s: %s: %w: %w", p.Day, p.GuildID, f.name, sessions.ErrCorrupt, err)
		}
	}
	return p, nil
}

// loadPost reads the post of day in guildID.
func (s *Store) loadPost(ctx context.Context, guildID, day string) (sessions.DailyPost, error) {
	p, err := scanPost(s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT `+postColumns+` FROM puzzle_daily_posts WHERE guild_id = ? AND day = ?`), guildID, day))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("daily post of %s in guild %s: %w", day, guildID, sessions.ErrNotFound)
	}
	return p, err
}

// ClaimDailyPost implements sessions.PuzzleStore; see its contract.
func (s *Store) ClaimDailyPost(ctx context.Context, p sessions.DailyPost, lease time.Duration) (sessions.DailyPost, bool, error) {
	if p.GuildID == "" || p.Day == "" {
		return sessions.DailyPost{}, false, errors.New("claim a daily post: empty guild or day")
	}
	for try := 0; try < sessions.MaxAttempts; try++ {
		now := s.clock()
		until := formatTime(now.Add(lease))
		done := s.lockWrites()
		err := swapped(s.db.ExecContext(ctx, s.d.Rebind(`INSERT INTO puzzle_daily_posts
			(guild_id, day, channel_id, puzzle_id, line, state, lease_until, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, 'claimed', ?, ?, ?) ON CONFLICT (guild_id, day) DO NOTHING`),
			p.GuildID, p.Day, p.ChannelID, p.PuzzleID, p.Puzzle, until, formatTime(now), formatTime(now)))
		done()
		if err == nil {
			got, err := s.loadPost(ctx, p.GuildID, p.Day)
			return got, err == nil, err
		}
		if !errors.Is(err, errLost) {
			return sessions.DailyPost{}, false, fmt.Errorf("claim the daily post of %s in guild %s: %w", p.Day, p.GuildID, err)
		}
		cur, err := s.loadPost(ctx, p.GuildID, p.Day)
		if err != nil {
			return sessions.DailyPost{}, false, fmt.Errorf("claim: %w", err)
		}
		if cur.State != sessions.DailyClaimed || cur.LeaseUntil.After(now) {
			return cur, false, nil
		}
		done = s.lockWrites()
		err = swapped(s.db.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_daily_posts SET lease_until = ?, revision = revision + 1, updated_at = ?
			WHERE guild_id = ? AND day = ? AND state = 'claimed' AND revision = ?`), until, formatTime(now), p.GuildID, p.Day, cur.Revision))
		done()
		switch {
		case err == nil:
			cur.LeaseUntil, cur.Revision, cur.UpdatedAt, cur.Retaken = now.Add(lease), cur.Revision+1, now, true
			return cur, true, nil
		case !errors.Is(err, errLost):
			return sessions.DailyPost{}, false, fmt.Errorf("retake the daily post of %s in guild %s: %w", p.Day, p.GuildID, err)
		}
		backoff(ctx, try)
	}
	return sessions.DailyPost{}, false, fmt.Errorf("claim the daily post of %s in guild %s: %d tries lost to other writers: %w", p.Day, p.GuildID, sessions.MaxAttempts, sessions.ErrConflict)
}

// UpdateDailyPost implements sessions.PuzzleStore.
func (s *Store) UpdateDailyPost(ctx context.Context, guildID, day string, fn func(*sessions.DailyPost) error) (sessions.DailyPost, error) {
	for try := 0; try < sessions.MaxAttempts; try++ {
		old, err := s.loadPost(ctx, guildID, day)
		if err != nil {
			return sessions.DailyPost{}, fmt.Errorf("update: %w", err)
		}
		p := old
		if err := fn(&p); err != nil {
			return sessions.DailyPost{}, err
		}
		switch p.State {
		case sessions.DailyClaimed, sessions.DailyPosted, sessions.DailyFailed:
		default:
			return sessions.DailyPost{}, fmt.Errorf("update the daily post of %s in guild %s: state %q: %w", day, guildID, p.State, sessions.ErrInvalidSession)
		}
		now := s.clock()
		done := s.lockWrites()
		err = swapped(s.db.ExecContext(ctx, s.d.Rebind(`UPDATE puzzle_daily_posts SET state = ?, message_id = ?, lease_until = ?,
			shown = ?, edit_due = ?, error = ?, revision = revision + 1, updated_at = ? WHERE guild_id = ? AND day = ? AND revision = ?`),
			string(p.State), p.MessageID, formatOptionalTime(p.LeaseUntil), p.Shown, formatOptionalTime(p.EditDue), p.Error,
			formatTime(now), guildID, day, old.Revision))
		done()
		switch {
		case err == nil:
			// Everything but what the update writes stays as it was read.
			out := old
			out.State, out.MessageID, out.LeaseUntil, out.Shown, out.EditDue, out.Error = p.State, p.MessageID, p.LeaseUntil, p.Shown, p.EditDue, p.Error
			out.Revision, out.UpdatedAt = old.Revision+1, now
			return out, nil
		case !errors.Is(err, errLost):
			return sessions.DailyPost{}, fmt.Errorf("update the daily post of %s in guild %s: %w", day, guildID, err)
		}
		backoff(ctx, try)
		if err := ctx.Err(); err != nil {
			return sessions.DailyPost{}, fmt.Errorf("update the daily post of %s in guild %s: %w", day, guildID, err)
		}
	}
	return sessions.DailyPost{}, fmt.Errorf("update the daily post of %s in guild %s: %d tries lost to other writers: %w", day, guildID, sessions.MaxAttempts, sessions.ErrConflict)
}

// DailyPosts implements sessions.PuzzleStore: the server's range of the
// primary key, backwards.
func (s *Store) DailyPosts(ctx context.Context, guildID string, limit int) ([]sessions.DailyPost, error) {
	if limit <= 0 {
		limit = -1
	}
	return s.queryPosts(ctx, `SELECT `+postColumns+` FROM puzzle_daily_posts WHERE guild_id = ? ORDER BY day DESC LIMIT `+limitClause(s.d, limit), guildID)
}

// DueDailyEdits implements sessions.PuzzleStore, through
// puzzle_daily_posts_edits, whose condition the query repeats.
func (s *Store) DueDailyEdits(ctx context.Context, now time.Time, limit int) ([]sessions.DailyPost, error) {
	if limit <= 0 {
		limit = -1
	}
	return s.queryPosts(ctx, `SELECT `+postColumns+` FROM puzzle_daily_posts WHERE edit_due <> '' AND edit_due <= ? AND state = 'posted'
		ORDER BY edit_due, guild_id, day LIMIT `+limitClause(s.d, limit), formatTime(now))
}

// queryPosts runs query and reads its rows of postColumns.
func (s *Store) queryPosts(ctx context.Context, query string, args ...any) ([]sessions.DailyPost, error) {
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("daily posts: %w", err)
	}
	defer rows.Close()
	list := []sessions.DailyPost{}
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, fmt.Errorf("daily posts: %w", err)
		}
		list = append(list, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("daily posts: %w", err)
	}
	return list, nil
}

// forgetPuzzles removes, in tx, what names member userID among the
// puzzles' rows: their attempts, their puzzle record, and the puzzles
// found in their matches (which Forget removes too). The ratings of the
// puzzles they attempted stay: they name no one. It returns the counts.
func (s *Store) forgetPuzzles(ctx context.Context, tx *sql.Tx, userID string, n *sessions.ForgetCounts) error {
	var err error
	if n.PuzzleAttempts, err = execCount(ctx, tx, s.d.Rebind(`DELETE FROM puzzle_attempts WHERE user_id = ?`), userID); err != nil {
		return fmt.Errorf("puzzle attempts: %w", err)
	}
	if n.PuzzlePlayers, err = execCount(ctx, tx, s.d.Rebind(`DELETE FROM puzzle_players WHERE user_id = ?`), userID); err != nil {
		return fmt.Errorf("puzzle record: %w", err)
	}
	if n.FoundPuzzles, err = execCount(ctx, tx, s.d.Rebind(`DELETE FROM found_puzzles WHERE player1_id = ? OR player2_id = ?`), userID, userID); err != nil {
		return fmt.Errorf("found puzzles: %w", err)
	}
	return nil
}
