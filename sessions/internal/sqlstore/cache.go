package sqlstore

import (
	"context"
	"strings"
	"sync"

	"github.com/connectn/connectn/sessions"
)

// cached is one decoded session at one revision of its row. Its session is
// never handed out nor changed: loads get a Clone.
type cached struct {
	revision int64
	sess     *sessions.Session
	actions  string // the actions column as stored at this revision
	// full is set when sess differs from the row it was read from (decode
	// settled it): Update then writes every column (see changedColumns).
	full bool
	// over numbers the entry in the cache's queue of sessions that are
	// over (see cache.over); 0 for an active session.
	over uint64
}

// cache keeps decoded sessions by ID, so that loading a session at a
// revision already seen costs a clone instead of JSON decoding and a
// replay of every move. It trusts the revision: a row changed without
// increasing its revision (by hand, say) is not seen until the entry is
// evicted or the process restarts. When full, an arbitrary entry makes
// room (Go's map order), which keeps it simple and, for the sessions being
// played, enough.
//
// A session that is over (finished or cancelled) is kept only among the
// last max/16 put so: what follows a match's end (the record's edits, a
// rematch, the next challenge in its channel) comes soon after it, and a
// bot that has played many matches keeps in memory those being played,
// not those played (at 50 busy matches the cache held 4,096 sessions,
// nearly all over; docs/load.md).
//
// It also knows, by channel, the newest session it holds, so that Update
// can try its compare-and-swap on the cached state without reading the
// row first (see Store.Update).
type cache struct {
	mu  sync.Mutex
	max int
	m   map[int64]*cached
	// over is a ring of the entries put with a session that is over,
	// oldest at overNext once full; an entry replaced since (its over
	// number differs) is passed over when its turn to go comes.
	over     []overEntry
	overNext int
	overSeq  uint64
	channels map[string]int64 // channel ID -> the highest session ID cached in it
	// contended holds the channels whose last write from the cached state
	// lost to another process, and that have not been seen calm since:
	// their Updates read the row first (two replicas taking turns at a
	// match's clicks would otherwise pay for a lost try every time).
	contended map[string]bool
}

// overEntry is a place in cache.over.
type overEntry struct {
	id  int64
	seq uint64
}

func newCache(size int) *cache {
	c := &cache{max: size, m: make(map[int64]*cached), channels: make(map[string]int64), contended: make(map[string]bool)}
	if size > 0 {
		c.over = make([]overEntry, 0, max(1, size/16))
	}
	return c
}

// setContended records whether channel's writes meet another process's:
// true when a write from the cached state lost, false when a read found
// the row at the revision cached.
func (c *cache) setContended(channel string, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !on {
		delete(c.contended, channel)
		return
	}
	if _, ok := c.channels[channel]; ok && !c.contended[channel] {
		c.contended[strings.Clone(channel)] = true // not the caller's memory (see sessions.Session.CloneOwned)
	}
}

// newest returns the entry of the newest session cached in channel, or nil,
// and whether the channel is contended (see setContended). The row may have
// moved on since (another process wrote it, or created a newer session in
// the channel): callers check with the revision.
func (c *cache) newest(channel string) (e *cached, contended bool) {
	if c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.channels[channel]
	if !ok {
		return nil, false
	}
	return c.m[id], c.contended[channel]
}

// get returns the entry of session id at revision, or nil.
func (c *cache) get(id, revision int64) *cached {
	if c.max <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[id]; e != nil && e.revision == revision {
		return e
	}
	return nil
}

// any returns the entry of session id at whatever revision it holds, or
// nil.
func (c *cache) any(id int64) *cached {
	if c.max <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[id]
}

// put stores e as session id's entry.
func (c *cache) put(id int64, e *cached) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[id]; !ok && len(c.m) >= c.max {
		for k := range c.m {
			c.remove(k)
			break
		}
	}
	if p := e.sess.Phase; p == sessions.PhaseFinished || p == sessions.PhaseCancelled {
		c.overSeq++
		e.over = c.overSeq
		o := overEntry{id: id, seq: e.over}
		if len(c.over) < cap(c.over) {
			c.over = append(c.over, o)
		} else {
			old := c.over[c.overNext]
			if x := c.m[old.id]; x != nil && x.over == old.seq {
				c.remove(old.id)
			}
			c.over[c.overNext] = o
			c.overNext = (c.overNext + 1) % len(c.over)
		}
	}
	c.m[id] = e
	if ch := e.sess.ChannelID; id >= c.channels[ch] {
		c.channels[ch] = id
	}
}

// drop forgets session id.
func (c *cache) drop(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remove(id)
}

// remove forgets session id; c.mu is held.
func (c *cache) remove(id int64) {
	e := c.m[id]
	if e == nil {
		return
	}
	delete(c.m, id)
	if ch := e.sess.ChannelID; c.channels[ch] == id {
		delete(c.channels, ch)
		delete(c.contended, ch)
	}
}

// len returns the number of entries, for tests.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
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

// waiters returns how many callers wait for key now, not counting the one
// holding it.
func (k *keyedMutex) waiters(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	e := k.m[key]
	if e == nil {
		return 0
	}
	return e.refs - len(e.sem)
}

func (k *keyedMutex) release(key string, e *keyedEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e.refs--
	if e.refs == 0 {
		delete(k.m, key)
	}
}
