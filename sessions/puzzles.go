package sessions

import (
	"context"
	"time"

	"github.com/connectn/connectn/rating"
)

// PuzzleStore keeps what the bot's puzzles need beside the matches: the
// puzzles found in a server's matches (and the queue of finished matches
// to look at), the members' attempts at puzzles, the puzzle ratings of
// members and of puzzles, and the daily puzzle's settings and posts. The
// puzzles themselves are package puzzle's: this store keeps each as the
// one line puzzle.Format writes, and never reads it. The starter set ships
// in the binary and is not stored; a puzzle's rating is stored once an
// attempt moved it.
//
// It is a contract of its own beside Store (every backend meets both; the
// shared suite in sessionstest checks both): the bot's puzzle feature
// holds only this one, and the match lifecycle never reads it. Like
// Store, a PuzzleStore is safe for concurrent use by many goroutines and
// many processes on one database: every rule below holds across
// processes.
//
// Ratings are global per member, not per server as match ratings are:
// the puzzles are the same everywhere (the starter set, the daily
// puzzle), so a member's skill at them does not depend on the server, and
// only a member's first attempt at a puzzle is rated, which must hold
// wherever they meet it again (lichess keeps one puzzle rating per
// account for the same reasons).
type PuzzleStore interface {
	// QueuePuzzleScan queues a finished match to be searched for puzzles,
	// due at once, unless it was queued before; it reports whether it
	// queued it. Many processes may queue the same match: one row is kept.
	QueuePuzzleScan(ctx context.Context, scan PuzzleScan) (bool, error)

	// ClaimPuzzleScan takes the queued scan that has been due longest (Due
	// at or before the Store's clock, not Done) for lease: its Due moves
	// to the clock plus lease and its Tries grow by one, by a
	// compare-and-swap, so that one process alone holds it until the
	// lease ends; a scan whose process died is taken again then. ok is
	// false when no scan is due.
	ClaimPuzzleScan(ctx context.Context, lease time.Duration) (scan PuzzleScan, ok bool, err error)

	// FinishPuzzleScan stores the puzzles found in match (each kept once
	// per server and puzzle ID: a puzzle found again is not added) and
	// marks its scan Done, in one transaction, and returns how many
	// puzzles it added. Finishing a scan twice adds nothing the second
	// time.
	FinishPuzzleScan(ctx context.Context, match int64, found []FoundPuzzle) (added int, err error)

	// FoundPuzzles returns the puzzles found in the matches of server
	// guildID, oldest first; empty (not nil) when there is none.
	FoundPuzzles(ctx context.Context, guildID string) ([]FoundPuzzle, error)

	// PuzzleRatings returns the stored rating of every puzzle an attempt
	// has rated, by puzzle ID; a puzzle not in it still has the rating it
	// was made with.
	PuzzleRatings(ctx context.Context) (map[string]rating.Rating, error)

	// PuzzlePlayer returns member userID's puzzle record. A member who
	// never finished a rated attempt has rating.New() and zero counts
	// (UserID filled in), not an error.
	PuzzlePlayer(ctx context.Context, userID string) (PuzzlePlayer, error)

	// PuzzleLeaderboard returns the members who played a puzzle in server
	// guildID, with at least MinPuzzleAttempts rated attempts, at most
	// limit of them (1 to 100, else an error), by puzzle rating R, highest
	// first, then the most rated attempts, then user ID.
	PuzzleLeaderboard(ctx context.Context, guildID string, limit int) ([]PuzzlePlayer, error)

	// SeenPuzzles returns the IDs of the puzzles member userID has
	// started an attempt at, anywhere.
	SeenPuzzles(ctx context.Context, userID string) (map[string]bool, error)

	// StartAttempt stores a as a new attempt, open, and returns the stored
	// copy with ID, Revision, StartedAt (the Store's clock) and First set:
	// First is true for the member's first attempt at the puzzle, which
	// alone is rated. Of two attempts at one puzzle started at once by one
	// member, through two processes, exactly one is first (a unique index
	// decides). UserID, PuzzleID and Puzzle must not be empty.
	StartAttempt(ctx context.Context, a *Attempt) (*Attempt, error)

	// Attempt returns attempt id, or an error wrapping ErrNotFound.
	Attempt(ctx context.Context, id int64) (*Attempt, error)

	// UpdateAttempt loads attempt id, calls fn on a copy, and if fn
	// returns nil writes Moves, Hinted and Result back by a
	// compare-and-swap on Revision (another process's write in between:
	// fn is called again on the fresh row, as Store.Update does; fn must
	// have no other side effect), and returns the stored copy. It refuses
	// (ErrInvalidSession) a change to any other field, and reopening a
	// finished attempt.
	//
	// An attempt that becomes finished (Result from AttemptOpen to
	// AttemptSolved or AttemptFailed) gets FinishedAt from the clock and,
	// in the same transaction: the member's streak grows by one when it
	// is solved without a hint and is reset otherwise (Streak holds the
	// new one); a first attempt is rated, with rate (puzzle.Rate), between
	// the member's rating (idled with rating.Idle for the rating periods
	// since their last rated attempt) and the puzzle's (its stored one,
	// else the attempt's PuzzleRating), a hinted attempt counting as
	// failed, both ratings written and the change kept in Change (nil for
	// an attempt that is not first); and an attempt from a daily post
	// (Daily) that is its member's first solved one of that post adds one
	// to the post's Solvers and makes its edit due (DailyPost.EditDue)
	// within DailyEditEvery, unless one is due already.
	//
	// It returns an error wrapping ErrNotFound for an unknown id,
	// ErrConflict after MaxAttempts lost races, fn's own error unchanged,
	// or ctx's error; nothing is written then.
	UpdateAttempt(ctx context.Context, id int64, rate PuzzleRater, fn func(*Attempt) error) (*Attempt, error)

	// DailyPuzzle returns the daily puzzle's settings of server guildID;
	// the zero value with GuildID filled in (off) for a server that set
	// none.
	DailyPuzzle(ctx context.Context, guildID string) (DailyPuzzle, error)

	// UpdateDailyPuzzle loads the daily puzzle's settings of server
	// guildID (the zero value when none), calls fn on a copy, and if fn
	// returns nil writes it back with UpdatedAt from the clock, by a
	// compare-and-swap on Revision (fn is called again when another
	// process wrote first), and returns it. An empty ChannelID turns the
	// daily puzzle off (Next is then cleared). fn's own error is returned
	// unchanged and nothing is written.
	UpdateDailyPuzzle(ctx context.Context, guildID string, fn func(*DailyPuzzle) error) (DailyPuzzle, error)

	// DueDailyPuzzles returns the servers' daily puzzle settings whose
	// Next has come (at or before now), the earliest first, at most limit
	// (all when limit <= 0).
	DueDailyPuzzles(ctx context.Context, now time.Time, limit int) ([]DailyPuzzle, error)

	// PuzzleOfDay returns the puzzle of day (the date, "2006-01-02") for
	// the whole bot: the first one a process recorded for that day, or id
	// and line, recorded now when no process recorded one. Every process
	// thus gets the same puzzle for a day, whatever it would have chosen.
	PuzzleOfDay(ctx context.Context, day, id, line string) (gotID, gotLine string, err error)

	// ClaimDailyPost claims the post of p.Day in server p.GuildID for
	// lease, before the message is sent, so that a day's puzzle is posted
	// once per server however many processes try: the first claim inserts
	// the row (State DailyClaimed, LeaseUntil the clock plus lease, with
	// p's ChannelID, PuzzleID and Puzzle); a row whose claim lapsed (still
	// claimed, its lease over: the process that held it died, or gave up
	// for a while) is taken over by a compare-and-swap on its lease, and
	// comes back with Retaken set: the message may have been sent, and the
	// caller looks for it before it sends another. claimed is false, with
	// the row as it stands, for a post another process holds or has
	// settled (DailyPosted, DailyFailed).
	ClaimDailyPost(ctx context.Context, p DailyPost, lease time.Duration) (post DailyPost, claimed bool, err error)

	// UpdateDailyPost loads the post of day in server guildID, calls fn on
	// a copy, and if fn returns nil writes State, MessageID, LeaseUntil,
	// Shown, EditDue and Error back by a compare-and-swap on Revision (fn
	// is called again when another process wrote first), with UpdatedAt
	// from the clock. It returns an error wrapping ErrNotFound for a post
	// never claimed, and fn's own error unchanged.
	UpdateDailyPost(ctx context.Context, guildID, day string, fn func(*DailyPost) error) (DailyPost, error)

	// DailyPosts returns the daily posts of server guildID, newest day
	// first, at most limit (all when limit <= 0).
	DailyPosts(ctx context.Context, guildID string, limit int) ([]DailyPost, error)

	// DueDailyEdits returns the posted daily posts whose message is to be
	// edited (EditDue set, at or before now), the earliest first, at most
	// limit (all when limit <= 0).
	DueDailyEdits(ctx context.Context, now time.Time, limit int) ([]DailyPost, error)
}

