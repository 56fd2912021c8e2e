package sessions

import "time"

// GuildSettings are one server's own settings, set by its admins with
// /connectn-admin settings and kept by the Store: each field left nil (or,
// for Channels, empty) is unset, and the bot-wide default (the host's
// environment) applies beneath it. The zero value (with GuildID) is a
// server that set nothing. Bounds are the bot's to check before saving;
// the Store keeps what it is given.
type GuildSettings struct {
	// GuildID is the server.
	GuildID string `json:"-"`
	// Rows, Columns, Connect and Wins are the defaults of a challenge's
	// options.
	Rows    *int `json:"rows,omitempty"`
	Columns *int `json:"columns,omitempty"`
	Connect *int `json:"connect,omitempty"`
	Wins    *int `json:"wins,omitempty"`
	// Theme is the default theme's name; AILevel the bot's default level.
	Theme   *string `json:"theme,omitempty"`
	AILevel *string `json:"ai_level,omitempty"`
	// ChallengeTimeout and TurnTimeout are how long a challenge waits and
	// a turn lasts, for sessions opened after they are set.
	ChallengeTimeout *time.Duration `json:"challenge_timeout,omitempty"`
	TurnTimeout      *time.Duration `json:"turn_timeout,omitempty"`
	// Channels are the channels where challenges may be made; empty: all.
	Channels []string `json:"channels,omitempty"`
	// Role is the ID of the role a member needs to play; nil: none.
	Role *string `json:"role,omitempty"`
	// Cooldown is how long a member waits between two challenges.
	Cooldown *time.Duration `json:"cooldown,omitempty"`
	// Locale is the language of public messages (a Discord locale code);
	// nil: the server's guild_locale.
	Locale *string `json:"locale,omitempty"`
	// Threads is whether a challenge opens a thread by default.
	Threads *bool `json:"threads,omitempty"`
	// Rated is whether matches are rated by default (ratings).
	Rated *bool `json:"rated,omitempty"`
	// UpdatedAt and UpdatedBy (a user ID) say who changed them last, and
	// when (the Store's clock, UTC); zero for a server that set nothing.
	UpdatedAt time.Time `json:"-"`
	UpdatedBy string    `json:"-"`
}

// ForgetCounts are what Store.Forget removed.
type ForgetCounts struct {
	// Matches counts the sessions (any phase) the member played in.
	Matches int
	// MemberStats counts the member's own records (one per server and
	// kind of opponent); PairRecords the records between the member and
	// another member, in both directions.
	MemberStats, PairRecords int
	// MemberRatings counts the member's ratings (one per server where
	// they played a rated match).
	MemberRatings int
	// TournamentEntries counts the member's tournament entries made
	// anonymous: their user ID replaced, in the entry and in its
	// pairings, by a placeholder of the entry (see TournamentStore), so
	// that the standings keep their results and their opponents' tie-breaks
	// do not change; a tournament not finished withdraws them.
	TournamentEntries int
	// PuzzleAttempts counts the member's attempts at puzzles,
	// PuzzlePlayers their puzzle record (0 or 1), FoundPuzzles the puzzles
	// found in their matches.
	PuzzleAttempts, PuzzlePlayers, FoundPuzzles int
	// SharedCards counts the records of shared result cards (CardStore)
	// of the member's matches, and those they shared.
	SharedCards int
}
