package sessions

import (
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/rating"
)

// RatedPerDay is how many rated matches two members may play with each
// other in 24 hours; later ones are played unrated (no farming).
const RatedPerDay = 3

// MinRatedGames is how many rated matches a member needs to appear on the
// leaderboard by rating.
const MinRatedGames = 5

// Rateable reports whether matches of cfg may be rated: the standard
// board only, 6 rows × 7 columns, connect 4 (any number of round wins).
func Rateable(cfg game.Config) bool {
	return cfg.Rows == 6 && cfg.Columns == 7 && cfg.Connect == 4
}

// RatingChange is the two players' ratings before and after a rated
// match, indexed as Session.Players.
type RatingChange struct {
	Before [2]rating.Rating `json:"before"`
	After  [2]rating.Rating `json:"after"`
}

// MemberRating is a member's rating in one server, over its rated
// matches (Glicko-2, rating.Rating), as of their last rated match.
type MemberRating struct {
	GuildID, UserID string
	rating.Rating
	// Games counts the member's rated matches in the server.
	Games int
	// Best is the highest R the member has had after a rated match.
	Best float64
	// LastPlayed is when their last rated match ended (zero: never).
	LastPlayed time.Time
}
