package sessions

import (
	"errors"
	"fmt"
	"time"

	"github.com/connectn/connectn/game"
)

// Sentinel errors returned (wrapped with the channel or session concerned)
// by the Store. Check them with errors.Is.
var (
	// ErrNotFound means the channel has no session at all (Get, Update), or
	// no active one (Abandon).
	ErrNotFound = errors.New("no session in this channel")
	// ErrActiveSession means the channel already has a challenge or a match
	// in progress, so another one cannot start there.
	ErrActiveSession = errors.New("channel already has a challenge or match in progress")
	// ErrInvalidSession means a session passed to Create, or left by an
	// Update function, breaks a rule: an empty channel ID, a player without
	// an ID, the same member on both sides, an unknown phase, an invalid
	// configuration, a match whose configuration differs from Config, or
	// (in Update) a nil match or a change to ID, ChannelID, GuildID, Config
	// or CreatedAt.
	ErrInvalidSession = errors.New("invalid session")
	// ErrCorrupt means a stored row cannot be turned back into a session:
	// its configuration or actions are not valid JSON, its actions no
	// longer replay (the game error is wrapped too), or a timestamp or
	// phase is unreadable. Abandon is the way out for such a row.
	ErrCorrupt = errors.New("corrupt session record")
	// ErrConflict means the session row changed under Update between
	// loading it and writing it back. Within one Store that cannot happen;
	// it means another process writes to the same database file. Nothing
	// was written; the caller may retry.
	ErrConflict = errors.New("session changed concurrently")
)

// Phase is where a session stands in its life: a challenge, a match being
// played, or over.
type Phase string

// The phases of a session. A session starts as a challenge (or directly as
// playing, for a match against the bot), and ends finished or cancelled.
const (
	// PhaseChallenge means the challenge is posted and waits for the
	// opponent to accept or decline.
	PhaseChallenge Phase = "challenge"
	// PhasePlaying means the match is being played.
	PhasePlaying Phase = "playing"
	// PhaseFinished means the match is over, by a win or a forfeit.
	PhaseFinished Phase = "finished"
	// PhaseCancelled means the challenge was declined (or expired, or the
	// session was abandoned) before the match ended.
	PhaseCancelled Phase = "cancelled"
)

// Active reports whether p is PhaseChallenge or PhasePlaying: a channel can
// hold only one session in an active phase.
func (p Phase) Active() bool { return p == PhaseChallenge || p == PhasePlaying }

// Valid reports whether p is one of the four phases.
func (p Phase) Valid() bool { return p.Active() || p == PhaseFinished || p == PhaseCancelled }

// Member is a Discord user taking part in a session.
type Member struct {
	// ID is the Discord user ID (a snowflake as text); never empty in a
	// stored session.
	ID string
	// Name is the display name shown on the board; it may be empty.
	Name string
}

// Session is one challenge and match in one Discord channel. Values returned
// by the Store are fresh copies owned by the caller: changing one changes
// nothing stored; only Update writes.
type Session struct {
	// ID identifies the session among all sessions of all channels. Create
	// assigns it, from 1 upwards, and never reuses one, even after the
	// session ends, so it can go into button custom_ids.
	ID int64
	// ChannelID is the Discord channel the session lives in; never empty.
	ChannelID string
	// GuildID is the Discord server; empty for a direct message.
	GuildID string
	// Players are the two members: Players[0] is game.Player1 (the
	// challenger), Players[1] is game.Player2 (the opponent).
	Players [2]Member
	// Config is the match configuration, fixed at creation.
	Config game.Config
	// Match is the match, built from Config by the caller at challenge
	// time. It is stored as Config plus Match.Actions() and rebuilt with
	// game.Replay on load.
	Match *game.Match
	// Phase is where the session stands.
	Phase Phase
	// MessageID is the Discord message the board lives on, "" until known.
	MessageID string
	// CreatedAt and UpdatedAt come from the Store's clock, in UTC.
	// CreatedAt is set by Create; UpdatedAt by Create and every Update.
	CreatedAt, UpdatedAt time.Time
}

// PlayerOf returns game.Player1 or game.Player2 for the member with the
// given Discord user ID, and game.NoPlayer when userID is empty or belongs
// to neither player.
func (s *Session) PlayerOf(userID string) game.Player {
	switch {
	case userID == "":
		return game.NoPlayer
	case userID == s.Players[0].ID:
		return game.Player1
	case userID == s.Players[1].ID:
		return game.Player2
	}
	return game.NoPlayer
}

// Member returns the member playing p, or the zero Member when p is not
// game.Player1 or game.Player2.
func (s *Session) Member(p game.Player) Member {
	if !p.Valid() {
		return Member{}
	}
	return s.Players[p-1]
}

// normalConfig fills in the defaults game.NewMatch fills in, so that a
// Config and the Config() of the match built from it compare equal.
func normalConfig(c game.Config) game.Config {
	if c.FirstOpener == game.NoPlayer {
		c.FirstOpener = game.Player1
	}
	return c
}

// validate checks the rules every stored session obeys. It returns an error
// wrapping ErrInvalidSession.
func (s *Session) validate() error {
	switch {
	case s.ChannelID == "":
		return fmt.Errorf("empty channel id: %w", ErrInvalidSession)
	case s.Players[0].ID == "" || s.Players[1].ID == "":
		return fmt.Errorf("player without a user id: %w", ErrInvalidSession)
	case s.Players[0].ID == s.Players[1].ID:
		return fmt.Errorf("user %s on both sides: %w", s.Players[0].ID, ErrInvalidSession)
	case !s.Phase.Valid():
		return fmt.Errorf("unknown phase %q: %w", s.Phase, ErrInvalidSession)
	case s.Match == nil:
		return fmt.Errorf("nil match: %w", ErrInvalidSession)
	case s.Match.Config() != normalConfig(s.Config):
		return fmt.Errorf("match configuration %+v differs from session configuration %+v: %w", s.Match.Config(), s.Config, ErrInvalidSession)
	}
	return nil
}

// settle moves an active session whose match is over to PhaseFinished.
func (s *Session) settle() {
	if s.Phase.Active() && s.Match != nil && s.Match.Over() {
		s.Phase = PhaseFinished
	}
}
