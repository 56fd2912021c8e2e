// Package sqlstore is the engine both session store backends share: the
// sessions.Store contract written once in SQL that SQLite and PostgreSQL
// both speak, through database/sql, with each backend's differences (the
// driver, placeholders, how a unique violation is reported, whether writes
// queue in the process) given as a Dialect. It also holds the per-process
// cache of decoded sessions, the versioned migrations runner, and export
// and import as JSON lines.
//
// Every table keeps the same columns of the same meaning in both backends;
// timestamps are fixed-width UTC RFC 3339 text with nanoseconds
// ("2006-01-02T15:04:05.000000000Z"), whose text order is time order, so
// that the two stores hold identical values and move between each other
// as a copy.
package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

// TimeFormat is how timestamps are stored: UTC, fixed width, nanoseconds,
// so that text order is time order.
const TimeFormat = "2006-01-02T15:04:05.000000000Z"

// Dialect is what differs between the backends.
type Dialect struct {
	// Name names the backend in messages: "sqlite" or "postgres".
	Name string
	// Numbered means placeholders are written $1, $2, ... (PostgreSQL)
	// rather than ? (SQLite); statements are written with ? and rebound.
	Numbered bool
	// IsUniqueViolation reports whether err is the database refusing a
	// row that breaks a UNIQUE index.
	IsUniqueViolation func(error) bool
	// SerialWrites queues the process's writes in Go so that they never
	// meet on a database-wide write lock, and writes the moves that queue
	// together in one transaction (group commit, see batcher) (SQLite).
	SerialWrites bool
	// SnapshotTx are the options of the transaction Export reads in, one
	// that sees a single consistent state of the database.
	SnapshotTx *sql.TxOptions
	// Pipeline, when set, writes the moves of a process that arrive
	// together (from different channels) in one round trip and one
	// transaction, a group commit (see batcher): it runs batch in order,
	// each Piped statement given as SQL text (rebound) and arguments,
	// sets each one's Affected (or scans its row into Scan), and commits
	// them all, or returns an error and leaves none of them written
	// (PostgreSQL: pgx's SendBatch, an implicit transaction).
	Pipeline func(ctx context.Context, db *sql.DB, batch []Piped) error
	// NewestMany, when set, is a query that reads the newest session of
	// each channel of a list given as its one argument (a []string), in
	// the columns of SessionColumns, a row per channel that has one: the
	// reads of a channel's newest session that arrive together (Update's,
	// Get's, from different channels) are then made as one statement in
	// one round trip (see reader) (PostgreSQL).
	NewestMany string
	// UpdateMany, when set, returns a statement that writes many sessions
	// back at once, each with updateSQL's compare-and-swap: set are the
	// columns the update sets from its arguments, in order (see
	// MoveColumns for a move's), and arrays the SQL array type of every argument of
	// the new statement ("text[]", "bigint[]"): one per column of set,
	// then the rows' ids, their revisions and their channels. It returns
	// the ids of the rows it changed. A pipelined batch then writes the
	// moves of one kind as one statement (PostgreSQL: the work of starting
	// a statement, checking the table's constraints among it, is done
	// once for all of them).
	UpdateMany func(set, arrays []string) string
	// PipedTx, when set, runs fn in a transaction whose statements fn
	// gives to a Pipe: they are sent together, in one round trip, when
	// fn needs a result (Pipe.Query, Pipe.Send) and at the commit. It
	// begins the transaction with the first statements sent and, when fn
	// returns nil, sends what is left with the commit; when fn or a
	// statement fails, nothing is committed (it rolls back what was sent)
	// and it returns the error. A match's result (its compare-and-swap,
	// the ratings, stats and pair records) is then two round trips
	// instead of one per statement (PostgreSQL: pgx batches on one
	// connection; docs/load.md, "The store's write of a move, and
	// PostgreSQL's plans").
	PipedTx func(ctx context.Context, db *sql.DB, fn func(Pipe) error) error
	// AfterImport, when set, runs at the end of Import's transaction
	// (PostgreSQL: moves the identity sequence past the imported IDs).
	AfterImport func(ctx context.Context, tx *sql.Tx) error
}

