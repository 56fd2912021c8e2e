package sessions

import (
	"context"
	"errors"
	"time"

	"github.com/connectn/connectn/game"
)

// The lifecycle of a session, as functions of (session, policy, now): a
// challenge is opened (Open), accepted (Accept) or declined (Decline), or
// expires (Expire); a match is played disc by disc (Drop), by the bot too
// (BotTurn, through a Mover), forfeited (CanForfeit, Forfeit) or lost on
// time (Expire); its board is posted again (Repost) and its board
// messages are followed (ClaimPost, PostDone, PostGivenUp, LearnMessage);
// a finished match is played again (Rematch). Each either changes the
// session it is given and returns a typed outcome, or returns a *Refusal
// (the user's action is refused, nothing changed) or one of the sentinel
// errors below. They are meant to run inside Store.Update, which writes
// the change or, on an error, nothing; they do no I/O but the Mover's.

// Sentinel errors of the lifecycle, for its callers to test with
// errors.Is.
var (
	// ErrOver means a button of a session that has ended was clicked (a
	// client showing old buttons, or a message that missed the edit of
	// its end): the message should show how the session ended.
	ErrOver = errors.New("session over")
	// ErrNothingDue means there was nothing to do after all (the work was
	// done by someone else, or is not due yet): Store.Update writes
	// nothing.
	ErrNothingDue = errors.New("nothing due")
)

// Policy holds the rules of time a session follows. The zero value is not
// useful; start from DefaultPolicy.
type Policy struct {
	// ChallengeTimeout is how long a challenge waits for an answer.
	ChallengeTimeout time.Duration
	// TurnTimeout is how long a player has for a turn.
	TurnTimeout time.Duration
	// PostGrace is how long a board post waits for the response that
	// announced it to be delivered (the transport then posts it at once)
	// before the scheduler posts it anyway.
	PostGrace time.Duration
	// PostLease is how long a board post under way keeps others (the
	// scheduler, another process) from trying it too; a post that failed
	// is tried again once the lease ends.
	PostLease time.Duration
}

// Default timeouts of DefaultPolicy.
const (
	DefaultChallengeTimeout = 5 * time.Minute
	DefaultTurnTimeout      = 5 * time.Minute
	DefaultPostGrace        = 5 * time.Second
	DefaultPostLease        = 30 * time.Second
)

// DefaultPolicy returns five minutes for a challenge and for a turn, five
// seconds of grace and thirty of lease for a board post.
func DefaultPolicy() Policy {
	return Policy{ChallengeTimeout: DefaultChallengeTimeout, TurnTimeout: DefaultTurnTimeout,
		PostGrace: DefaultPostGrace, PostLease: DefaultPostLease}
}

// BotSide is the bot's side in a match against it: always the opponent,
// game.Player2; the challenge's first option decides who opens.
const BotSide = game.Player2

// Mover chooses the bot's move in m at level (Session.AI) within ctx: the
// column, from 0, for the player to move. The bot's engine stands behind
// it; the lifecycle only calls it.
type Mover func(ctx context.Context, m *game.Match, level string) (column int, err error)

// Bot is how the bot takes its turns: its Mover and the time each move
// may take. A zero Bot (no Mover) cannot move.
type Bot struct {
	Move   Mover
	Budget time.Duration
}

// ErrNoBot means the bot was to move but has no Mover.
var ErrNoBot = errors.New("the bot cannot play: no mover")

// Expiry names the deadline that ended a session: a challenge nobody
// answered, or a turn nobody played.
type Expiry string

// The deadlines Expire acts on; ExpiryNone when none has passed.
const (
	ExpiryNone      Expiry = ""
	ExpiryChallenge Expiry = "challenge"
	ExpiryTurn      Expiry = "turn"
)

// BotToMove reports whether it is the bot's turn in s: a match against
// the bot, being played, with BotSide to move.
func (s *Session) BotToMove() bool {
	return s.AI != "" && s.Phase == PhasePlaying && s.Match.ToMove() == BotSide
}

// DeadlineAt returns when s expires under p: its Deadline, or for a
// session stored before deadlines existed, its last change plus the
// timeout of its phase.
func (s *Session) DeadlineAt(p Policy) time.Time {
	if !s.Deadline.IsZero() {
		return s.Deadline
	}
	p = s.Place.policy(p)
	if s.Phase == PhaseChallenge {
		return s.UpdatedAt.Add(p.ChallengeTimeout)
	}
	return s.UpdatedAt.Add(p.TurnTimeout)
}

// policy returns p with the timeouts the place's server set (non-zero
// ChallengeTimeout and TurnTimeout) in place of p's.
func (pl Place) policy(p Policy) Policy {
	if pl.ChallengeTimeout > 0 {
		p.ChallengeTimeout = pl.ChallengeTimeout
	}
	if pl.TurnTimeout > 0 {
		p.TurnTimeout = pl.TurnTimeout
	}
	return p
}

// Expire ends s if its deadline has passed at now: a challenge is
// cancelled as expired, a match is forfeited by the player to move, as a
// timeout. The bot's turn never runs out (the scheduler plays it). It
// returns the deadline that fired, ExpiryNone when none did.
func (s *Session) Expire(now time.Time, p Policy) Expiry {
	if !s.Phase.Active() || now.Before(s.DeadlineAt(p)) || s.BotToMove() {
		return ExpiryNone
	}
	if s.Phase == PhaseChallenge {
		s.Phase, s.End = PhaseCancelled, EndExpired
		return ExpiryChallenge
	}
	if err := s.Match.Forfeit(s.Match.ToMove()); err != nil {
		return ExpiryNone // only a match already over refuses; the store settles it
	}
	s.Phase, s.End = PhaseFinished, EndTimeout
	return ExpiryTurn
}

// Touch checks that a click on a button of session match may act on s at
// now, and settles a deadline that has passed first. It returns the
// refusal ReasonStale when s is another session, ErrOver when s has ended,
// and, when a deadline has just ended s, that Expiry: then the click must
// not act, and the session (settled) is to be written.
func (s *Session) Touch(match int64, now time.Time, p Policy) (Expiry, error) {
	if s.ID != match {
		return ExpiryNone, Refuse(ReasonStale)
	}
	if !s.Phase.Active() {
		return ExpiryNone, ErrOver
	}
	return s.Expire(now, p), nil
}
