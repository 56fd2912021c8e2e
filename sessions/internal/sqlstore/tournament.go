package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

// The tournaments (sessions.TournamentStore): a row in tournaments, its
// entries, rounds and pairings in tables of their own (migration 7). Every
// write to a tournament moves its revision on: UpdateTournament's own
// compare-and-swap, and the two writes made in the transactions of a
// session's (linkGame when a game's session is created, recordGame when it
// ends). In each transaction the tournament's row is written first, then
// its pairings, so that two transactions that meet on one tournament in
// PostgreSQL take their row locks in the same order.

var _ sessions.TournamentStore = (*Store)(nil)

// tournamentKey is the key of tournament id in the Store's per-key locks
// (which channel IDs share: a channel ID is a number, this is not).
func tournamentKey(id int64) string { return "tournament:" + strconv.FormatInt(id, 10) }

// tournamentColumns are the columns of a tournament's row as read, in
// order.
const tournamentColumns = `id, revision, guild_id, channel_id, config, seed, status, settings, posts,
	started_at, due_at, created_by, ended_by, created_at, updated_at`

// insertTournamentSQL inserts a tournament's row. name and format repeat
// what config holds, for whoever reads the table.
const insertTournamentSQL = `INSERT INTO tournaments
	(guild_id, channel_id, name, format, config, seed, status, settings, posts, started_at, due_at,
	 created_by, ended_by, created_at, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

// updateTournamentSQL is UpdateTournament's compare-and-swap on the row's
// revision. Its arguments: status, settings, posts, started_at, due_at,
// ended_by, updated_at, then the id and the revision loaded.
const updateTournamentSQL = `UPDATE tournaments SET status = ?, settings = ?, posts = ?, started_at = ?, due_at = ?,
	ended_by = ?, updated_at = ?, revision = revision + 1 WHERE id = ? AND revision = ?`

// CreateTournament implements sessions.TournamentStore.
func (s *Store) CreateTournament(ctx context.Context, t *sessions.Tournament) (*sessions.Tournament, error) {
	if t == nil {
		return nil, fmt.Errorf("create tournament: nil: %w", sessions.ErrInvalidTournament)
	}
	c := t.Clone()
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("create tournament: %w", err)
	}
	now := s.clock()
	inUTC(c)
	c.CreatedAt, c.UpdatedAt, c.Revision = now, now, 0
	row, err := encodeTournament(c)
	if err != nil {
		return nil, fmt.Errorf("create tournament: %w", err)
	}
	done := s.lockWrites()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, s.d.Rebind(insertTournamentSQL), c.GuildID, c.ChannelID, c.State.Config.Name,
			string(c.State.Config.Format), row.config, c.State.Seed, string(c.Status), row.settings, row.posts,
			formatOptionalTime(c.State.Started), formatOptionalTime(c.Due), c.CreatedBy, c.EndedBy,
			formatTime(now), formatTime(now)).Scan(&c.ID); err != nil {
			return err
		}
		return s.writeChildren(ctx, tx, &sessions.Tournament{ID: c.ID}, c)
	})
	done()
	if err != nil {
		return nil, fmt.Errorf("create tournament in guild %s: %w", c.GuildID, err)
	}
	return c, nil
}

// inUTC converts the times of t to UTC, as they are stored and read back.
func inUTC(t *sessions.Tournament) {
	utc := func(x *time.Time) {
		if !x.IsZero() {
			*x = x.UTC()
		}
	}
	utc(&t.State.Started)
	utc(&t.Due)
	utc(&t.Settings.StartAt)
	utc(&t.Posts.Claimed)
	for i := range t.State.Rounds {
		utc(&t.State.Rounds[i].Started)
	}
	for _, games := range t.Games {
		for j := range games {
			utc(&games[j].Claimed)
		}
	}
}

// tournamentText is the JSON of a tournament's columns that hold JSON.
type tournamentText struct{ config, settings, posts string }

func encodeTournament(t *sessions.Tournament) (tournamentText, error) {
	var out tournamentText
	for _, f := range []struct {
		dst *string
		v   any
	}{{&out.config, t.State.Config}, {&out.settings, t.Settings}, {&out.posts, t.Posts}} {
		b, err := json.Marshal(f.v)
		if err != nil {
			return out, err
		}
		*f.dst = string(b)
	}
	return out, nil
}

// Tournament implements sessions.TournamentStore.
func (s *Store) Tournament(ctx context.Context, id int64) (*sessions.Tournament, error) {
	t, err := s.loadTournament(ctx, s.db, id)
	if err != nil {
		return nil, fmt.Errorf("tournament %d: %w", id, err)
	}
	return t, nil
}

// querier is what a load reads through: the database, or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// loadTournament reads tournament id: its row, its entries, rounds and
// pairings, then its revision again. The reads are statements of their
// own, outside a transaction (on SQLite a transaction would take the write
// lock), and every write to a tournament moves its revision on in the
// transaction that changes its rows: when the revision read last is the
// one read first, no write came between, and the rows hold together; else
// the load starts again (a seqlock's read), at most MaxAttempts times.
func (s *Store) loadTournament(ctx context.Context, q querier, id int64) (*sessions.Tournament, error) {
	for range sessions.MaxAttempts {
		t, err := scanTournament(q.QueryRowContext(ctx, s.d.Rebind(`SELECT `+tournamentColumns+` FROM tournaments WHERE id = ?`), id))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, sessions.ErrTournamentNotFound
		}
		if err != nil {
			return nil, err
		}
		torn, err := s.loadChildren(ctx, q, t)
		if err != nil {
			return nil, err
		}
		var revision int64
		if err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT revision FROM tournaments WHERE id = ?`), id).Scan(&revision); err != nil {
			return nil, err
		}
		if revision != t.Revision {
			continue // written meanwhile: read it again
		}
		if torn != nil {
			return nil, torn
		}
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("tournament %d: state: %w: %w", t.ID, sessions.ErrCorrupt, err)
		}
		return t, nil
	}
	return nil, fmt.Errorf("tournament %d: written during %d reads in a row: %w", id, sessions.MaxAttempts, sessions.ErrConflict)
}