// Piped is one statement of a Dialect.Pipeline batch.
type Piped struct {
	Query string // SQL with numbered placeholders
	Args  []any
	// Scan, when set, receives the one row the statement returns
	// (INSERT ... RETURNING id); else Affected is set to the number of
	// rows the statement changed.
	Scan     []any
	Affected int64
	// IDs, when set, receives the one BIGINT column of every row the
	// statement returns (UpdateMany's RETURNING id), instead of Affected.
	IDs *[]int64
}

// Rebind rewrites the ? placeholders of query as the dialect writes them.
// The statements of this package hold no ? inside literals.
func (d Dialect) Rebind(query string) string {
	if !d.Numbered {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Store implements sessions.Store on a *sql.DB whose schema is migrated.
type Store struct {
	db    *sql.DB
	d     Dialect
	name  string // names the database in errors: a path, or a URL without its password
	now   clock.Clock
	locks keyedMutex // by channel: Update, Create, Abandon
	// settingsLocks queue UpdateGuildSettings by server.
	settingsLocks keyedMutex
	// writeMu queues this Store's writes when d.SerialWrites.
	writeMu sync.Mutex
	batch   batcher // group commits of Update's and Create's writes when d.SerialWrites
	cache   *cache
	st      statements
	// updates are Update's statements, one per set of columns written
	// (updateSQL), prepared on first use; fullUpdate the one that writes
	// them all, prepared by New.
	updates    updates
	fullUpdate *updateStmt
	// insertText is the SQL of st.insert, rebound, for Dialect.Pipeline.
	insertText string
	// texts are the SQL of the prepared statements of st, rebound, for
	// Dialect.PipedTx.
	texts  map[*sql.Stmt]string
	reads  atomic.Int64 // rows read by newest, for RowReads
	reader reader       // the reads of newest gathered, with d.NewestMany
}

// statements are the prepared statements of the hot paths.
type statements struct {
	newest, insert, abandon *sql.Stmt
	newestMany              *sql.Stmt // Dialect.NewestMany, when set
	addStats                *sql.Stmt // addStatsSQL: the one row of a match against the bot
	// addStats2, addPair2 and lockRating2 write (lock) two players' rows
	// in one statement: addStatsSQL, addPairSQL and lockRatingSQL with
	// two rows of VALUES.
	addStats2, addPair2, lockRating2 *sql.Stmt
	pair                             *sql.Stmt // selectPairSQL
	settings                         *sql.Stmt // selectSettingsSQL
	lastChallenge                    *sql.Stmt // lastChallengeSQL
	// The ratings (ratings.go): a rated result's statements, Rating and
	// RatedToday.
	writeRating, matchRatings *sql.Stmt
	rating, ratedToday        *sql.Stmt
	// queueScan is queueScanSQL, prepared with SerialWrites or a Pipeline
	// only (see QueuePuzzleScan).
	queueScan *sql.Stmt
}

var _ sessions.Store = (*Store)(nil)

// New returns a Store on db, which must hold the current schema, named
// name in errors (never give a password here). It prepares its statements;
// Close closes db.
func New(ctx context.Context, db *sql.DB, d Dialect, name string, o sessions.Options) (*Store, error) {
	s := &Store{db: db, d: d, name: name, now: clock.OrReal(o.Clock), cache: newCache(o.CacheSize)}
	prep := []struct {
		dst   **sql.Stmt
		query string
	}{
		{&s.st.newest, newestSQL},
		{&s.st.insert, insertSQL},
		{&s.st.abandon, abandonSQL},
		{&s.st.addStats, addStatsSQL},
		{&s.st.addStats2, twoRows(addStatsSQL)},
		{&s.st.addPair2, twoRows(addPairSQL)},
		{&s.st.lockRating2, twoRows(lockRatingSQL)},
		{&s.st.pair, selectPairSQL},
		{&s.st.settings, selectSettingsSQL},
		{&s.st.lastChallenge, lastChallengeSQL},
		{&s.st.writeRating, writeRatingSQL},
		{&s.st.matchRatings, matchRatingsSQL},
		{&s.st.rating, selectRatingSQL},
		{&s.st.ratedToday, ratedTodaySQL},
	}
	s.insertText = d.Rebind(insertSQL)
	s.texts = make(map[*sql.Stmt]string, len(prep)+1)
	if d.NewestMany != "" {
		prep = append(prep, struct {
			dst   **sql.Stmt
			query string
		}{&s.st.newestMany, d.NewestMany})
	}
	if d.SerialWrites || d.Pipeline != nil {
		prep = append(prep, struct {
			dst   **sql.Stmt
			query string
		}{&s.st.queueScan, queueScanSQL})
	}
	for _, p := range prep {
		stmt, err := db.PrepareContext(ctx, d.Rebind(p.query))
		if err != nil {
			return nil, fmt.Errorf("prepare %s: %w", strings.Fields(p.query)[0], err)
		}
		*p.dst = stmt
		s.texts[stmt] = d.Rebind(p.query)
	}
	full, err := s.prepareUpdate(ctx, allColumns)
	if err != nil {
		return nil, err
	}
	s.fullUpdate, s.updates.m = full, map[colSet]*updateStmt{allColumns: full}
	return s, nil
}

// DB returns the database, for the backend's own checks and tests.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database. Calls to the Store after Close return an
// error.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close session store %s: %w", s.name, err)
	}
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping session store %s: %w", s.name, err)
	}
	return nil
}

