// Package sessions keeps one Connect N session per Discord channel and
// persists every session in SQLite (modernc.org/sqlite, pure Go, through
// database/sql).
//
// A Session is a challenge followed by a match between two members. Each
// session is one row of the matches table, identified by an ID that is never
// reused: a channel holds at most one active session (PhaseChallenge or
// PhasePlaying) at a time, which the database itself enforces with a partial
// unique index, and any number of finished or cancelled ones kept as
// history. A match is stored as its game.Config and its list of
// game.Actions, never as a board; loading a session rebuilds the match with
// game.Replay.
//
// Usage:
//
//	st, err := sessions.Open(ctx, "data/connectn.db")
//	if err != nil { ... }
//	defer st.Close()
//
//	m, _ := game.NewMatch(cfg)
//	s, err := st.Create(ctx, &sessions.Session{ChannelID: ch, Players: [2]sessions.Member{a, b}, Config: cfg, Match: m})
//	if errors.Is(err, sessions.ErrActiveSession) { ... } // a challenge or match is already running there
//
//	s, err = st.Update(ctx, ch, func(s *sessions.Session) error {
//		if s.ID != idFromButton || s.Match.Plies() != pliesFromButton {
//			return errStaleButton // nothing is written
//		}
//		_, err := s.Match.Play(s.PlayerOf(userID), column)
//		return err // game.ErrNotYourTurn etc. come back unchanged
//	})
//
// Update is the only way to change a session. Calls for one channel are
// serialised by a per-channel lock, so two clicks on the same board never
// both apply to the same state; calls for different channels never wait for
// each other's fn. The function runs outside any database transaction, and
// its result is written with a single compare-and-swap statement on a
// revision counter, so a second process writing to the same file is
// detected (ErrConflict) rather than overwritten.
//
// Get returns a channel's newest session, active or not, so a finished match
// stays visible until the next Create; History lists the older ones. A row
// that no longer replays is reported as ErrCorrupt, never a panic, and
// Abandon cancels it without reading it so the channel can be used again.
//
// Timestamps come from the clock given with WithClock (time.Now by default),
// are kept in UTC and are stored as fixed-width RFC 3339 text with
// nanoseconds ("2006-01-02T15:04:05.000000000Z"), which sorts the same way as
// the times it encodes.
package sessions
