package sqlstore

import (
	"context"
	"time"

	"github.com/connectn/connectn/sessions"
)

// reader gathers the reads of channels' newest sessions that arrive
// together into one statement (Dialect.NewestMany), as batcher gathers
// writes: while one read is in flight, the reads that arrive wait, and the
// next leader reads them all at once. On PostgreSQL a read is a round
// trip, and with two replicas taking turns at a match's clicks every move
// reads its match's row (the replica's memory of it is a move behind);
// reading many channels in one statement costs the server and the
// database one round trip, one transaction and one executor start for all
// of them. A read alone is made as before, with its own statement.
type reader struct{ gatherer[*readReq] }

// readReq is one read waiting in reader.
type readReq struct {
	ctx     context.Context
	channel string
	sess    *sessions.Session
	entry   *cached
	err     error
	done    chan bool // receives true: lead the next batch; false: the result is set
}

// turn implements gatherer's constraint.
func (r *readReq) turn() chan bool { return r.done }

// readBatchTimeout bounds a gathered read, which runs under no single
// caller's context.
const readBatchTimeout = 10 * time.Second

// readTogether is newest through the reader.
func (s *Store) readTogether(ctx context.Context, channelID string) (*sessions.Session, *cached, error) {
	r := &readReq{ctx: ctx, channel: channelID, done: make(chan bool, 1)}
	s.reader.join(r, s.readBatch)
	return r.sess, r.entry, r.err
}

// readBatch sets the result of every read of batch: one alone with its own
// statement, several with one NewestMany. When that fails (or a row cannot
// be decoded), each is read alone, so that each read's outcome is its own.
func (s *Store) readBatch(batch []*readReq) {
	if len(batch) == 1 {
		r := batch[0]
		r.sess, r.entry, r.err = s.newestOne(r.ctx, r.channel)
		return
	}
	if s.readMany(batch) {
		return
	}
	for _, r := range batch {
		r.sess, r.entry, r.err = s.newestOne(r.ctx, r.channel)
	}
}

// readMany reads the newest session of every channel of batch in one
// statement and reports whether it could; a channel without a session
// gets ErrNotFound. A read whose context has ended gets its error.
func (s *Store) readMany(batch []*readReq) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(batch[0].ctx), readBatchTimeout)
	defer cancel()
	channels := make([]string, 0, len(batch))
	seen := make(map[string]bool, len(batch))
	for _, r := range batch {
		if !seen[r.channel] {
			seen[r.channel] = true
			channels = append(channels, r.channel)
		}
	}
	rows, err := s.st.newestMany.QueryContext(ctx, channels)
	if err != nil {
		return false
	}
	defer rows.Close()
	found := make(map[string]*cached, len(channels))
	for rows.Next() {
		_, e, err := s.scan(rows)
		if err != nil {
			return false
		}
		found[e.sess.ChannelID] = e
	}
	if rows.Err() != nil || rows.Close() != nil {
		return false
	}
	for _, r := range batch {
		if r.err = r.ctx.Err(); r.err != nil {
			continue
		}
		e := found[r.channel]
		if e == nil {
			r.err = sessions.ErrNotFound
			continue
		}
		r.sess, r.entry = e.sess.Clone(), e
	}
	return true
}
