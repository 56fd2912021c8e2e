package sessions

import (
	"fmt"
	"time"

	"github.com/connectn/connectn/game"
)

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