func (s *Store) clock() time.Time { return s.now.Now().UTC() }

// lockWrites queues a write when the dialect asks for it; the returned
// function ends the turn.
func (s *Store) lockWrites() func() {
	if !s.d.SerialWrites {
		return func() {}
	}
	s.writeMu.Lock()
	return s.writeMu.Unlock
}

// Get implements sessions.Store.
func (s *Store) Get(ctx context.Context, channelID string) (*sessions.Session, error) {
	sess, _, err := s.newest(ctx, channelID)
	if err != nil {
		return nil, fmt.Errorf("get session in channel %s: %w", channelID, err)
	}
	return sess, nil
}

// History implements sessions.Store.
func (s *Store) History(ctx context.Context, channelID string, limit int) ([]*sessions.Session, error) {
	if limit <= 0 {
		limit = noLimit
	}
	rows, err := s.db.QueryContext(ctx, s.d.Rebind(selectSession+` WHERE channel_id = ? ORDER BY id DESC LIMIT ?`), channelID, limit)
	if err != nil {
		return nil, fmt.Errorf("history of channel %s: %w", channelID, err)
	}
	defer rows.Close()
	list := []*sessions.Session{}
	for rows.Next() {
		sess, _, err := s.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("history of channel %s: %w", channelID, err)
		}
		list = append(list, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history of channel %s: %w", channelID, err)
	}
	return list, nil
}

// noLimit is a LIMIT that both SQLite and PostgreSQL read as none.
const noLimit = 1 << 62

// Create implements sessions.Store.
func (s *Store) Create(ctx context.Context, sess *sessions.Session) (*sessions.Session, error) {
	channel := ""
	if sess != nil {
		channel = sess.ChannelID
	}
	c, err := sessions.PrepareNew(sess)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", channel, err)
	}
	config, err := json.Marshal(c.Config)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: encode config: %w", c.ChannelID, err)
	}
	actions, err := encodeActions(nil, c.Match)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	webhook, err := encodeWebhook(c.Webhook)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	place, err := json.Marshal(c.Place)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: encode place: %w", c.ChannelID, err)
	}
	ratings, err := encodeRatings(c.Ratings)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	if c.Ratings != nil {
		r := *c.Ratings // the stored copy's own, as its match
		c.Ratings = &r
	}

	unlock, err := s.locks.lock(ctx, c.ChannelID)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	defer unlock()
	now := s.clock()
	c.CreatedAt, c.UpdatedAt = now, now
	args := []any{c.ChannelID, c.GuildID, c.Players[0].ID, c.Players[0].Name, c.Players[1].ID, c.Players[1].Name,
		string(config), actions, string(c.Phase), c.MessageID, formatTime(now), formatTime(now),
		c.Theme, c.AI, string(c.End), formatOptionalTime(c.Deadline), c.PostSeq, formatOptionalTime(c.PostDue), webhook, string(place),
		c.EndedBy, boolInt(c.Rated), boolInt(c.RatedCapped), ratings, c.Tournament.ID, c.Tournament.Round, c.Tournament.Board}

	w := &swap{ctx: ctx, stmt: s.st.insert, query: s.insertText, args: args, scan: []any{&c.ID}}
	switch {
	case c.Tournament.Set():
		// A tournament game's session is recorded on its pairing, once.
		w.then = func(ctx context.Context, tx *sql.Tx) error { return s.linkGame(ctx, tx, c, now) }
	case c.Phase == sessions.PhaseFinished:
		// A match stored already over (a replay, say) counts like any other.
		w.then = func(ctx context.Context, tx *sql.Tx) error { return s.recordResult(ctx, sqlTxn{tx}, c, now) }
	}
	err = s.writeSwap(w)
	if err != nil {
		if errors.Is(err, sessions.ErrGameTaken) {
			return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
		}
		if s.d.IsUniqueViolation(err) {
			return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, sessions.ErrActiveSession)
		}
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	s.cache.put(c.ID, &cached{revision: 0, sess: c.CloneOwned(nil), actions: actions})
	return c, nil
}