// MinPuzzleAttempts is how many rated attempts a member needs to appear
// on the leaderboard by puzzle rating.
const MinPuzzleAttempts = 5

// DailyEditEvery is how often, at most, a daily post's message is edited
// to show how many members solved it: the solves in between are shown by
// one edit.
const DailyEditEvery = time.Minute

// PuzzleRater rates one attempt at a puzzle as a game between the member
// and the puzzle, from their ratings before it, the member scoring 1 when
// solved: puzzle.Rate.
type PuzzleRater func(member, puzzle rating.Rating, solved bool) (newMember, newPuzzle rating.Rating)

// PuzzleScan is a finished match queued to be searched for puzzles.
type PuzzleScan struct {
	// Match is the session's ID; GuildID and ChannelID where it was
	// played.
	Match              int64
	GuildID, ChannelID string
	// Due is when a process may take it next (UTC); Tries counts the
	// claims so far; Done is set once it is finished, Found then counting
	// the puzzles it added.
	Due   time.Time
	Tries int
	Done  bool
	Found int
}

// FoundPuzzle is a puzzle found in a server's match.
type FoundPuzzle struct {
	GuildID string
	// ID is the puzzle's ID, and Puzzle its line (puzzle.Format), which
	// holds its attribution.
	ID, Puzzle string
	// Match is the session it was found in, and Players its two players'
	// user IDs (Forget removes the puzzles found in a member's matches, as
	// it removes the matches).
	Match   int64
	Players [2]string
	// FoundAt is when it was stored (the Store's clock, UTC).
	FoundAt time.Time
}

