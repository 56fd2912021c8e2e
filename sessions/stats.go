package sessions

// Stats is one member's record in one server, over matches against members
// or (kept apart) against the bot. A forfeit and a timeout count as a match
// lost by the player who forfeited or let the time run out.
type Stats struct {
	// GuildID and UserID name the member.
	GuildID, UserID string
	// VsAI is true for the record against the bot.
	VsAI bool
	// Matches counts the matches finished; Wins + Losses == Matches.
	Matches, Wins, Losses int
	// RoundsWon, RoundsLost and RoundsDrawn count the rounds of those
	// matches (a forfeited round is lost by the player who forfeited).
	RoundsWon, RoundsLost, RoundsDrawn int
	// Streak counts the matches won in a row, up to the last one; BestStreak
	// is the longest such run ever.
	Streak, BestStreak int
}

// WinRate returns Wins / Matches, from 0 to 1; 0 with no match.
func (s Stats) WinRate() float64 {
	if s.Matches == 0 {
		return 0
	}
	return float64(s.Wins) / float64(s.Matches)
}

// PairRecord is one member's record in matches against one other member of
// the same server.
type PairRecord struct {
	Wins, Losses int
}
