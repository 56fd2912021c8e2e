// Package sessions is the domain of Connect N sessions in Discord channels
// and the contract of the stores that keep them: Session (a challenge
// followed by a match between two members), its Phase and End, the
// Webhook that reaches its board, Stats and PairRecord, MemberRating and
// RatingChange (a member's rating, what a rated match did to two:
// ratings.go), GuildSettings (a server's own settings) and ForgetCounts,
// the sentinel errors, and Store, whose doc comments are the contract
// every backend meets. The lifecycle of a session (lifecycle.go: Open, Accept, Decline,
// Drop, BotTurn, Forfeit, Expire, Repost, Rematch, Due and the board
// posts) is functions of (session, Policy, now) that return typed outcomes,
// or a *Refusal (refusal.go: a declared Reason and its arguments, which
// the bot renders through the catalog) for an action the user may not
// take; they need no Discord and no store, and run inside Store.Update.
// A tournament (tournament.go: Tournament over the rules of package
// tournament; NewTournament, Join, Leave, Start, Pause, Resume, End and
// Step, which pairs the next round once) is kept by a TournamentStore
// (tournament_store.go), which both backends are, and runs inside its
// UpdateTournament. The result card of a finished match, shared in its
// channel at a player's ask, is recorded by a CardStore (cards.go), so
// that it is posted once per match. The backends live beside it: sessions/sqlite (one file, the
// default) and sessions/postgres (one database shared by many processes);
// sessions/sessionstest is the suite both pass.
//
// A session is identified by an ID that is never reused: a channel holds
// at most one active session (PhaseChallenge or PhasePlaying) at a time,
// which the database itself enforces, and any number of finished or
// cancelled ones kept as history. A match is stored as its game.Config and
// its list of game.Actions, never as a board; loading a session rebuilds
// the match with game.Replay, or clones the copy a Store keeps decoded for
// the row's current revision.
//
// Usage:
//
//	st, err := sqlite.Open(ctx, "data/connectn.db") // or postgres.Open(ctx, "postgres://...")
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
// Update is the only way to change a session (but for Forget, which removes
// every row that names a member). Calls for one channel are
// serialised by a per-channel lock within a process and by a
// compare-and-swap on the row's revision across processes; a call that
// lost the race to another process runs its function again on the state
// the winner left (see Store.Update), so two clicks on the same board never
// both apply, and neither is lost.
//
// Timestamps come from the clock given with WithClock (time.Now by
// default), are kept in UTC and are stored as fixed-width RFC 3339 text
// with nanoseconds ("2006-01-02T15:04:05.000000000Z"), which sorts the same
// way as the times it encodes.
package sessions
