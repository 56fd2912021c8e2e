package sessions

import (
	"context"
	"time"
)

// CardStore keeps the result cards shared from the last board of a match,
// so that each match's card is posted once: the record of a share is
// claimed in the database before the card is posted, and a second ask
// (the same player clicking again, the other player, two clicks racing
// through two processes, or an ask after a restart) finds it and posts
// nothing. Like Store, it is safe for concurrent use by many goroutines
// and many processes on one database: every rule below holds across
// processes. Both backends are one; the shared suite (sessionstest)
// checks it.
type CardStore interface {
	// ShareCard claims the sharing of the result card of match
	// share.Match for member share.UserID, before the card is posted:
	// the first claim of a match inserts its record (GuildID, ChannelID
	// and UserID as given, SharedAt the Store's clock in UTC, MessageID
	// "") and returns it with claimed true. Every later claim of that
	// match, by anyone, returns the record as it stands with claimed
	// false and changes nothing; the database's primary key decides
	// between claims that race. It returns an error for a Match below 1
	// or an empty UserID, and nothing is stored then.
	ShareCard(ctx context.Context, share CardShare) (got CardShare, claimed bool, err error)

	// CardPosted records messageID (not empty) as the message of the
	// shared card of match. It returns an error wrapping ErrNotFound when
	// the match's card was never claimed.
	CardPosted(ctx context.Context, match int64, messageID string) error

	// UnshareCard removes the claim of match's card made by member
	// userID while its card is not posted (no MessageID recorded), so
	// that it may be shared again: the post failed. It reports whether
	// it removed a claim; a claim of another member, or one whose card
	// was posted, stays.
	UnshareCard(ctx context.Context, match int64, userID string) (bool, error)
}

// CardShare is the record of a match's result card shared from its last
// board.
type CardShare struct {
	// Match is the session's ID; GuildID ("" in a direct message) and
	// ChannelID where its card was shared.
	Match              int64
	GuildID, ChannelID string
	// UserID is the member who shared it: one of the match's players.
	UserID string
	// MessageID is the posted card's message, "" until it is known.
	MessageID string
	// SharedAt is when the share was claimed (the Store's clock, UTC).
	SharedAt time.Time
}
