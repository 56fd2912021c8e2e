package sessions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/connectn/connectn/game"
)

// Click names the board a column button was on: the board post it was
// drawn on (Session.PostSeq), the ply it was drawn at, and its column,
// counted from 1.
type Click struct {
	// User is the member who clicked (a user ID).
	User              string
	Post, Ply, Column int
	// Message is the ID of the message clicked ("" when not known): a
	// click on the live board tells its ID to a session that did not
	// learn it when it was posted (a post whose answer was lost).
	Message string
	// Hook is the click's interaction: its webhook becomes the board's.
	Hook Webhook
}

// BoardMessage names a session's board message in a server's channel: a
// refusal's argument, which the bot shows as a link to the message.
type BoardMessage struct{ GuildID, ChannelID, MessageID string }

// liveBoard names s's live board message, and false while its ID is not
// known or outside a server (no link reaches a DM's message).
func (s *Session) liveBoard() (BoardMessage, bool) {
	if s.MessageID == "" || s.GuildID == "" {
		return BoardMessage{}, false
	}
	return BoardMessage{GuildID: s.GuildID, ChannelID: s.ChannelID, MessageID: s.MessageID}, true
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

// Drop drops the clicker's disc (c.User's) in the clicked column of s's
// board, and, in a match against the bot, the bot's reply (within bot's
// budget). The click's interaction (c.Hook) becomes the board's webhook.
// It refuses ReasonStale for
// a click on a challenge, ReasonNotYourMatch for someone else than the
// players, ReasonMovedTo (or ReasonMoved while the live board's message is
// not known) for a click on an older board message, ReasonStaleBoardTo (or
// ReasonStaleBoard) for a click on a board that has moved on (another
// ply), and ReasonNotYourTurn, ReasonColumnFull,
// ReasonNoSuchColumn or ReasonMatchEnded as the game refuses the move; a
// refusal that names the live board has it as a BoardMessage ("Link"). A
// session that has ended returns ErrOver (Touch says so first, and
// settles a deadline that has passed).
func (s *Session) Drop(ctx context.Context, c Click, bot Bot, now time.Time, p Policy) (Played, error) {
	switch s.Phase {
	case PhaseChallenge:
		return Played{}, Refuse(ReasonStale)
	case PhaseFinished, PhaseCancelled:
		return Played{}, ErrOver
	}
	player := s.PlayerOf(c.User)
	if player == game.NoPlayer {
		return Played{}, Refuse(ReasonNotYourMatch)
	}
	if c.Post != s.PostSeq {
		if l, ok := s.liveBoard(); ok {
			return Played{}, Refuse(ReasonMovedTo, "Link", l)
		}
		return Played{}, Refuse(ReasonMoved)
	}
	if c.Ply != s.Match.Plies() {
		if l, ok := s.liveBoard(); ok {
			return Played{}, Refuse(ReasonStaleBoardTo, "Link", l)
		}
		return Played{}, Refuse(ReasonStaleBoard)
	}
	out := Played{Round: s.Match.Round().Number()}
	if _, err := s.Match.Play(player, c.Column-1); err != nil {
		return Played{}, gameRefusal(err)
	}
	s.Webhook = c.Hook
	if s.MessageID == "" {
		s.MessageID = c.Message
	}
	// A click on the board that was still to post shows it posted (the
	// response that carried it reached Discord, or a post whose answer
	// was lost was made): nobody is to post it again.
	s.PostDue = time.Time{}
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