// scanTournament reads one row of tournamentColumns, without its children.
func scanTournament(row interface{ Scan(...any) error }) (*sessions.Tournament, error) {
	t := &sessions.Tournament{Names: map[string]string{}}
	var config, status, settings, posts, started, due, created, updated string
	if err := row.Scan(&t.ID, &t.Revision, &t.GuildID, &t.ChannelID, &config, &t.State.Seed, &status, &settings, &posts,
		&started, &due, &t.CreatedBy, &t.EndedBy, &created, &updated); err != nil {
		return nil, err
	}
	corrupt := func(what string, err error) error {
		return fmt.Errorf("tournament %d: %s: %w: %w", t.ID, what, sessions.ErrCorrupt, err)
	}
	t.Status = sessions.TournamentStatus(status)
	if !t.Status.Valid() {
		return nil, corrupt("status", fmt.Errorf("unknown status %q", status))
	}
	for _, f := range []struct {
		what string
		text string
		dst  any
	}{{"config", config, &t.State.Config}, {"settings", settings, &t.Settings}, {"posts", posts, &t.Posts}} {
		if err := json.Unmarshal([]byte(f.text), f.dst); err != nil {
			return nil, corrupt(f.what, err)
		}
	}
	var err error
	for _, f := range []struct {
		what string
		text string
		dst  *time.Time
	}{{"started_at", started, &t.State.Started}, {"due_at", due, &t.Due}, {"created_at", created, &t.CreatedAt}, {"updated_at", updated, &t.UpdatedAt}} {
		if *f.dst, err = parseOptionalTime(f.text); err != nil {
			return nil, corrupt(f.what, err)
		}
	}
	return t, nil
}

