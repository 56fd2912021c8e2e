package sessions

import (
	"time"

	"github.com/connectn/connectn/game"
)

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
