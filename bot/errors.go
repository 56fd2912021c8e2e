package bot

import (
	"errors"
	"fmt"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// Errors that are the user's doing. userMessage maps each, and the game and
// sessions sentinels, to the private message the user sees.
var (
	errUnsupported    = errors.New("unsupported interaction type")
	errUnknownCommand = errors.New("unknown command")
	errMalformed      = errors.New("malformed interaction")
	errNotInGuild     = errors.New("not in a server channel")
	errSelfChallenge  = errors.New("challenged themself")
	errBotOpponent    = errors.New("challenged a bot")
	errBadSettings    = errors.New("impossible match settings")
	errStale          = errors.New("stale button")
	errOwnChallenge   = errors.New("accepting own challenge")
	errNotForYou      = errors.New("challenge is for someone else")
	errNotYourMatch   = errors.New("not a player of this match")
	errNoMatch        = errors.New("no match being played in this channel")
	errMatchEnded     = errors.New("the match has ended")
)

// movedError is a click on a board message that was posted again further
// down; link leads to the live one ("" while its ID is not known).
type movedError struct{ link string }

func (e *movedError) Error() string { return "board moved to a newer message" }

// choiceError is a string option whose value is not one of its choices.
type choiceError struct{ option string }

func (e *choiceError) Error() string {
	return fmt.Sprintf("option %s: not one of its choices", e.option)
}

// rangeError is an integer option outside its bounds.
type rangeError struct {
	option   string
	min, max int
}

func (e *rangeError) Error() string {
	return fmt.Sprintf("option %s out of range %d..%d", e.option, e.min, e.max)
}

// connectError is a line length no board of the chosen size can hold.
type connectError struct {
	connect, rows, columns int
}

func (e *connectError) Error() string {
	return fmt.Sprintf("connect %d longer than %d rows and %d columns", e.connect, e.rows, e.columns)
}

// userMessage returns the private message for an error caused by the user,
// and false for any other error (a failure on our side, to be logged).
func userMessage(err error) (string, bool) {
	var (
		re *rangeError
		ce *connectError
		me *movedError
		ch *choiceError
	)
	switch {
	case errors.As(err, &re):
		return fmt.Sprintf("`%s` must be a whole number from %d to %d.", re.option, re.min, re.max), true
	case errors.As(err, &ce):
		return fmt.Sprintf("Nobody could ever connect %d on a board of %d rows × %d columns: choose a `connect` of at most %d, or a bigger board.",
			ce.connect, ce.rows, ce.columns, max(ce.rows, ce.columns)), true
	case errors.As(err, &ch):
		return fmt.Sprintf("Pick `%s` from the list Discord offers.", ch.option), true
	case errors.As(err, &me):
		if me.link != "" {
			return "This board moved to a newer message: " + me.link + " — play there.", true
		}
		return "This board moved to a newer message at the bottom of the channel: play there.", true
	case errors.Is(err, errNoAI):
		return "Playing against the bot is not enabled here: choose an `opponent` from this server.", true
	case errors.Is(err, errSelfChallenge):
		return "You can't challenge yourself: pick another member of this server as `opponent`.", true
	case errors.Is(err, errBotOpponent):
		return "Bots can't accept challenges: pick a human member of this server as `opponent`.", true
	case errors.Is(err, errBadSettings):
		return "Those match settings are impossible: check `rows`, `columns`, `connect` and `wins`.", true
	case errors.Is(err, errNotInGuild):
		return "Connect N is played in server channels: use `/connectn` in a server.", true
	case errors.Is(err, sessions.ErrActiveSession):
		return "This channel already has a challenge or a match in progress. Finish it (or `/connectn forfeit` it) first, or play in another channel. An unanswered challenge or an unplayed turn runs out by itself.", true
	case errors.Is(err, errUnknownCommand):
		return "I don't know that command. Try `/connectn help`.", true
	case errors.Is(err, errUnsupported), errors.Is(err, errMalformed):
		return "I couldn't understand that request, so nothing was changed.", true
	case errors.Is(err, errBadCustomID):
		return "That button isn't one of mine, so nothing was changed.", true
	case errors.Is(err, errStale):
		return "That button belongs to a board that has moved on. Use the buttons on the latest message.", true
	case errors.Is(err, errOwnChallenge):
		return "You can't accept your own challenge. Your opponent has to accept; you can Decline to withdraw it.", true
	case errors.Is(err, errNotForYou):
		return "This challenge is between two other players.", true
	case errors.Is(err, errNotYourMatch):
		return "You're not playing in this match. Start your own with `/connectn challenge`.", true
	case errors.Is(err, errNoMatch):
		return "There is no match being played in this channel. Start one with `/connectn challenge`.", true
	case errors.Is(err, errMatchEnded), errors.Is(err, game.ErrMatchOver):
		return "This match is over. Start a new one with `/connectn challenge`.", true
	case errors.Is(err, game.ErrNotYourTurn):
		return "It's not your turn: wait for your opponent's move.", true
	case errors.Is(err, game.ErrColumnFull):
		return "That column is full: choose another one.", true
	case errors.Is(err, game.ErrColumnOutOfRange):
		return "That column isn't on this board.", true
	}
	return "", false
}
