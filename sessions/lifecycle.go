package sessions

import (
	"context"
	"errors"
	"fmt"
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

// PlayUnrated marks s, a rated match about to start, as played unrated
// because its two members reached RatedPerDay rated matches with each
// other today (RatedCapped). It does nothing to an unrated one.
func (s *Session) PlayUnrated() {
	if s.Rated {
		s.Rated, s.RatedCapped = false, true
	}
}

// OpenSeat is the user ID of an open challenge's second seat until a
// member accepts it (Place.Open).
const OpenSeat = "open"

// EndBy ends the active session s without a result, as moderator userID
// asked (EndEnded, EndedBy): nothing counts in the stats. It refuses
// ReasonNothingToEnd when s is not active.
func (s *Session) EndBy(userID string) error {
	if !s.Phase.Active() {
		return Refuse(ReasonNothingToEnd)
	}
	s.Phase, s.End, s.EndedBy = PhaseCancelled, EndEnded, userID
	s.Deadline, s.PostDue = time.Time{}, time.Time{}
	return nil
}

// Leave takes member userID out of the active session s, as forgetting
// them asks: a match they play is forfeited by them (the other player
// wins it), a challenge they made is withdrawn and one made to them
// declined. It returns ErrOver when s is not active and
// ReasonNotYourMatch when they do not play in it.
func (s *Session) Leave(userID string) error {
	switch {
	case !s.Phase.Active():
		return ErrOver
	case s.PlayerOf(userID) == game.NoPlayer:
		return Refuse(ReasonNotYourMatch)
	case s.Phase == PhaseChallenge:
		if s.Players[1].ID == OpenSeat {
			s.Phase, s.End = PhaseCancelled, EndWithdrawn
			return nil
		}
		return s.Decline(userID)
	}
	return s.Forfeit(userID)
}

// Challenge is what a member asks for with a challenge: who plays whom,
// on which board, in which theme, and where.
type Challenge struct {
	ChannelID, GuildID string
	// Challenger and Opponent are the players: Players[0] and Players[1].
	Challenger, Opponent Member
	// OpponentIsBot is set when Opponent is a bot account; only this bot
	// (AI set) can play.
	OpponentIsBot bool
	// AI is the bot's level when the opponent is this bot, "" otherwise.
	AI string
	// Config is the match's configuration.
	Config game.Config
	// Theme names the board's emoji set.
	Theme string
	// Webhook is the interaction that asked: its response is the
	// challenge (or, against the bot, the board).
	Webhook Webhook
	// Place is where the match is played.
	Place Place
	// Rated asks for a rated match; Open keeps it only on the standard
	// board (Rateable) between two members.
	Rated bool
}

// Open returns the new session c asks for, to be stored with
// Store.Create: a challenge that waits for the opponent until
// ChallengeTimeout, or, against the bot (c.AI set), a match being played
// whose first turn runs out after TurnTimeout (the bot, when it opens,
// moves with BotTurn before the session is stored). It refuses
// ReasonSelfChallenge, ReasonBotOpponent (a bot that is not this one) and
// ReasonBadSettings (a configuration game.NewMatch refuses).
func Open(c Challenge, p Policy, now time.Time) (*Session, error) {
	if c.Place.Open {
		c.Opponent, c.OpponentIsBot, c.AI = Member{ID: OpenSeat}, false, ""
	}
	switch {
	case c.AI != "":
	case c.Opponent.ID == c.Challenger.ID:
		return nil, Refuse(ReasonSelfChallenge)
	case c.OpponentIsBot:
		return nil, Refuse(ReasonBotOpponent)
	}
	match, err := game.NewMatch(c.Config)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", Refuse(ReasonBadSettings), err)
	}
	p = c.Place.policy(p)
	s := &Session{
		ChannelID: c.ChannelID,
		GuildID:   c.GuildID,
		Players:   [2]Member{c.Challenger, c.Opponent},
		Config:    match.Config(),
		Match:     match,
		Phase:     PhaseChallenge,
		Theme:     c.Theme,
		Deadline:  now.Add(p.ChallengeTimeout),
		Webhook:   c.Webhook,
		Place:     c.Place,
		Rated:     c.Rated && c.AI == "" && Rateable(match.Config()),
	}
	if c.AI != "" {
		// No challenge to accept: the match starts.
		s.Phase, s.AI, s.Deadline = PhasePlaying, c.AI, now.Add(p.TurnTimeout)
	}
	return s, nil
}