// AttemptResult is how an attempt stands.
type AttemptResult string

// The results of an attempt.
const (
	AttemptOpen   AttemptResult = ""
	AttemptSolved AttemptResult = "solved"
	AttemptFailed AttemptResult = "failed"
)

// Attempt is one member's attempt at one puzzle, kept from its start, so
// that it is played move by move across clicks and processes.
type Attempt struct {
	ID int64
	// UserID is the member; GuildID the server it was started in ("" in
	// a direct message).
	UserID, GuildID string
	// PuzzleID and Puzzle (its line, puzzle.Format) are the puzzle.
	PuzzleID, Puzzle string
	// PuzzleRating is the puzzle's rating when the attempt started: the
	// rating a finish starts from when the puzzle has none stored yet.
	PuzzleRating rating.Rating
	// Daily is the day ("2006-01-02") of the daily post the attempt was
	// started from, "" otherwise.
	Daily string
	// Moves are the attempt's moves from the puzzle's position, the
	// member's and the replies, in the game's moves notation
	// (game.MovesCode).
	Moves string
	// Hinted is set once the member asked for a hint.
	Hinted bool
	Result AttemptResult
	// First is set for the member's first attempt at the puzzle: the only
	// one rated.
	First bool
	// Revision counts the writes to the attempt (UpdateAttempt's
	// compare-and-swap).
	Revision int64
	// StartedAt and FinishedAt (zero while open), on the Store's clock,
	// UTC.
	StartedAt, FinishedAt time.Time
	// Change is what the finish did to the ratings, for a first attempt;
	// nil otherwise.
	Change *PuzzleRatingChange
	// Streak is the member's streak after the finish (set by the
	// UpdateAttempt that finished it; 0 on later loads).
	Streak int
}