const insertSQL = `INSERT INTO matches
	(channel_id, guild_id, player1_id, player1_name, player2_id, player2_name,
	 config, actions, phase, message_id, revision, created_at, updated_at,
	 theme, ai_level, end_reason, deadline_at, post_seq, post_due, webhook, place, ended_by,
	 rated, rated_capped, ratings, tournament_id, tournament_round, tournament_board)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

const abandonSQL = `UPDATE matches SET phase = 'cancelled', end_reason = 'abandoned',
	deadline_at = '', post_due = '', revision = revision + 1, updated_at = ?
	WHERE channel_id = ? AND phase IN ('challenge', 'playing') RETURNING id, tournament_id, tournament_round, tournament_board`

// inTx runs fn in a transaction and commits it, or rolls it back when fn
// fails.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// LockWaiters returns how many calls of this Store (Update, Create,
// Abandon) wait now for the per-channel lock of channelID, not counting the
// one that holds it: for tests that prove a call waited.
func (s *Store) LockWaiters(channelID string) int { return s.locks.waiters(channelID) }

// RowReads returns how many times this Store has read a channel's newest
// session from the database (Get, and Update's loads and checks), each one
// statement and one round trip: for tests that count what a move costs.
func (s *Store) RowReads() int64 { return s.reads.Load() }

// errLost means the compare-and-swap of Update found the row changed.
var errLost = errors.New("lost the race")

// Update implements sessions.Store; see its contract for how it retries.
func (s *Store) Update(ctx context.Context, channelID string, fn func(*sessions.Session) error) (*sessions.Session, error) {
	unlock, err := s.locks.lock(ctx, channelID)
	if err != nil {
		return nil, fmt.Errorf("update session in channel %s: %w", channelID, err)
	}
	defer unlock()
	// The first try starts from the state this process cached for the
	// channel, without reading the row: when no other process wrote it
	// since (by far the common case), the compare-and-swap succeeds and a
	// move costs one statement. When fn refuses the cached state, the row
	// is read to make sure the refusal is not of an old state. A channel
	// whose cached state lost to another process (contended) reads the row
	// first until a read finds it at the revision cached again.
	//
	// A refusal of the cached state that the read finds stale (another
	// process wrote since: with two replicas taking turns at a match's
	// clicks, every click) goes on from the state that read returned, so
	// that the move costs one read and one write, not two reads: the read
	// is a round trip, and on PostgreSQL the most costly part of a move
	// for the server and the database alike (connectn-loadgen -route
	// alternate, docs/load.md).
	//
	// Such a refusal does not make the channel contended: the refusal cost
	// no round trip, and this process's state is current again after the
	// write. Behind a load balancer that sends each click to a replica at
	// random, half the clicks land on the replica that wrote the last
	// state; reading first there as well (as after a lost write) cost a
	// read that found nothing new on a quarter of all clicks
	// (TwoStoresAtRandom in sessionstest counts them).
	first := 0
	var fresh *loaded // a state read already, for the next try
	if e, contended := s.cache.newest(channelID); e != nil && !contended {
		sess, err := s.tryUpdate(ctx, channelID, fn, e, nil)
		var stale *staleError
		switch {
		case errors.As(err, &stale):
			fresh = stale.fresh
		case errors.Is(err, errLost):
			s.cache.setContended(channelID, true)
			first = 1 // a lost try like any other
		default:
			return sess, err
		}
	}
	for try := first; try < sessions.MaxAttempts; try++ {
		sess, err := s.tryUpdate(ctx, channelID, fn, nil, fresh)
		fresh = nil
		if !errors.Is(err, errLost) {
			return sess, err
		}
		backoff(ctx, try)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("update session in channel %s: %w", channelID, err)
		}
	}
	return nil, fmt.Errorf("update session in channel %s: %d tries lost to other writers: %w", channelID, sessions.MaxAttempts, sessions.ErrConflict)
}

// staleError means fn refused a cached state that is older than the row,
// or that could not be checked: Update tries again from fresh, the row's
// state read by the check, or when nil from a new read.
type staleError struct{ fresh *loaded }

func (e *staleError) Error() string { return "refused a cached state older than the row" }

// loaded is a session as read from its row, and the cache entry it came
// from.
type loaded struct {
	sess  *sessions.Session
	entry *cached
}

// tryUpdate is one load, fn and compare-and-swap; it returns errLost when
// another process wrote the session first. With from, the session starts
// from that cache entry instead of the row, and a refusal by fn returns a
// *staleError unless the row is still at the entry's revision. With
// fresh (and no from), it starts from that state, read from the row
// already, instead of reading it.
func (s *Store) tryUpdate(ctx context.Context, channelID string, fn func(*sessions.Session) error, from *cached, fresh *loaded) (*sessions.Session, error) {
	var (
		sess  *sessions.Session
		entry = from
		err   error
	)
	switch {
	case from != nil:
		sess = from.sess.Clone()
	case fresh != nil:
		sess, entry = fresh.sess, fresh.entry
	default:
		known, contended := s.cache.newest(channelID)
		if sess, entry, err = s.newest(ctx, channelID); err != nil {
			return nil, fmt.Errorf("update session in channel %s: %w", channelID, err)
		}
		if contended && entry == known {
			s.cache.setContended(channelID, false) // nobody else wrote since
		}
	}
	before := *sess
	if err := fn(sess); err != nil {
		if from != nil {
			row, now, lerr := s.newest(ctx, channelID)
			switch {
			case lerr != nil:
				return nil, &staleError{}
			case now != from:
				return nil, &staleError{fresh: &loaded{sess: row, entry: now}}
			}
		}
		return nil, err
	}
	if err := sessions.CheckChange(&before, sess); err != nil {
		return nil, fmt.Errorf("update session %d in channel %s: %w", before.ID, channelID, err)
	}
	actions, err := encodeActions(entry, sess.Match)
	if err != nil {
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	now := s.clock()
	cols := s.d.writes(changedColumns(entry, sess, actions))
	u := s.update(ctx, cols)
	if u == s.fullUpdate {
		cols = allColumns
	}
	args, err := updateArgs(cols, sess, actions, formatTime(now), entry.revision)
	if err != nil {
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	w := &swap{ctx: ctx, stmt: u.stmt, query: u.text, key: sess.ID, args: args, set: u.set}
	finished := before.Phase != sessions.PhaseFinished && sess.Phase == sessions.PhaseFinished
	game := sess.Tournament.Set() && before.Phase.Active() && !sess.Phase.Active()
	if finished || game {
		// The result and the stats it changes are written together, and
		// so is a tournament game's result on its pairing.
		w.then = func(ctx context.Context, tx *sql.Tx) error {
			if finished {
				if err := s.recordResult(ctx, sqlTxn{tx}, sess, now); err != nil {
					return err
				}
			}
			if game {
				return s.recordGame(ctx, tx, sess, now)
			}
			return nil
		}
		if !game {
			// The same writes through Dialect.PipedTx, when the dialect
			// has it (writePiped).
			w.piped = func(ctx context.Context, t txn) error { return s.recordResult(ctx, t, sess, now) }
		}
	}
	err = s.writeSwap(w)
	switch {
	case errors.Is(err, errLost):
		s.cache.drop(sess.ID)
		return nil, err
	case err != nil && s.d.IsUniqueViolation(err):
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, sessions.ErrActiveSession)
	case err != nil:
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	sess.UpdatedAt = now
	s.cache.put(sess.ID, &cached{revision: entry.revision + 1, sess: sess.CloneOwned(entry.sess), actions: actions})
	return sess, nil
}

// swapped returns errLost unless the compare-and-swap res changed one row.
func swapped(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return errLost
	}
	return nil
}

// Abandon implements sessions.Store.
func (s *Store) Abandon(ctx context.Context, channelID string) (int64, error) {
	unlock, err := s.locks.lock(ctx, channelID)
	if err != nil {
		return 0, fmt.Errorf("abandon session in channel %s: %w", channelID, err)
	}
	defer unlock()
	var (
		id   int64
		link sessions.TournamentLink
	)
	now := s.clock()
	done := s.lockWrites()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := tx.StmtContext(ctx, s.st.abandon).QueryRowContext(ctx, formatTime(now), channelID).Scan(&id, &link.ID, &link.Round, &link.Board); err != nil {
			return err
		}
		if !link.Set() {
			return nil
		}
		// A tournament game whose row cannot be read: neither player
		// could play it on.
		return s.recordGameResult(ctx, tx, link, id, tournament.DoubleForfeit, now)
	})
	done()
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("abandon session in channel %s: no active session: %w", channelID, sessions.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("abandon session in channel %s: %w", channelID, err)
	}
	s.cache.drop(id)
	return id, nil
}

// SessionColumns are the columns of a session's row as the Store reads
// them, in order (see Dialect.NewestMany).
const SessionColumns = `id, revision, channel_id, guild_id, player1_id, player1_name, player2_id, player2_name,
	config, actions, phase, message_id, created_at, updated_at,
	theme, ai_level, end_reason, deadline_at, post_seq, post_due, webhook, place, ended_by,
	rated, rated_capped, ratings, tournament_id, tournament_round, tournament_board`

const selectSession = `SELECT ` + SessionColumns + ` FROM matches`

// newestSQL reads the channel's newest session, through
// matches_by_channel (channel_id, id).
const newestSQL = selectSession + ` WHERE channel_id = ? ORDER BY id DESC LIMIT 1`

// newest loads the channel's newest session: a copy of its cached
// decoding when the row's revision is the one cached, else the row
// decoded (and cached).
func (s *Store) newest(ctx context.Context, channelID string) (*sessions.Session, *cached, error) {
	s.reads.Add(1)
	if s.st.newestMany != nil {
		return s.readTogether(ctx, channelID)
	}
	return s.newestOne(ctx, channelID)
}

// newestOne is newest as one statement of its own.
func (s *Store) newestOne(ctx context.Context, channelID string) (*sessions.Session, *cached, error) {
	rows, err := s.st.newest.QueryContext(ctx, channelID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
		return nil, nil, sessions.ErrNotFound
	}
	sess, entry, err := s.scan(rows)
	if err != nil {
		return nil, nil, err
	}
	return sess, entry, rows.Close()
}

// row is one row of selectSession as read, before decoding.
type row struct {
	id, revision                                      int64
	channel, guild, p1ID, p1Name, p2ID, p2Name        sql.RawBytes
	config, actions, phase, message, created, updated sql.RawBytes
	theme, ai, end, deadline                          sql.RawBytes
	postSeq                                           int64
	postDue, webhook, place, endedBy                  sql.RawBytes
	rated, ratedCapped                                int64
	ratings                                           sql.RawBytes
	tournament, tournamentRound, tournamentBoard      int64
}

// scan reads the current row of rows (selectSession) and returns a fresh
// copy of its session and the cache entry it came from. A row at a
// revision the cache holds is not decoded; any other is decoded, its match
// replayed, and cached. It returns an error wrapping ErrCorrupt for a row
// that cannot be rebuilt.
func (s *Store) scan(rows *sql.Rows) (*sessions.Session, *cached, error) {
	var r row
	if err := rows.Scan(&r.id, &r.revision, &r.channel, &r.guild, &r.p1ID, &r.p1Name, &r.p2ID, &r.p2Name,
		&r.config, &r.actions, &r.phase, &r.message, &r.created, &r.updated,
		&r.theme, &r.ai, &r.end, &r.deadline, &r.postSeq, &r.postDue, &r.webhook, &r.place, &r.endedBy,
		&r.rated, &r.ratedCapped, &r.ratings, &r.tournament, &r.tournamentRound, &r.tournamentBoard); err != nil {
		return nil, nil, err
	}
	if e := s.cache.get(r.id, r.revision); e != nil {
		return e.sess.Clone(), e, nil
	}
	sess, err := decode(&r, s.cache.any(r.id))
	if err != nil {
		s.cache.drop(r.id) // no Update starts from an older state of it
		return nil, nil, err
	}
	// A row that decode settled (ended before sessions knew how) holds
	// another end than its session: its next Update writes every column.
	full := sessions.End(r.end) == sessions.EndNone && !sessions.Phase(r.phase).Active()
	e := &cached{revision: r.revision, sess: sess, actions: string(r.actions), full: full}
	s.cache.put(r.id, e)
	return sess.Clone(), e, nil
}

// decode rebuilds the session of r, replaying its match.
//
// With older, the cache's entry of the same session at an earlier
// revision, a match whose stored actions extend older's (another process
// played on since: with two replicas taking turns, every click) is rebuilt
// from a copy of older's match and the new actions alone, instead of
// replaying every move from the first (the figures are in docs/load.md,
// "PostgreSQL's cost"); any other row is replayed whole.
func decode(r *row, older *cached) (*sessions.Session, error) {
	sess := &sessions.Session{
		ID: r.id, ChannelID: string(r.channel), GuildID: string(r.guild), MessageID: string(r.message),
		Players: [2]sessions.Member{{ID: string(r.p1ID), Name: string(r.p1Name)}, {ID: string(r.p2ID), Name: string(r.p2Name)}},
		Phase:   sessions.Phase(r.phase), Theme: string(r.theme), AI: string(r.ai), End: sessions.End(r.end),
		PostSeq: int(r.postSeq), EndedBy: string(r.endedBy), Rated: r.rated != 0, RatedCapped: r.ratedCapped != 0,
		Tournament: sessions.TournamentLink{ID: r.tournament, Round: int(r.tournamentRound), Board: int(r.tournamentBoard)},
	}
	corrupt := func(what string, err error) error {
		return fmt.Errorf("session %d: %s: %w: %w", r.id, what, sessions.ErrCorrupt, err)
	}
	if !sess.Phase.Valid() {
		return nil, corrupt("phase", fmt.Errorf("unknown phase %q", r.phase))
	}
	var err error
	if sess.CreatedAt, err = time.Parse(TimeFormat, string(r.created)); err != nil {
		return nil, corrupt("created_at", err)
	}
	if sess.UpdatedAt, err = time.Parse(TimeFormat, string(r.updated)); err != nil {
		return nil, corrupt("updated_at", err)
	}
	if sess.Deadline, err = parseOptionalTime(string(r.deadline)); err != nil {
		return nil, corrupt("deadline_at", err)
	}
	if sess.PostDue, err = parseOptionalTime(string(r.postDue)); err != nil {
		return nil, corrupt("post_due", err)
	}
	if err := fastjson.Unmarshal(r.webhook, &sess.Webhook); err != nil {
		return nil, corrupt("webhook", err)
	}
	if len(r.place) > 0 {
		if err := fastjson.Unmarshal(r.place, &sess.Place); err != nil {
			return nil, corrupt("place", err)
		}
	}
	if !sess.End.Valid() {
		return nil, corrupt("end_reason", fmt.Errorf("unknown end %q", r.end))
	}
	if sess.Ratings, err = decodeRatings(r.ratings); err != nil {
		return nil, corrupt("ratings", err)
	}
	if err := fastjson.Unmarshal(r.config, &sess.Config); err != nil {
		return nil, corrupt("config", err)
	}
	if m, ok := replayTail(sess.Config, r.actions, older); ok {
		sess.Match = m
	} else {
		list, err := parseActions(r.actions)
		if err != nil {
			return nil, corrupt("actions", err)
		}
		if sess.Match, err = game.Replay(sess.Config, list); err != nil {
			return nil, corrupt("replay", err)
		}
	}
	if !sess.Phase.Active() && sess.End == sessions.EndNone {
		sess.Settle() // a row written before sessions knew how they ended
	}
	return sess, nil
}

// replayTail returns the match whose actions column is actions, rebuilt
// from older's match when actions is older's list with more actions after
// it (as encodeActions appends them, in the move text): a copy of older's
// match with only the new actions applied. It reports false when it
// cannot (no older entry, another configuration, a column in the JSON
// list, a list that does not extend older's, or new actions that do not
// decode or apply), for the caller to replay the whole list.
func replayTail(cfg game.Config, actions []byte, older *cached) (*game.Match, bool) {
	if older == nil || older.sess.Config != cfg || !isMoveText(older.actions) || !isMoveText(string(actions)) {
		return nil, false
	}
	head := older.actions
	if len(actions) <= len(head) || string(actions[:len(head)]) != head {
		return nil, false // not an extension of older's list
	}
	tail, err := parseActions(actions[len(head):])
	if err != nil || len(tail) == 0 {
		return nil, false
	}
	m := older.sess.Match.Clone()
	for _, a := range tail {
		if m.Apply(a) != nil {
			return nil, false
		}
	}
	return m, true
}

// encodeWebhook returns w as JSON, the bytes encoding/json writes for it
// (omitempty strings, At in UTC as RFC 3339 with nanoseconds, omitzero),
// without reflection: every move writes it (about a microsecond less,
// TestEncodeWebhookAsEncodingJSON holds the bytes the same).
func encodeWebhook(w sessions.Webhook) (string, error) {
	// The keys, quotes and commas take 40 bytes, the time 39 more.
	b := make([]byte, 0, 96+len(w.AppID)+len(w.Token)+len(w.Message))
	b = append(b, '{')
	var err error
	for _, f := range [...]struct{ name, v string }{{"app_id", w.AppID}, {"token", w.Token}, {"message", w.Message}} {
		if f.v == "" {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), f.name...), `":`...)
		if b, err = fastjson.Append(b, f.v, fastjson.EscapeHTML); err != nil {
			return "", fmt.Errorf("encode webhook: %w", err)
		}
	}
	if !w.At.IsZero() {
		if len(b) > 1 {
			b = append(b, ',')
		}
		at := w.At.UTC()
		if y := at.Year(); y < 0 || y > 9999 {
			return "", fmt.Errorf("encode webhook: time %v: year outside of range [0,9999]", at)
		}
		// What time.Time.MarshalJSON writes, without its allocation.
		b = at.AppendFormat(append(b, `"at":"`...), time.RFC3339Nano)
		b = append(b, '"')
	}
	return string(append(b, '}')), nil
}