// Accept starts the match of the challenge s when user, the opponent (or,
// for an open challenge, any member but the challenger, who takes the
// open seat), accepts it on message messageID through the interaction
// hook: the challenge message becomes the board, with the first turn's
// deadline. It refuses ReasonSeatTaken when another member took an open
// challenge's seat first, ReasonStale when s is no longer a challenge
// otherwise, ReasonOwnChallenge for the challenger and ReasonNotForYou
// for anyone else.
func (s *Session) Accept(user Member, messageID string, hook Webhook, now time.Time, p Policy) error {
	userID := user.ID
	if s.Phase != PhaseChallenge {
		if s.Place.Open && s.Phase.Active() && s.PlayerOf(userID) == game.NoPlayer {
			return Refuse(ReasonSeatTaken, "Player", s.Players[1])
		}
		return Refuse(ReasonStale)
	}
	if s.Players[1].ID == OpenSeat && userID != s.Players[0].ID && userID != "" && userID != OpenSeat {
		s.Players[1] = user
	}
	switch s.PlayerOf(userID) {
	case game.Player1:
		return Refuse(ReasonOwnChallenge)
	case game.NoPlayer:
		return Refuse(ReasonNotForYou)
	}
	s.Phase = PhasePlaying
	s.MessageID = messageID
	s.Webhook = hook
	s.Deadline = now.Add(s.Place.policy(p).TurnTimeout)
	return nil
}

// Decline ends the challenge s without a match: declined by the opponent,
// or withdrawn by the challenger (userID). It refuses ReasonStale when s is
// no longer a challenge and ReasonNotForYou for anyone else.
func (s *Session) Decline(userID string) error {
	if s.Phase != PhaseChallenge {
		return Refuse(ReasonStale)
	}
	if s.Players[1].ID == OpenSeat && s.PlayerOf(userID) != game.Player1 {
		return Refuse(ReasonOpenWithdraw, "Challenger", s.Players[0])
	}
	switch s.PlayerOf(userID) {
	case game.Player1:
		s.End = EndWithdrawn
	case game.Player2:
		s.End = EndDeclined
	default:
		return Refuse(ReasonNotForYou)
	}
	s.Phase = PhaseCancelled
	return nil
}

// Click names the board a column button was on: the board post it was
// drawn on (Session.PostSeq), the ply it was drawn at, and its column,
// counted from 1.
type Click struct {
	Post, Ply, Column int
	// Message is the ID of the message clicked ("" when not known): a
	// click on the live board tells its ID to a session that did not
	// learn it when it was posted (a post whose answer was lost).
	Message string
}

// Played is what a move (Drop, or the bot's turn) did to a match.
type Played struct {
	// Round is the number of the round the move was made in.
	Round int
	// RoundEnded is set when a round ended and the match goes on: that
	// round's message keeps its record, and the next round's board is to
	// be posted (PostDue).
	RoundEnded bool
	// BotLate holds the bot's error when it was to reply within the
	// click's response and could not (its engine too slow or failing):
	// its reply is due (Deadline now) for the scheduler, or for the work
	// after the response.
	BotLate error
}

// Drop drops userID's disc in the clicked column of s's board, and, in a
// match against the bot, the bot's reply (within bot's budget). The
// interaction hook becomes the board's webhook. It refuses ReasonStale for
// a click on a challenge, ReasonNotYourMatch for someone else than the
// players, ReasonMovedTo (or ReasonMoved while the live board's message is
// not known) for a click on an older board message, ReasonStaleBoardTo (or
// ReasonStaleBoard) for a click on a board that has moved on (another
// ply), and ReasonNotYourTurn, ReasonColumnFull,
// ReasonNoSuchColumn or ReasonMatchEnded as the game refuses the move.
// link gives the link to a board message, "" when it cannot be named (a
// nil link names none). A session that has ended returns ErrOver (Touch
// says so first, and settles a deadline that has passed).
func (s *Session) Drop(ctx context.Context, userID string, c Click, hook Webhook, bot Bot, link func(*Session) string, now time.Time, p Policy) (Played, error) {
	switch s.Phase {
	case PhaseChallenge:
		return Played{}, Refuse(ReasonStale)
	case PhaseFinished, PhaseCancelled:
		return Played{}, ErrOver
	}
	player := s.PlayerOf(userID)
	if player == game.NoPlayer {
		return Played{}, Refuse(ReasonNotYourMatch)
	}
	if link == nil {
		link = func(*Session) string { return "" }
	}
	if c.Post != s.PostSeq {
		if l := link(s); l != "" {
			return Played{}, Refuse(ReasonMovedTo, "Link", l)
		}
		return Played{}, Refuse(ReasonMoved)
	}
	if c.Ply != s.Match.Plies() {
		if l := link(s); l != "" {
			return Played{}, Refuse(ReasonStaleBoardTo, "Link", l)
		}
		return Played{}, Refuse(ReasonStaleBoard)
	}
	out := Played{Round: s.Match.Round().Number()}
	if _, err := s.Match.Play(player, c.Column-1); err != nil {
		return Played{}, gameRefusal(err)
	}
	s.Webhook = hook
	if s.MessageID == "" {
		s.MessageID = c.Message
	}
	if s.BotToMove() {
		if _, err := s.playBot(ctx, bot); err != nil {
			out.BotLate = err
		}
	}
	out.RoundEnded = s.afterMoves(out.Round, now, p)
	return out, nil
}