// PuzzleRatingChange is the member's and the puzzle's ratings before and
// after a rated attempt.
type PuzzleRatingChange struct {
	MemberBefore rating.Rating `json:"member_before"`
	MemberAfter  rating.Rating `json:"member_after"`
	PuzzleBefore rating.Rating `json:"puzzle_before"`
	PuzzleAfter  rating.Rating `json:"puzzle_after"`
}

// PuzzlePlayer is a member's puzzle record, over every server.
type PuzzlePlayer struct {
	UserID string
	rating.Rating
	// Rated counts the member's rated attempts (first attempts finished),
	// Solved those of them solved without a hint.
	Rated, Solved int
	// Streak counts the member's attempts solved without a hint in a row,
	// up to the latest; BestStreak the longest such run.
	Streak, BestStreak int
	// Best is the highest R after a rated attempt.
	Best float64
	// LastRated is when their last rated attempt finished (zero: never).
	LastRated time.Time
}

// DailyPuzzle is a server's setting of the daily puzzle: where and when
// the bot posts it.
type DailyPuzzle struct {
	GuildID string
	// ChannelID is the channel of the posts; "" turns the daily puzzle
	// off.
	ChannelID string
	// Minute is the time of day of the posts, in minutes after midnight
	// (0 to 1439) in Zone, an IANA time zone name ("" is UTC).
	Minute int
	Zone   string
	// Locale is the language of the posts (a Discord locale code): the
	// server's own when an admin set them; its language setting, when it
	// has one, comes first.
	Locale string
	// Next is when the next post is due (UTC; zero when off).
	Next time.Time
	// LastError says why Discord refused the last post, at LastErrorAt;
	// "" when the last post went through.
	LastError   string
	LastErrorAt time.Time
	Revision    int64
	UpdatedAt   time.Time
}

// DailyPostState is how a day's post stands.
type DailyPostState string

// The states of a daily post.
const (
	// DailyClaimed: a process holds the post until LeaseUntil, before or
	// while sending it.
	DailyClaimed DailyPostState = "claimed"
	// DailyPosted: the message is in the channel (MessageID).
	DailyPosted DailyPostState = "posted"
	// DailyFailed: Discord refused the post (Error); it is not tried
	// again that day.
	DailyFailed DailyPostState = "failed"
)

// DailyPost is one day's post of the daily puzzle in one server.
type DailyPost struct {
	GuildID string
	// Day is the server's date of the post ("2006-01-02", in its zone).
	Day       string
	ChannelID string
	// PuzzleID and Puzzle (its line) are the day's puzzle.
	PuzzleID, Puzzle string
	State            DailyPostState
	MessageID        string
	// LeaseUntil is when a claim lapses (UTC).
	LeaseUntil time.Time
	// Retaken is set by ClaimDailyPost when it took over a lapsed claim.
	Retaken bool
	// Solvers counts the members who solved the puzzle from this post;
	// Shown the count its message shows; EditDue when the message is to
	// be edited to show Solvers (zero: nothing to edit).
	Solvers, Shown int
	EditDue        time.Time
	// Error says why Discord refused the post.
	Error                string
	Revision             int64
	CreatedAt, UpdatedAt time.Time
}
