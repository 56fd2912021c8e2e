package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"strings"
	"sync"

	"github.com/connectn/connectn/sessions"
)

// colSet is a set of the columns of matches that Update may change, a bit
// each (the col constants). Update writes back only the columns whose
// value differs from the row's (the state its compare-and-swap checks the
// revision of), with updated_at and the revision: a move sets its
// actions, its webhook (the click's token) and its deadline, not the
// eighteen columns of a session.
type colSet uint32

// The columns of matches that Update may change, in the order updateSQL
// sets them. ID, channel, server, configuration, place, tournament and
// creation time never change (sessions.CheckChange); updated_at and
// revision are set by every Update.
const (
	colPhase colSet = 1 << iota
	colPlayer1ID
	colPlayer2ID
	colPlayer1Name
	colPlayer2Name
	colActions
	colMessage
	colTheme
	colAI
	colEnd
	colDeadline
	colPostSeq
	colPostDue
	colWebhook
	colEndedBy
	colRated
	colRatedCapped
	colRatings

	// allColumns is every column Update may change.
	allColumns = colRatings<<1 - 1
	// moveColumns are the columns a move may change (sessions.Session.Drop
	// and BotTurn: the actions, the board's message and webhook, the
	// deadline, the next board's post): a change within them writes them
	// all (see kindOf).
	moveColumns = colActions | colMessage | colDeadline | colPostSeq | colPostDue | colWebhook
)

// writes returns the columns Update writes for a change of the columns c:
// with UpdateMany (PostgreSQL), kindOf(c), so that the moves of a batch
// are one statement; else (SQLite) c itself, a statement per set of
// columns changed: a move that leaves the message, the post sequence and
// its due time as they were does not bind them, nor has SQLite store them
// again.
func (d Dialect) writes(c colSet) colSet {
	if d.UpdateMany != nil {
		return kindOf(c)
	}
	return c
}

// kindOf returns the columns Update writes for a change of the columns c
// when the moves of a batch are one statement (Dialect.UpdateMany):
// moveColumns for any change within them, so that every move is written
// by one statement (on PostgreSQL, the moves of a batch are one UPDATE per
// statement, Dialect.UpdateMany), and c itself for any other change. A
// column written unchanged is written with the value the row holds.
func kindOf(c colSet) colSet {
	if c&^moveColumns == 0 {
		return moveColumns
	}
	return c
}

// columnNames are the names of the col constants, bit by bit.
var columnNames = [...]string{"phase", "player1_id", "player2_id", "player1_name", "player2_name",
	"actions", "message_id", "theme", "ai_level", "end_reason", "deadline_at", "post_seq", "post_due",
	"webhook", "ended_by", "rated", "rated_capped", "ratings"}

// maxUpdateKinds bounds the statements prepared for the sets of columns
// Update writes (a handful occur: a move, a round's end, a match's end, a
// challenge accepted, a post recorded); a set beyond them is written with
// the statement of allColumns, which writes the same row.
const maxUpdateKinds = 64

// changedColumns returns the columns in which after differs from row, the
// session as its row holds it: the columns Update must write for the row
// to hold after. A column is left out only when its value is provably the
// one stored: strings and integers equal, times equal to the nanosecond
// (the stored precision), the webhook equal field by field, the ratings
// equal in every number (or both nil). actions is after's actions column
// as encodeActions made it (from the entry of row), compared with the
// text stored; an entry marked full (see cached) gets every column.
func changedColumns(row *cached, after *sessions.Session, actions string) colSet {
	if row.full {
		return allColumns
	}
	b := row.sess
	var c colSet
	set := func(col colSet, differs bool) {
		if differs {
			c |= col
		}
	}
	set(colPhase, after.Phase != b.Phase)
	set(colPlayer1ID, after.Players[0].ID != b.Players[0].ID)
	set(colPlayer2ID, after.Players[1].ID != b.Players[1].ID)
	set(colPlayer1Name, after.Players[0].Name != b.Players[0].Name)
	set(colPlayer2Name, after.Players[1].Name != b.Players[1].Name)
	set(colActions, actions != row.actions)
	set(colMessage, after.MessageID != b.MessageID)
	set(colTheme, after.Theme != b.Theme)
	set(colAI, after.AI != b.AI)
	set(colEnd, after.End != b.End)
	set(colDeadline, !after.Deadline.Equal(b.Deadline))
	set(colPostSeq, after.PostSeq != b.PostSeq)
	set(colPostDue, !after.PostDue.Equal(b.PostDue))
	w, v := after.Webhook, b.Webhook
	set(colWebhook, w.AppID != v.AppID || w.Token != v.Token || w.Message != v.Message || !w.At.Equal(v.At))
	set(colEndedBy, after.EndedBy != b.EndedBy)
	set(colRated, after.Rated != b.Rated)
	set(colRatedCapped, after.RatedCapped != b.RatedCapped)
	set(colRatings, !sameRatings(after.Ratings, b.Ratings))
	return c
}

