package tournament

import (
	"fmt"

	"github.com/connectn/connectn/game"
)

// MatchResult returns the result of a tournament game from its match, which
// must be over: the match's winner wins the game (game.Player1 is the
// pairing's Opener). It is a win by forfeit (OpenerWinsByForfeit,
// SecondWinsByForfeit) when the match ended by a forfeit (m.Forfeited: a
// player gave it up or let a turn's deadline pass) and the loser had not
// dropped a single disc: they did not play. It returns an error wrapping
// ErrMatchNotOver for a nil match or one still going on (see StoppedResult).
func MatchResult(m *game.Match) (Result, error) {
	if m == nil || !m.Over() {
		return Pending, fmt.Errorf("the game's match: %w", ErrMatchNotOver)
	}
	w := m.Winner()
	forfeit := m.Forfeited() && !dropped(m, w.Other())
	switch {
	case w == game.Player1 && forfeit:
		return OpenerWinsByForfeit, nil
	case w == game.Player1:
		return OpenerWins, nil
	case forfeit:
		return SecondWinsByForfeit, nil
	}
	return SecondWins, nil
}

// StoppedResult returns the result of a tournament game whose match was
// stopped before its end (for instance a cap on its rounds, or the
// tournament ended while it was played): the player with more round wins
// wins, and the game is a Draw when they are level, drawn rounds
// included. For a match that is over it returns MatchResult's result; for
// a nil match (the game never started) DoubleForfeit.
func StoppedResult(m *game.Match) Result {
	if r, err := MatchResult(m); err == nil {
		return r
	}
	if m == nil {
		return DoubleForfeit
	}
	switch a, b := m.Score(game.Player1), m.Score(game.Player2); {
	case a > b:
		return OpenerWins
	case b > a:
		return SecondWins
	}
	return Draw
}

// dropped reports whether p dropped a disc in m.
func dropped(m *game.Match, p game.Player) bool {
	for i := range m.Plies() {
		if a := m.Action(i); a.Kind == game.Drop && a.Player == p {
			return true
		}
	}
	return false
}