// gameRefusal returns the refusal for a move the game refused, and err
// itself for anything else.
func gameRefusal(err error) error {
	for _, r := range []struct {
		sentinel error
		reason   Reason
	}{
		{game.ErrNotYourTurn, ReasonNotYourTurn},
		{game.ErrColumnFull, ReasonColumnFull},
		{game.ErrColumnOutOfRange, ReasonNoSuchColumn},
		{game.ErrMatchOver, ReasonMatchEnded},
	} {
		if errors.Is(err, r.sentinel) {
			return fmt.Errorf("%w: %w", Refuse(r.reason), err)
		}
	}
	return err
}

// playBot plays the bot's moves while it is the bot's turn in s (at most
// four, though alternating openers allow one), each within bot.Budget and
// ctx. It returns how many it played, and the error that stopped it.
func (s *Session) playBot(ctx context.Context, bot Bot) (int, error) {
	if bot.Move == nil {
		return 0, ErrNoBot
	}
	n := 0
	for s.BotToMove() && !s.Match.Over() && n < 4 {
		mctx, cancel := context.WithTimeout(ctx, bot.Budget)
		column, err := bot.Move(mctx, s.Match, s.AI)
		cancel()
		if err != nil {
			return n, fmt.Errorf("the bot's move: %w", err)
		}
		if _, err := s.Match.Play(BotSide, column); err != nil {
			return n, fmt.Errorf("the bot chose column %d: %w", column+1, err)
		}
		n++
	}
	return n, nil
}

// Opening plays the bot's opening moves in a session Open or Rematch just
// made, when the bot opens; on failure the turn is left due at now, for
// the scheduler to play. It returns the bot's error, nil when it moved or
// had nothing to play.
func (s *Session) Opening(ctx context.Context, bot Bot, now time.Time) error {
	if !s.BotToMove() {
		return nil
	}
	if _, err := s.playBot(ctx, bot); err != nil {
		s.Deadline = now
		return err
	}
	return nil
}

// afterMoves brings s up to date after discs were dropped at now in round
// round: the match's end, the next deadline (at once when it is the bot's
// turn, so the scheduler plays it), and, when a round ended and the match
// goes on, a new board to post. It reports whether a round ended without
// ending the match.
func (s *Session) afterMoves(round int, now time.Time, p Policy) bool {
	if s.Match.Over() {
		s.Phase, s.End = PhaseFinished, EndWon
		return false
	}
	s.Deadline = now.Add(s.Place.policy(p).TurnTimeout)
	if s.BotToMove() {
		s.Deadline = now
	}
	if s.Match.Round().Number() == round {
		return false
	}
	s.PostSeq++
	s.PostDue = now.Add(p.PostGrace)
	s.MessageID = ""
	s.Webhook.Message = "" // the token posts the next board, as a follow-up
	return true
}

// BotTurn plays the bot's turn that is due in session match (from the
// scheduler, or after a response that could not wait for it), within
// bot's budget. It returns ErrNothingDue when s is another session or it
// is not the bot's turn, and the bot's error when it could not move at
// all.
func (s *Session) BotTurn(ctx context.Context, match int64, bot Bot, now time.Time, p Policy) (Played, error) {
	if s.ID != match || !s.BotToMove() {
		return Played{}, ErrNothingDue
	}
	out := Played{Round: s.Match.Round().Number()}
	if n, err := s.playBot(ctx, bot); n == 0 {
		if err == nil {
			err = ErrNothingDue
		}
		return Played{}, err
	}
	out.RoundEnded = s.afterMoves(out.Round, now, p)
	return out, nil
}

// CanForfeit returns the side of userID when they may forfeit s (asked
// before the forfeit itself): it refuses ReasonNoMatch unless a match is
// being played, and ReasonNotYourMatch for someone else than the players.
func (s *Session) CanForfeit(userID string) (game.Player, error) {
	if s.Phase != PhasePlaying {
		return game.NoPlayer, Refuse(ReasonNoMatch)
	}
	p := s.PlayerOf(userID)
	if p == game.NoPlayer {
		return game.NoPlayer, Refuse(ReasonNotYourMatch)
	}
	return p, nil
}

