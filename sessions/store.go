package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/connectn/connectn/game"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// MemoryPath is the path that makes Open keep the database in memory, on a
// single connection, for tests and throwaway runs: nothing is written to
// disk and everything is lost on Close.
const MemoryPath = ":memory:"

// BusyTimeout is how long a statement waits for a lock held by another
// process on the same database file before failing with SQLITE_BUSY. Within
// one Store, writes are queued in Go so they do not contend for SQLite's
// write lock.
const BusyTimeout = 5 * time.Second

// maxOpenConns bounds the connection pool of a file database. WAL lets the
// readers proceed while one connection writes.
const maxOpenConns = 4

// timeFormat is how timestamps are stored: UTC, fixed width, nanoseconds,
// so that text order is time order.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

// Store keeps sessions in a SQLite database. It is safe for concurrent use by
// multiple goroutines. Create one with Open and release it with Close.
type Store struct {
	db    *sql.DB
	path  string
	now   func() time.Time
	locks keyedMutex
	// writeMu queues this Store's writes so that they never meet each
	// other on SQLite's database-wide write lock.
	writeMu sync.Mutex
}

// Option configures a Store in Open.
type Option func(*Store)

// WithClock makes the Store take CreatedAt and UpdatedAt from now instead
// of time.Now. The times are converted to UTC. A nil now is ignored.
func WithClock(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.now = now
		}
	}
}

// Open opens (creating it if needed) the SQLite database at path, creating
// the parent folder too if it is missing, and migrates its schema (tracked
// by PRAGMA user_version). Each connection gets busy_timeout, WAL journaling,
// synchronous=NORMAL, foreign keys and BEGIN IMMEDIATE transactions through
// the DSN's _pragma and _txlock parameters. path is a file system path
// without '?', or MemoryPath. Every error names the path and wraps the
// cause: a folder or file that cannot be created or opened, a file that is
// not a database, a schema written by a newer program.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	s := &Store{path: path, now: time.Now}
	for _, opt := range opts {
		opt(s)
	}
	db, err := openDB(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open session store %q: %w", path, err)
	}
	s.db = db
	return s, nil
}

func openDB(ctx context.Context, path string) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	if strings.ContainsRune(path, '?') {
		return nil, errors.New("path contains '?'")
	}
	memory := path == MemoryPath
	if !memory {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, fmt.Errorf("create folder: %w", err)
		}
	}
	dsn := path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate",
		BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	conns := maxOpenConns
	if memory {
		// Every connection to ":memory:" is a database of its own.
		conns = 1
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := migrate(ctx, db); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the database. Calls to the Store after Close return an
// error.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close session store %q: %w", s.path, err)
	}
	return nil
}

// Ping checks that the database is reachable, returning the cause when it is
// not (for health checks).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping session store %q: %w", s.path, err)
	}
	return nil
}

// Get returns the channel's newest session, whatever its phase: the active
// one if there is one, otherwise the last one that ended (so after a finish
// Get still returns the finished session until a new one is created). It
// returns an error wrapping ErrNotFound when the channel never had a
// session, and one wrapping ErrCorrupt when the row cannot be rebuilt.
func (s *Store) Get(ctx context.Context, channelID string) (*Session, error) {
	sess, _, err := s.newest(ctx, channelID)
	if err != nil {
		return nil, fmt.Errorf("get session in channel %s: %w", channelID, err)
	}
	return sess, nil
}

