package outbox

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/connectn/connectn/sessions"
)

// threadArchiveDelay is how long after its match ends the bot archives a
// thread it opened for it.
const threadArchiveDelay = 5 * time.Minute

// archives are the threads the bot opened whose match has ended, with when
// to archive them. The plan lives in memory: after a restart, Discord's
// auto-archive (threadAutoArchive) closes a thread the bot forgot.
type archives struct {
	mu  sync.Mutex
	due map[string]time.Time // thread channel ID → when
}

// plan archives the thread of s, a match over in a thread the bot
// opened, threadArchiveDelay after it ended (s.UpdatedAt), and returns
// when.
func (a *archives) plan(s *sessions.Session) time.Time {
	at := s.UpdatedAt.Add(threadArchiveDelay)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.due == nil {
		a.due = map[string]time.Time{}
	}
	if _, ok := a.due[s.ChannelID]; !ok {
		a.due[s.ChannelID] = at
	}
	return at
}

// take removes and returns the threads due at now.
func (a *archives) take(now time.Time) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for id, at := range a.due {
		if !now.Before(at) {
			out = append(out, id)
			delete(a.due, id)
		}
	}
	return out
}

// ArchiveDue archives the threads whose match ended threadArchiveDelay ago
// or more, unless a new challenge or match (a rematch) is under way in
// one. The scheduler calls it at every sweep.
func (b *Boards) ArchiveDue(ctx context.Context) {
	for _, id := range b.archives.take(b.Clock.Now()) {
		s, err := b.Store.Get(ctx, id)
		switch {
		case err != nil && !errors.Is(err, sessions.ErrNotFound):
			b.Log.Warn("reading a thread's session before archiving it", "channel", id, "err", err)
			continue
		case err == nil && s.Phase.Active():
			continue // a rematch: its own end plans the archive again
		}
		if b.Messenger == nil {
			continue
		}
		if err := b.Messenger.ArchiveThread(ctx, id); err != nil {
			b.Log.Warn("archiving a thread", "channel", id, "err", RESTErrorText(err))
			continue
		}
		b.Log.Info("thread archived", "channel", id)
	}
}