// loadChildren reads the entries, rounds and pairings of t. It returns
// the database's error, or in torn an error wrapping ErrCorrupt for rows
// that do not fit together (which a write between its reads may also
// cause: its caller reads the revision again to tell).
func (s *Store) loadChildren(ctx context.Context, q querier, t *sessions.Tournament) (torn, err error) {
	corrupt := func(what string, err error) error {
		return fmt.Errorf("tournament %d: %s: %w: %w", t.ID, what, sessions.ErrCorrupt, err)
	}
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT user_id, name, rating, withdrawn FROM tournament_entries
		WHERE tournament_id = ? ORDER BY seq`), t.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var p tournament.Player
		var name string
		var withdrawn int64
		if err := rows.Scan(&p.ID, &name, &p.Rating, &withdrawn); err != nil {
			rows.Close()
			return nil, err
		}
		p.Withdrawn = withdrawn != 0
		t.State.Players = append(t.State.Players, p)
		t.Names[p.ID] = name
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	rows, err = q.QueryContext(ctx, s.d.Rebind(`SELECT number, started_at FROM tournament_rounds
		WHERE tournament_id = ? ORDER BY number`), t.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var r tournament.Round
		var started string
		if err := rows.Scan(&r.Number, &started); err != nil {
			rows.Close()
			return nil, err
		}
		if r.Started, err = parseOptionalTime(started); err != nil {
			rows.Close()
			return corrupt("round started_at", err), nil
		}
		t.State.Rounds = append(t.State.Rounds, r)
		t.Games = append(t.Games, nil)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	rows, err = q.QueryContext(ctx, s.d.Rebind(`SELECT round, board, opener_id, second_id, result, session_id, channel_id, claimed_until
		FROM tournament_pairings WHERE tournament_id = ? ORDER BY round, board`), t.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			round, board    int
			p               tournament.Pairing
			result, claimed string
			g               sessions.TournamentGame
		)
		if err := rows.Scan(&round, &board, &p.Opener, &p.Second, &result, &g.SessionID, &g.ChannelID, &claimed); err != nil {
			return nil, err
		}
		p.Result = tournament.Result(result)
		if g.Claimed, err = parseOptionalTime(claimed); err != nil {
			return corrupt("claimed_until", err), nil
		}
		if round < 1 || round > len(t.State.Rounds) || board != len(t.State.Rounds[round-1].Pairings)+1 {
			return corrupt("pairings", fmt.Errorf("round %d, board %d out of order", round, board)), nil
		}
		t.State.Rounds[round-1].Pairings = append(t.State.Rounds[round-1].Pairings, p)
		t.Games[round-1] = append(t.Games[round-1], g)
	}
	return nil, rows.Err()
}

// UpdateTournament implements sessions.TournamentStore; see its contract.
func (s *Store) UpdateTournament(ctx context.Context, id int64, fn func(*sessions.Tournament) error) (*sessions.Tournament, error) {
	unlock, err := s.locks.lock(ctx, tournamentKey(id))
	if err != nil {
		return nil, fmt.Errorf("update tournament %d: %w", id, err)
	}
	defer unlock()
	for try := 0; try < sessions.MaxAttempts; try++ {
		t, err := s.tryUpdateTournament(ctx, id, fn)
		if !errors.Is(err, errLost) {
			return t, err
		}
		backoff(ctx, try)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("update tournament %d: %w", id, err)
		}
	}
	return nil, fmt.Errorf("update tournament %d: %d tries lost to other writers: %w", id, sessions.MaxAttempts, sessions.ErrConflict)
}

// tryUpdateTournament is one load, fn and compare-and-swap; it returns
// errLost when another process wrote the tournament first.
func (s *Store) tryUpdateTournament(ctx context.Context, id int64, fn func(*sessions.Tournament) error) (*sessions.Tournament, error) {
	before, err := s.loadTournament(ctx, s.db, id)
	if err != nil {
		return nil, fmt.Errorf("update tournament %d: %w", id, err)
	}
	t := before.Clone()
	if err := fn(t); err != nil {
		return nil, err
	}
	if err := sessions.CheckTournamentChange(before, t); err != nil {
		return nil, fmt.Errorf("update tournament %d: %w", id, err)
	}
	inUTC(t)
	row, err := encodeTournament(t)
	if err != nil {
		return nil, fmt.Errorf("update tournament %d: %w", id, err)
	}
	now := s.clock()
	done := s.lockWrites()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := swapped(tx.ExecContext(ctx, s.d.Rebind(updateTournamentSQL), string(t.Status), row.settings, row.posts,
			formatOptionalTime(t.State.Started), formatOptionalTime(t.Due), t.EndedBy, formatTime(now), id, before.Revision)); err != nil {
			return err
		}
		return s.writeChildren(ctx, tx, before, t)
	})
	done()
	switch {
	case errors.Is(err, errLost):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("update tournament %d: %w", id, err)
	}
	t.Revision, t.UpdatedAt = before.Revision+1, now
	return t, nil
}

// writeChildren writes, in tx, what changed from before to after in the
// entries, rounds and pairings of a tournament: entries removed, added
// (numbered after the last one) or changed, rounds added with their
// pairings, and the results and games of the pairings that were there.
func (s *Store) writeChildren(ctx context.Context, tx *sql.Tx, before, after *sessions.Tournament) error {
	id := after.ID
	old := map[string]tournament.Player{}
	for _, p := range before.State.Players {
		old[p.ID] = p
	}
	kept := map[string]bool{}
	var seq int
	if len(before.State.Players) > 0 {
		if err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT COALESCE(MAX(seq), 0) FROM tournament_entries WHERE tournament_id = ?`), id).Scan(&seq); err != nil {
			return fmt.Errorf("entries: %w", err)
		}
	}
	for _, p := range after.State.Players {
		kept[p.ID] = true
		o, ok := old[p.ID]
		switch {
		case !ok:
			seq++
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO tournament_entries (tournament_id, seq, user_id, name, rating, withdrawn)
				VALUES (?, ?, ?, ?, ?, ?)`), id, seq, p.ID, after.Names[p.ID], p.Rating, boolInt(p.Withdrawn)); err != nil {
				return fmt.Errorf("entry of %s: %w", p.ID, err)
			}
		case o != p || before.Names[p.ID] != after.Names[p.ID]:
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournament_entries SET name = ?, rating = ?, withdrawn = ?
				WHERE tournament_id = ? AND user_id = ?`), after.Names[p.ID], p.Rating, boolInt(p.Withdrawn), id, p.ID); err != nil {
				return fmt.Errorf("entry of %s: %w", p.ID, err)
			}
		}
	}
	for _, p := range before.State.Players {
		if !kept[p.ID] {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM tournament_entries WHERE tournament_id = ? AND user_id = ?`), id, p.ID); err != nil {
				return fmt.Errorf("entry of %s: %w", p.ID, err)
			}
		}
	}
	for r, round := range after.State.Rounds {
		if r >= len(before.State.Rounds) {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO tournament_rounds (tournament_id, number, started_at) VALUES (?, ?, ?)`),
				id, round.Number, formatOptionalTime(round.Started)); err != nil {
				return fmt.Errorf("round %d: %w", round.Number, err)
			}
			for b, p := range round.Pairings {
				g := after.Games[r][b]
				if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO tournament_pairings
					(tournament_id, round, board, opener_id, second_id, result, session_id, channel_id, claimed_until)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), id, round.Number, b+1, p.Opener, p.Second, string(p.Result),
					g.SessionID, g.ChannelID, formatOptionalTime(g.Claimed)); err != nil {
					return fmt.Errorf("round %d, board %d: %w", round.Number, b+1, err)
				}
			}
			continue
		}
		for b, p := range round.Pairings {
			was, g := before.State.Rounds[r].Pairings[b], after.Games[r][b]
			if was.Result == p.Result && before.Games[r][b] == g {
				continue
			}
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournament_pairings SET result = ?, session_id = ?, channel_id = ?, claimed_until = ?
				WHERE tournament_id = ? AND round = ? AND board = ?`), string(p.Result), g.SessionID, g.ChannelID, formatOptionalTime(g.Claimed),
				id, round.Number, b+1); err != nil {
				return fmt.Errorf("round %d, board %d: %w", round.Number, b+1, err)
			}
		}
	}
	return nil
}

// Tournaments implements sessions.TournamentStore.
func (s *Store) Tournaments(ctx context.Context, guildID string, limit int) ([]*sessions.Tournament, error) {
	if limit < 1 || limit > 100 {
		return nil, fmt.Errorf("tournaments of guild %s: limit %d out of range 1..100", guildID, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(`SELECT id FROM tournaments
		WHERE guild_id = ? ORDER BY id DESC LIMIT ?`), guildID, limit)
	if err != nil {
		return nil, fmt.Errorf("tournaments of guild %s: %w", guildID, err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("tournaments of guild %s: %w", guildID, err)
		}
		ids = append(ids, id)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("tournaments of guild %s: %w", guildID, err)
	}
	list := make([]*sessions.Tournament, 0, len(ids))
	for _, id := range ids {
		// Each read whole, as Tournament reads it: its rows together.
		t, err := s.loadTournament(ctx, s.db, id)
		if err != nil {
			return nil, fmt.Errorf("tournaments of guild %s: %w", guildID, err)
		}
		list = append(list, t)
	}
	return list, nil
}

// DueTournaments implements sessions.TournamentStore, through the partial
// index tournaments_due (whose condition the query repeats).
func (s *Store) DueTournaments(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	if limit <= 0 {
		limit = noLimit
	}
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(`SELECT id FROM tournaments WHERE due_at <> '' AND due_at <= ?
		ORDER BY due_at, id LIMIT ?`), formatTime(now), limit)
	if err != nil {
		return nil, fmt.Errorf("due tournaments: %w", err)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("due tournaments: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("due tournaments: %w", err)
	}
	return ids, nil
}

// linkGame records sess, a tournament game's session just inserted in tx,
// on its pairing: its ID and channel, when the pairing has no session and
// no result and its tournament runs; otherwise it returns an error
// wrapping sessions.ErrGameTaken, and the caller's transaction is rolled
// back with nothing stored.
func (s *Store) linkGame(ctx context.Context, tx *sql.Tx, sess *sessions.Session, now time.Time) error {
	l := sess.Tournament
	err := swapped(tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournaments SET revision = revision + 1, updated_at = ?
		WHERE id = ? AND status = 'running'`), formatTime(now), l.ID))
	if err == nil {
		err = swapped(tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournament_pairings SET session_id = ?, channel_id = ?, claimed_until = ''
			WHERE tournament_id = ? AND round = ? AND board = ? AND session_id = 0 AND result = '' AND second_id <> ''`),
			sess.ID, sess.ChannelID, l.ID, l.Round, l.Board))
	}
	if errors.Is(err, errLost) {
		return fmt.Errorf("tournament %d, game %d.%d: %w", l.ID, l.Round, l.Board, sessions.ErrGameTaken)
	}
	return err
}

// recordGame records the result of sess, a tournament game's session that
// ended at now, on its pairing in tx (sessions.TournamentResult), unless
// the pairing has a result already (the first stands), and makes the
// tournament due at once.
func (s *Store) recordGame(ctx context.Context, tx *sql.Tx, sess *sessions.Session, now time.Time) error {
	r, ok := sessions.TournamentResult(sess)
	if !ok {
		return nil
	}
	return s.recordGameResult(ctx, tx, sess.Tournament, sess.ID, r, now)
}

// recordGameResult records r as the result of game l, played by session
// id, in tx, unless the pairing has a result already, and makes the
// tournament due at once.
func (s *Store) recordGameResult(ctx context.Context, tx *sql.Tx, l sessions.TournamentLink, id int64, r tournament.Result, now time.Time) error {
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournaments SET revision = revision + 1, due_at = ?, updated_at = ? WHERE id = ?`),
		formatTime(now), formatTime(now), l.ID); err != nil {
		return fmt.Errorf("tournament %d: %w", l.ID, err)
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournament_pairings SET result = ?
		WHERE tournament_id = ? AND round = ? AND board = ? AND session_id = ? AND result = ''`),
		string(r), l.ID, l.Round, l.Board, id); err != nil {
		return fmt.Errorf("tournament %d, game %d.%d: %w", l.ID, l.Round, l.Board, err)
	}
	return nil
}

// forgetTournaments makes member userID anonymous in the tournaments they
// entered, in tx, and returns how many entries it changed: in a tournament
// still open for sign-up their entry goes (as when they leave); in any
// other their user ID, in the entry and its pairings, becomes the
// placeholder sessions.ForgottenID of the entry (its name emptied), so
// that the standings keep their results and nobody else's tie-breaks
// change, and in one not finished they are withdrawn too. It also clears
// their ID where it names who made or ended a tournament. Every tournament
// changed moves its revision on and is due at once.
func (s *Store) forgetTournaments(ctx context.Context, tx *sql.Tx, userID string, now time.Time) (int, error) {
	type entry struct {
		id, seq int64
		status  string
	}
	rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT e.tournament_id, e.seq, t.status FROM tournament_entries e
		JOIN tournaments t ON t.id = e.tournament_id WHERE e.user_id = ? ORDER BY e.tournament_id`), userID)
	if err != nil {
		return 0, err
	}
	var list []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.id, &e.seq, &e.status); err != nil {
			rows.Close()
			return 0, err
		}
		list = append(list, e)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, err
	}
	for _, e := range list {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournaments SET revision = revision + 1, due_at = ?, updated_at = ? WHERE id = ?`),
			formatTime(now), formatTime(now), e.id); err != nil {
			return 0, err
		}
		if e.status == string(sessions.TournamentSignUp) {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM tournament_entries WHERE tournament_id = ? AND user_id = ?`), e.id, userID); err != nil {
				return 0, err
			}
			continue
		}
		placeholder := sessions.ForgottenID(int(e.seq))
		withdraw := ``
		if e.status != string(sessions.TournamentFinished) {
			withdraw = `, withdrawn = 1`
		}
		for _, q := range []string{
			`UPDATE tournament_entries SET user_id = ?, name = ''` + withdraw + ` WHERE tournament_id = ? AND user_id = ?`,
			`UPDATE tournament_pairings SET opener_id = ? WHERE tournament_id = ? AND opener_id = ?`,
			`UPDATE tournament_pairings SET second_id = ? WHERE tournament_id = ? AND second_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(q), placeholder, e.id, userID); err != nil {
				return 0, err
			}
		}
	}
	for _, col := range []string{"created_by", "ended_by"} {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE tournaments SET `+col+` = '', revision = revision + 1 WHERE `+col+` = ?`), userID); err != nil {
			return 0, err
		}
	}
	return len(list), nil
}