// History returns the channel's sessions, newest first, at most limit of
// them (all when limit <= 0). It returns an empty slice for a channel without
// sessions, and an error wrapping ErrCorrupt when a row cannot be rebuilt.
func (s *Store) History(ctx context.Context, channelID string, limit int) ([]*Session, error) {
	if limit <= 0 {
		limit = -1 // no limit, for SQLite
	}
	rows, err := s.db.QueryContext(ctx, selectSession+` WHERE channel_id = ? ORDER BY id DESC LIMIT ?`, channelID, limit)
	if err != nil {
		return nil, fmt.Errorf("history of channel %s: %w", channelID, err)
	}
	defer rows.Close()
	list := []*Session{}
	for rows.Next() {
		sess, _, err := scanSession(rows)
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

// Create stores sess as a new session in its channel and returns the stored
// copy, with ID, CreatedAt and UpdatedAt assigned (whatever sess held) and a
// Match of its own, rebuilt from the stored actions. sess itself is not
// changed. An empty Phase means PhaseChallenge; a nil Match means a new
// match built from Config; an active phase with a match that is already
// over is stored as PhaseFinished. Earlier sessions of the channel that
// ended stay stored as history.
//
// Create returns an error wrapping ErrActiveSession when the channel already
// has an active session (the database refuses it, so this holds across
// processes too), and one wrapping ErrInvalidSession (and game.ErrInvalidConfig
// for a bad configuration) when sess breaks a rule.
func (s *Store) Create(ctx context.Context, sess *Session) (*Session, error) {
	if sess == nil {
		return nil, fmt.Errorf("create session: nil session: %w", ErrInvalidSession)
	}
	c := *sess
	if c.Phase == "" {
		c.Phase = PhaseChallenge
	}
	if c.Match == nil {
		m, err := game.NewMatch(c.Config)
		if err != nil {
			return nil, fmt.Errorf("create session in channel %s: %w: %w", c.ChannelID, ErrInvalidSession, err)
		}
		c.Match = m
	}
	c.settle()
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	config, actions, err := encodeMatch(&c)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	// The stored copy gets a match of its own, and one that is known to
	// replay from what is stored.
	m, err := game.Replay(c.Config, c.Match.Actions())
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: match does not replay: %w: %w", c.ChannelID, ErrInvalidSession, err)
	}
	c.Match = m

	unlock, err := s.locks.lock(ctx, c.ChannelID)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	defer unlock()
	now := s.clock()
	c.CreatedAt, c.UpdatedAt = now, now

	webhook, err := encodeWebhook(c.Webhook)
	if err != nil {
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	s.writeMu.Lock()
	var res sql.Result
	if c.Phase == PhaseFinished {
		// A match stored already over (a replay, say) counts like any other.
		res, err = s.inTx(ctx, func(tx *sql.Tx) (sql.Result, error) {
			res, err := insertSession(ctx, tx, &c, config, actions, webhook, now)
			if err != nil {
				return nil, err
			}
			return res, recordResult(ctx, tx, &c, now)
		})
	} else {
		res, err = insertSession(ctx, s.db, &c, config, actions, webhook, now)
	}
	s.writeMu.Unlock()
	if err != nil {
		if isUniqueViolation(err) {
			return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, ErrActiveSession)
		}
		return nil, fmt.Errorf("create session in channel %s: %w", c.ChannelID, err)
	}
	if c.ID, err = res.LastInsertId(); err != nil {
		return nil, fmt.Errorf("create session in channel %s: read id: %w", c.ChannelID, err)
	}
	return &c, nil
}

// execer is what insertSession needs of a *sql.DB or *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func insertSession(ctx context.Context, db execer, c *Session, config, actions, webhook string, now time.Time) (sql.Result, error) {
	return db.ExecContext(ctx, `INSERT INTO matches
		(channel_id, guild_id, player1_id, player1_name, player2_id, player2_name,
		 config, actions, phase, message_id, revision, created_at, updated_at,
		 theme, ai_level, end_reason, deadline_at, post_seq, post_due, webhook)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ChannelID, c.GuildID, c.Players[0].ID, c.Players[0].Name, c.Players[1].ID, c.Players[1].Name,
		config, actions, string(c.Phase), c.MessageID, formatTime(now), formatTime(now),
		c.Theme, c.AI, string(c.End), formatOptionalTime(c.Deadline), c.PostSeq, formatOptionalTime(c.PostDue), webhook)
}

// inTx runs fn in a transaction (BEGIN IMMEDIATE, from the DSN) and commits
// it, or rolls it back when fn fails.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) (sql.Result, error)) (sql.Result, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	res, err := fn(tx)
	if err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// Update loads the channel's newest session (active or not), calls fn on it,
// and if fn returns nil writes the session back (Players, Phase, MessageID,
// the match's actions, and UpdatedAt from the clock) before returning it.
// An active phase whose match is over is written as PhaseFinished. If fn
// returns an error, nothing is written and that error is returned
// unchanged, so callers can test it with errors.Is against game's
// sentinels.
//
// Calls for one channel are serialised by a per-channel lock, held from the
// load to the write, so fn always sees the latest state; calls for other
// channels do not wait for it. fn must be non-nil and must not call Update,
// Create or Abandon for the same channel (that would deadlock). It runs
// outside any database transaction, so it may take its time (an AI move,
// say) without blocking other channels. Waiting for the lock ends with ctx.
//
// Besides fn's own error, Update returns an error wrapping ErrNotFound when
// the channel has no session, ErrCorrupt when the stored row cannot be
// rebuilt (fn is then not called), ErrInvalidSession when fn changed ID,
// ChannelID, GuildID, Config or CreatedAt or left the session breaking a
// rule, ErrActiveSession when fn made an old session active while another is
// active, ErrConflict when another process changed the row meanwhile, or
// ctx's error; in all these cases nothing is written.
func (s *Store) Update(ctx context.Context, channelID string, fn func(*Session) error) (*Session, error) {
	unlock, err := s.locks.lock(ctx, channelID)
	if err != nil {
		return nil, fmt.Errorf("update session in channel %s: %w", channelID, err)
	}
	defer unlock()
	sess, revision, err := s.newest(ctx, channelID)
	if err != nil {
		return nil, fmt.Errorf("update session in channel %s: %w", channelID, err)
	}
	before := *sess
	if err := fn(sess); err != nil {
		return nil, err
	}
	switch {
	case sess.ID != before.ID, sess.ChannelID != before.ChannelID, sess.GuildID != before.GuildID,
		sess.Config != before.Config, !sess.CreatedAt.Equal(before.CreatedAt):
		return nil, fmt.Errorf("update session %d in channel %s: ID, ChannelID, GuildID, Config and CreatedAt cannot change: %w",
			before.ID, channelID, ErrInvalidSession)
	}
	sess.settle()
	if err := sess.validate(); err != nil {
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	_, actions, err := encodeMatch(sess)
	if err != nil {
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	webhook, err := encodeWebhook(sess.Webhook)
	if err != nil {
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	now := s.clock()
	write := func(db execer) (sql.Result, error) {
		return db.ExecContext(ctx, `UPDATE matches SET
			player1_id = ?, player1_name = ?, player2_id = ?, player2_name = ?,
			actions = ?, phase = ?, message_id = ?, revision = revision + 1, updated_at = ?,
			theme = ?, ai_level = ?, end_reason = ?, deadline_at = ?, post_seq = ?, post_due = ?, webhook = ?
			WHERE id = ? AND revision = ?`,
			sess.Players[0].ID, sess.Players[0].Name, sess.Players[1].ID, sess.Players[1].Name,
			actions, string(sess.Phase), sess.MessageID, formatTime(now),
			sess.Theme, sess.AI, string(sess.End), formatOptionalTime(sess.Deadline), sess.PostSeq, formatOptionalTime(sess.PostDue), webhook,
			sess.ID, revision)
	}

	s.writeMu.Lock()
	var res sql.Result
	if before.Phase != PhaseFinished && sess.Phase == PhaseFinished {
		// The result and the stats it changes are written together.
		res, err = s.inTx(ctx, func(tx *sql.Tx) (sql.Result, error) {
			res, err := write(tx)
			if err != nil {
				return nil, err
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return res, err // the revision check failed: no stats either
			}
			return res, recordResult(ctx, tx, sess, now)
		})
	} else {
		res, err = write(s.db)
	}
	s.writeMu.Unlock()
	if err != nil {
		if isUniqueViolation(err) {
			return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, ErrActiveSession)
		}
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, err)
	}
	if n != 1 {
		return nil, fmt.Errorf("update session %d in channel %s: %w", sess.ID, channelID, ErrConflict)
	}
	sess.UpdatedAt = now
	return sess, nil
}

// Abandon sets the channel's active session to PhaseCancelled without
// loading its match, and returns its ID. It is the way out for a session
// whose stored row no longer replays (ErrCorrupt), which would otherwise
// keep the channel busy forever. It returns an error wrapping ErrNotFound
// when the channel has no active session.
func (s *Store) Abandon(ctx context.Context, channelID string) (int64, error) {
	unlock, err := s.locks.lock(ctx, channelID)
	if err != nil {
		return 0, fmt.Errorf("abandon session in channel %s: %w", channelID, err)
	}
	defer unlock()
	var id int64
	s.writeMu.Lock()
	err = s.db.QueryRowContext(ctx, `UPDATE matches SET phase = 'cancelled', end_reason = 'abandoned',
		deadline_at = '', post_due = '', revision = revision + 1, updated_at = ?
		WHERE channel_id = ? AND phase IN ('challenge', 'playing') RETURNING id`,
		formatTime(s.clock()), channelID).Scan(&id)
	s.writeMu.Unlock()
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("abandon session in channel %s: no active session: %w", channelID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("abandon session in channel %s: %w", channelID, err)
	}
	return id, nil
}

func (s *Store) clock() time.Time { return s.now().UTC() }

const selectSession = `SELECT id, channel_id, guild_id, player1_id, player1_name, player2_id, player2_name,
	config, actions, phase, message_id, revision, created_at, updated_at,
	theme, ai_level, end_reason, deadline_at, post_seq, post_due, webhook FROM matches`

// newest loads the channel's newest session and its revision.
func (s *Store) newest(ctx context.Context, channelID string) (*Session, int64, error) {
	row := s.db.QueryRowContext(ctx, selectSession+` WHERE channel_id = ? ORDER BY id DESC LIMIT 1`, channelID)
	sess, revision, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, ErrNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	return sess, revision, nil
}

// scanSession reads one row of selectSession and rebuilds its match. It
// returns sql.ErrNoRows as is, and an error wrapping ErrCorrupt for a row
// that cannot be rebuilt.
func scanSession(row interface{ Scan(...any) error }) (*Session, int64, error) {
	var (
		sess                        Session
		revision                    int64
		config, actions, phase      string
		createdAt, updatedAt        string
		p1ID, p1Name, p2ID, p2Name  string
		channelID, guildID, message string
		end, deadline, postDue      string
		webhook                     string
	)
	if err := row.Scan(&sess.ID, &channelID, &guildID, &p1ID, &p1Name, &p2ID, &p2Name,
		&config, &actions, &phase, &message, &revision, &createdAt, &updatedAt,
		&sess.Theme, &sess.AI, &end, &deadline, &sess.PostSeq, &postDue, &webhook); err != nil {
		return nil, 0, err
	}
	sess.ChannelID, sess.GuildID, sess.MessageID = channelID, guildID, message
	sess.End = End(end)
	sess.Players = [2]Member{{ID: p1ID, Name: p1Name}, {ID: p2ID, Name: p2Name}}
	sess.Phase = Phase(phase)
	corrupt := func(what string, err error) error {
		return fmt.Errorf("session %d: %s: %w: %w", sess.ID, what, ErrCorrupt, err)
	}
	if !sess.Phase.Valid() {
		return nil, 0, corrupt("phase", fmt.Errorf("unknown phase %q", phase))
	}
	var err error
	if sess.CreatedAt, err = time.Parse(timeFormat, createdAt); err != nil {
		return nil, 0, corrupt("created_at", err)
	}
	if sess.UpdatedAt, err = time.Parse(timeFormat, updatedAt); err != nil {
		return nil, 0, corrupt("updated_at", err)
	}
	if sess.Deadline, err = parseOptionalTime(deadline); err != nil {
		return nil, 0, corrupt("deadline_at", err)
	}
	if sess.PostDue, err = parseOptionalTime(postDue); err != nil {
		return nil, 0, corrupt("post_due", err)
	}
	if err := json.Unmarshal([]byte(webhook), &sess.Webhook); err != nil {
		return nil, 0, corrupt("webhook", err)
	}
	if !sess.End.Valid() {
		return nil, 0, corrupt("end_reason", fmt.Errorf("unknown end %q", end))
	}
	if err := json.Unmarshal([]byte(config), &sess.Config); err != nil {
		return nil, 0, corrupt("config", err)
	}
	var list []game.Action
	if err := json.Unmarshal([]byte(actions), &list); err != nil {
		return nil, 0, corrupt("actions", err)
	}
	if sess.Match, err = game.Replay(sess.Config, list); err != nil {
		return nil, 0, corrupt("replay", err)
	}
	if !sess.Phase.Active() && sess.End == EndNone {
		sess.settle() // a row written before sessions knew how they ended
	}
	return &sess, revision, nil
}

// encodeWebhook returns w as JSON.
func encodeWebhook(w Webhook) (string, error) {
	w.At = w.At.UTC()
	b, err := json.Marshal(w)
	if err != nil {
		return "", fmt.Errorf("encode webhook: %w", err)
	}
	return string(b), nil
}

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
	return time.Parse(timeFormat, s)
}

// encodeMatch returns the session's configuration and its match's actions as
// JSON.
func encodeMatch(sess *Session) (config, actions string, err error) {
	c, err := json.Marshal(sess.Config)
	if err != nil {
		return "", "", fmt.Errorf("encode config: %w", err)
	}
	list := sess.Match.Actions()
	if list == nil {
		list = []game.Action{}
	}
	a, err := json.Marshal(list)
	if err != nil {
		return "", "", fmt.Errorf("encode actions: %w", err)
	}
	return string(c), string(a), nil
}

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// isUniqueViolation reports whether err is SQLite refusing a row that breaks
// a UNIQUE index; in the matches table the only one is the index that allows
// one active session per channel.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

// keyedMutex is a set of mutexes, one per key, created on demand and
// dropped when nobody holds or waits for them.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyedEntry
}

type keyedEntry struct {
	sem  chan struct{} // holds one token while locked
	refs int           // holders and waiters
}

// lock locks key and returns the function that unlocks it, or ctx's error
// if ctx ends first.
func (k *keyedMutex) lock(ctx context.Context, key string) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k.mu.Lock()
	if k.m == nil {
		k.m = make(map[string]*keyedEntry)
	}
	e := k.m[key]
	if e == nil {
		e = &keyedEntry{sem: make(chan struct{}, 1)}
		k.m[key] = e
	}
	e.refs++
	k.mu.Unlock()
	select {
	case e.sem <- struct{}{}:
		return func() {
			<-e.sem
			k.release(key, e)
		}, nil
	case <-ctx.Done():
		k.release(key, e)
		return nil, ctx.Err()
	}
}

func (k *keyedMutex) release(key string, e *keyedEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e.refs--
	if e.refs == 0 {
		delete(k.m, key)
	}
}