// encodeRatings returns r as the JSON stored in the ratings column, and
// nil as "".
func encodeRatings(r *sessions.RatingChange) (string, error) {
	if r == nil {
		return "", nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("encode ratings: %w", err)
	}
	return string(b), nil
}

// decodeRatings reads what encodeRatings wrote: "" (and "{}" or "null")
// is nil.
func decodeRatings(b []byte) (*sessions.RatingChange, error) {
	switch string(b) {
	case "", "{}", "null":
		return nil, nil
	}
	r := new(sessions.RatingChange)
	if err := fastjson.Unmarshal(b, r); err != nil {
		return nil, err
	}
	return r, nil
}

// bytesReader reads b.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func formatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// formatOptionalTime formats t as formatTime does, and the zero time as "".
func formatOptionalTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return formatTime(t)
}

// parseOptionalTime reads what formatOptionalTime wrote.
func parseOptionalTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(TimeFormat, s)
}

// backoff lets a burst of writes from other processes pass after try
// lost races in a row (from the third on), for a random moment that
// grows with the tries (up to 2 ms), or until ctx ends. It waits on the
// system clock on purpose: the other processes write in real time, and a
// test's fake clock, which nobody moves while stores race, would stall
// the race instead of timing it.
func backoff(ctx context.Context, try int) {
	if try < 2 {
		return
	}
	wait := time.Duration(rand.Int64N(int64(min(try, 20)) * int64(100*time.Microsecond)))
	clock.Sleep(ctx, clock.Real(), wait)
}