// Forfeit ends the match s by userID's forfeit, confirmed: the other
// player wins it. It refuses ReasonMatchEnded unless the match is being
// played and ReasonNotYourMatch for someone else than the players.
func (s *Session) Forfeit(userID string) error {
	if s.Phase != PhasePlaying {
		return Refuse(ReasonMatchEnded)
	}
	p := s.PlayerOf(userID)
	if p == game.NoPlayer {
		return Refuse(ReasonNotYourMatch)
	}
	if err := s.Match.Forfeit(p); err != nil {
		return gameRefusal(err)
	}
	s.Phase, s.End = PhaseFinished, EndForfeit
	return nil
}

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

// Rematch returns the session that follows old, the finished session
// match, when one of its players (userID, shown as userName) asks for a
// rematch through the interaction hook: the same settings, the player who
// did not open round 1 of old opening round 1, posted as a new message
// (PostSeq 1, PostDue). Between two members it is an invitation: a
// challenge from the asking player (Players[0], so the two may change
// sides) to the other, who has ChallengeTimeout to Accept or Decline it;
// only their Accept starts the match. Against the bot it is the match
// itself, its first turn's deadline running (the bot, when it opens, moves
// with Opening). It refuses ReasonRematchAsked when the asking player's
// invitation is already pending and ReasonRematchPending when the other
// player's is (two clicks, or both players at once, make one invitation),
// ReasonBusy when the channel has moved on to another active session,
// ReasonStale when it has moved on otherwise or old is not finished, and
// ReasonNotYourMatch for anyone else than the players.
func Rematch(old *Session, match int64, userID, userName string, hook Webhook, now time.Time, p Policy) (*Session, error) {
	switch {
	case old.ID != match && old.Invitation() && old.PlayerOf(userID) == game.Player1:
		return nil, Refuse(ReasonRematchAsked, "Opponent", old.Players[1])
	case old.ID != match && old.Invitation() && old.PlayerOf(userID) == game.Player2:
		return nil, Refuse(ReasonRematchPending, "Inviter", old.Players[0])
	case old.ID != match && old.Phase.Active():
		return nil, Refuse(ReasonBusy)
	case old.ID != match, old.Phase != PhaseFinished:
		return nil, Refuse(ReasonStale)
	case old.PlayerOf(userID) == game.NoPlayer:
		return nil, Refuse(ReasonNotYourMatch)
	}
	players := old.Players
	players[old.PlayerOf(userID)-1].Name = userName
	opener := old.Member(old.Config.OpenerOf(1).Other()) // the player who did not open round 1
	if old.AI == "" && old.PlayerOf(userID) == game.Player2 {
		players[0], players[1] = players[1], players[0] // the asking player challenges
	}
	cfg := old.Config
	cfg.FirstOpener = game.Player1
	if players[1].ID == opener.ID {
		cfg.FirstOpener = game.Player2
	}
	m, err := game.NewMatch(cfg)
	if err != nil {
		return nil, err
	}
	p = old.Place.policy(p)
	s := &Session{
		ChannelID: old.ChannelID,
		GuildID:   old.GuildID,
		Players:   players,
		Config:    m.Config(),
		Match:     m,
		Phase:     PhaseChallenge,
		Theme:     old.Theme,
		AI:        old.AI,
		Deadline:  now.Add(p.ChallengeTimeout),
		PostSeq:   1,
		PostDue:   now.Add(p.PostGrace),
		Webhook:   hook,
		Place:     old.Place,
		Rated:     (old.Rated || old.RatedCapped) && old.AI == "", // asked as the match was; the cap is checked again
	}
	if old.AI != "" {
		s.Phase, s.Deadline = PhasePlaying, now.Add(p.TurnTimeout)
	}
	return s, nil
}

// Invitation reports whether s is a rematch invitation waiting for an
// answer: a challenge posted as a new message after the match before it
// (PostSeq 1; a challenge made with the slash command is its own
// response, PostSeq 0).
func (s *Session) Invitation() bool { return s.Phase == PhaseChallenge && s.PostSeq > 0 }

// Withdraw ends the pending challenge s on behalf of userID, from the
// command that forfeits: withdrawn by the challenger, declined by the
// opponent (Decline). It refuses ReasonNoMatch when s is not a challenge,
// and ReasonNotForYou for anyone else than its two players.
func (s *Session) Withdraw(userID string) error {
	if s.Phase != PhaseChallenge {
		return Refuse(ReasonNoMatch)
	}
	return s.Decline(userID)
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