// sameRatings reports whether a and b hold the same numbers (or are both
// nil); NaNs differ, so that they are written.
func sameRatings(a, b *sessions.RatingChange) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// updateArgs returns the arguments of updateSQL(c) for sess, whose
// actions column is actions, at revision of the row's session, written at
// updated (formatted): the columns of c in their order, updated_at, then
// the row's id and revision, the channel and the id again.
func updateArgs(c colSet, sess *sessions.Session, actions, updated string, revision int64) ([]any, error) {
	args := make([]any, 0, bits.OnesCount32(uint32(c))+5)
	for rest := c; rest != 0; rest &= rest - 1 {
		var v any
		switch col := rest & -rest; col {
		case colPhase:
			v = string(sess.Phase)
		case colPlayer1ID:
			v = sess.Players[0].ID
		case colPlayer2ID:
			v = sess.Players[1].ID
		case colPlayer1Name:
			v = sess.Players[0].Name
		case colPlayer2Name:
			v = sess.Players[1].Name
		case colActions:
			v = actions
		case colMessage:
			v = sess.MessageID
		case colTheme:
			v = sess.Theme
		case colAI:
			v = sess.AI
		case colEnd:
			v = string(sess.End)
		case colDeadline:
			v = formatOptionalTime(sess.Deadline)
		case colPostSeq:
			v = sess.PostSeq
		case colPostDue:
			v = formatOptionalTime(sess.PostDue)
		case colWebhook:
			w, err := encodeWebhook(sess.Webhook)
			if err != nil {
				return nil, err
			}
			v = w
		case colEndedBy:
			v = sess.EndedBy
		case colRated:
			v = boolInt(sess.Rated)
		case colRatedCapped:
			v = boolInt(sess.RatedCapped)
		case colRatings:
			r, err := encodeRatings(sess.Ratings)
			if err != nil {
				return nil, err
			}
			v = r
		}
		args = append(args, v)
	}
	return append(args, updated, sess.ID, revision, sess.ChannelID, sess.ID), nil
}

// MoveColumns returns the columns the statement of a move sets from its
// arguments (updateSQL of moveColumns, see kindOf), in their order, as
// Dialect.UpdateMany receives the set of a batch of moves.
func MoveColumns() []string { return kindOf(moveColumns).names() }

// names returns the columns updateSQL(c) sets from its arguments, in
// order: those of c, then updated_at.
func (c colSet) names() []string {
	names := make([]string, 0, bits.OnesCount32(uint32(c))+1)
	for i, name := range columnNames {
		if c&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return append(names, "updated_at")
}

// updateSQL writes a session back if it is still at the revision loaded
// and still its channel's newest: a compare-and-swap that fails (no row
// changed) when another process wrote first. It sets the columns of c,
// updated_at and the revision, and leaves every other column as the row
// holds it.
//
// Setting only what changed saves the database work of the others: SQLite
// rewrites an index whose column a statement sets, even to the same value
// (matches_one_active_per_channel, whose condition reads the phase,
// matches_by_challenger, matches_by_opponent, matches_rated_pairs,
// matches_ended_by), and checks the CHECK constraints of the columns set;
// every argument is bound (copied into the C library's memory by
// modernc.org/sqlite) and, on PostgreSQL, sent over the network. A move
// sets four columns of the eighteen.
//
// Its arguments: the values of the columns of c in their order (see
// names), updated_at, then the row's id and revision, the channel and the
// id again.
func updateSQL(c colSet) string {
	var b strings.Builder
	b.WriteString("UPDATE matches SET ")
	for _, name := range c.names() {
		b.WriteString(name)
		b.WriteString(" = ?, ")
	}
	b.WriteString(`revision = revision + 1
	WHERE id = ? AND revision = ?
	AND NOT EXISTS (SELECT 1 FROM matches newer WHERE newer.channel_id = ? AND newer.id > ?)`)
	return b.String()
}

// updateStmt is updateSQL(c) of one colSet c, prepared.
type updateStmt struct {
	stmt *sql.Stmt
	text string   // rebound, for Dialect.Pipeline
	set  []string // c.names(), for Dialect.UpdateMany
}

// updates holds the prepared updateSQL of the sets of columns met so far,
// up to maxUpdateKinds of them.
type updates struct {
	mu sync.Mutex
	m  map[colSet]*updateStmt
}

// update returns the prepared statement that writes the columns of c: its
// own, prepared on first use, or once maxUpdateKinds are prepared (or
// preparing fails) the one of allColumns, prepared by New.
func (s *Store) update(ctx context.Context, c colSet) *updateStmt {
	s.updates.mu.Lock()
	u := s.updates.m[c]
	full := len(s.updates.m) >= maxUpdateKinds
	s.updates.mu.Unlock()
	switch {
	case u != nil:
		return u
	case full:
		return s.fullUpdate
	}
	u, err := s.prepareUpdate(ctx, c)
	if err != nil {
		return s.fullUpdate
	}
	s.updates.mu.Lock()
	defer s.updates.mu.Unlock()
	if old := s.updates.m[c]; old != nil {
		_ = u.stmt.Close() // prepared meanwhile by another Update
		return old
	}
	if len(s.updates.m) >= maxUpdateKinds {
		_ = u.stmt.Close()
		return s.fullUpdate
	}
	s.updates.m[c] = u
	return u
}

// prepareUpdate prepares updateSQL(c).
func (s *Store) prepareUpdate(ctx context.Context, c colSet) (*updateStmt, error) {
	text := s.d.Rebind(updateSQL(c))
	stmt, err := s.db.PrepareContext(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("prepare UPDATE: %w", err)
	}
	return &updateStmt{stmt: stmt, text: text, set: c.names()}, nil
}
