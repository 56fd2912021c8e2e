package sessions

import "time"

// Repost makes the live board of s a new message, posted by the response
// to the interaction hook: the older board messages' buttons then answer
// where the board went. A deadline that has passed is settled first (the
// Expiry returned, nothing else changed). It refuses ReasonNoMatch unless
// a match is being played.
func (s *Session) Repost(hook Webhook, now time.Time, p Policy) (Expiry, error) {
	if e := s.Expire(now, p); e != ExpiryNone {
		return e, nil
	}
	if s.Phase != PhasePlaying {
		return ExpiryNone, Refuse(ReasonNoMatch)
	}
	s.PostSeq++
	s.PostDue = time.Time{} // a board still to post is this one
	s.MessageID = ""
	s.Webhook = hook
	return ExpiryNone, nil
}

// Duty is the work the scheduler finds due in a session.
type Duty int

// The duties of Due.
const (
	// DutyNone: nothing is due.
	DutyNone Duty = iota
	// DutyExpired: a deadline passed and ended the session (written).
	DutyExpired
	// DutyBot: the bot's turn is due, to be played with BotTurn in an
	// update of its own.
	DutyBot
	// DutyPost: the board still to post is claimed for the caller to post
	// (PostDue moved to the end of the lease; written).
	DutyPost
)

// Due finds what is due in s at now, in order: a deadline that has passed
// (settled, with its Expiry), the bot's turn, or a board still to post
// (claimed for PostLease). The caller writes s for DutyExpired and
// DutyPost, and nothing otherwise.
func (s *Session) Due(now time.Time, p Policy) (Duty, Expiry) {
	if e := s.Expire(now, p); e != ExpiryNone {
		return DutyExpired, e
	}
	if s.BotToMove() && !now.Before(s.DeadlineAt(p)) {
		return DutyBot, ExpiryNone
	}
	if s.Phase.Active() && !s.PostDue.IsZero() && !now.Before(s.PostDue) {
		s.PostDue = now.Add(p.PostLease)
		return DutyPost, ExpiryNone
	}
	return DutyNone, ExpiryNone
}

// ClaimPost claims the board that session match still has to post, for
// PostLease, as the work after the response that announced it does,
// unless someone else claimed it or it was posted: then it returns
// ErrNothingDue.
func (s *Session) ClaimPost(match int64, now time.Time, p Policy) error {
	if s.ID != match || !s.Phase.Active() || s.PostDue.IsZero() || s.PostDue.After(now.Add(p.PostGrace)) {
		return ErrNothingDue
	}
	s.PostDue = now.Add(p.PostLease)
	return nil
}

// PostDone records that board post seq of session match is message
// messageID, reached through hook; ErrNothingDue when the session or its
// board moved on meanwhile.
func (s *Session) PostDone(match int64, seq int, messageID string, hook Webhook) error {
	if s.ID != match || s.PostSeq != seq {
		return ErrNothingDue
	}
	s.MessageID, s.Webhook, s.PostDue = messageID, hook, time.Time{}
	return nil
}

// PostInResponse records that the board post a round's end made due
// (Drop's Played.RoundEnded) is the response to the interaction of
// s.Webhook, the click that ended the round, rather than a follow-up:
// its message is that interaction's @original, which its token reaches
// and reads without a bot token. PostDue stays, so that a response that
// never reached Discord is made good by the scheduler after
// Policy.PostGrace; whoever claims the post then finds the message
// through @original first (or learns Discord has no response) and posts
// nothing twice, and a click on the board (Drop) clears it. It returns
// ErrNothingDue when no post is due or s has no interaction token.
func (s *Session) PostInResponse() error {
	if !s.Phase.Active() || s.PostDue.IsZero() || s.Webhook.Token == "" {
		return ErrNothingDue
	}
	s.Webhook.Message = "@original"
	return nil
}

// PostGivenUp records that board post seq of session match will not be
// posted (the channel cannot be reached); ErrNothingDue when the session or
// its board moved on meanwhile.
func (s *Session) PostGivenUp(match int64, seq int) error {
	if s.ID != match || s.PostSeq != seq {
		return ErrNothingDue
	}
	s.PostDue = time.Time{}
	return nil
}

// PostLater makes board post seq of session match due again at at (the
// scheduler claims it then), after tries that were given up for a cause
// that may pass; ErrNothingDue when the session or its board moved on, or
// the post is no longer due.
func (s *Session) PostLater(match int64, seq int, at time.Time) error {
	if s.ID != match || s.PostSeq != seq || s.PostDue.IsZero() {
		return ErrNothingDue
	}
	s.PostDue = at
	return nil
}

// PostSeen records that board post seq of session match was made though
// the bot never got Discord's answer: the players have played on it. Its
// message ID stays unknown. ErrNothingDue when the session or its board
// moved on to another post meanwhile.
func (s *Session) PostSeen(match int64, seq int) error {
	if s.ID != match || s.PostSeq != seq {
		return ErrNothingDue
	}
	s.PostDue = time.Time{}
	return nil
}

// LearnMessage records messageID as the message of board post seq of
// session match, unless the session or its board moved on, or a message
// was recorded since (ErrNothingDue).
func (s *Session) LearnMessage(match int64, seq int, messageID string) error {
	if s.ID != match || s.PostSeq != seq || s.MessageID != "" {
		return ErrNothingDue
	}
	s.MessageID = messageID
	return nil
}
