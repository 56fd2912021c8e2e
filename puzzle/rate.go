package puzzle

import "github.com/connectn/connectn/rating"

// Tau is the Glicko-2 τ of puzzle ratings: 0.75, the setting of lichess's
// puzzle ratings (lila's modules/puzzle), larger than the match ratings'
// rating.Tau (0.5), so that a member's puzzle rating follows their progress
// sooner.
const Tau = 0.75

// Rate rates one attempt at a puzzle as a game between the member and the
// puzzle, each its own rating period (rating.System{Tau: Tau}.Match): the
// member scores 1 when solved, else 0, and the puzzle the rest; both
// ratings move, computed from those before the attempt. A failed attempt
// and one where the member asked for a hint both count as a loss: pass
// solved false for them. Only a member's first attempt at a puzzle is
// rated; that rule, and idling the member's rating for the time since
// their last rated attempt (rating.Idle), are the caller's.
func Rate(member, puzzle rating.Rating, solved bool) (newMember, newPuzzle rating.Rating) {
	score := 0.0
	if solved {
		score = 1
	}
	return rating.System{Tau: Tau}.Match(member, puzzle, score)
}
