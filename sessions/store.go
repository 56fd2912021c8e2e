package sessions

import (
	"context"
	"time"

	"github.com/connectn/connectn/internal/clock"
)

// Store keeps sessions, deadlines, stats and leaderboards: the contract
// every backend (sessions/sqlite, sessions/postgres) meets and the shared
// suite (sessions/sessionstest) checks. A Store is safe for concurrent use
// by many goroutines, and by many processes on one database: everything
// below holds across processes, not just within one.
//
// Sessions and settings returned by a Store are fresh copies owned by the
// caller:
// changing one changes nothing stored; only Update writes.
//
// Every write to a session's row increases its revision. A Store keeps the
// sessions it decoded in memory by ID and revision (WithCacheSize) and
// trusts that number: a program that changes a row by hand must increase
// revision too, or Stores that hold it will not see the change until
// they restart.
type Store interface {
	// Create stores sess as a new session in its channel and returns the
	// stored copy, with ID, CreatedAt and UpdatedAt assigned (whatever sess
	// held) and a Match of its own, rebuilt from the stored actions (see
	// PrepareNew). sess itself is not changed. An empty Phase means
	// PhaseChallenge; a nil Match means a new match built from Config; an
	// active phase with a match that is already over is stored as
	// PhaseFinished, its result counted in the stats in the same
	// transaction. Earlier sessions of the channel that ended stay stored
	// as history.
	//
	// Create returns an error wrapping ErrActiveSession when the channel
	// already has an active session (the database refuses it with a
	// partial unique index, so this holds across processes), and one
	// wrapping ErrInvalidSession (and game.ErrInvalidConfig for a bad
	// configuration) when sess breaks a rule. A session that plays a
	// tournament game (Session.Tournament) is recorded on its pairing in
	// the same transaction, or refused with ErrGameTaken (see
	// TournamentStore).
	Create(ctx context.Context, sess *Session) (*Session, error)

	// Get returns the channel's newest session, whatever its phase: the
	// active one if there is one, otherwise the last one that ended. It
	// returns an error wrapping ErrNotFound when the channel never had a
	// session, and one wrapping ErrCorrupt when the row cannot be rebuilt.
	Get(ctx context.Context, channelID string) (*Session, error)

	// Update loads the channel's newest session (active or not), calls fn on
	// a copy of it, and if fn returns nil writes the copy back (Players,
	// Phase, MessageID, Theme, AI, End, EndedBy, Deadline, PostSeq, PostDue,
	// Webhook, Rated, RatedCapped, Ratings, the match's actions, and
	// UpdatedAt from the clock) and returns it. An
	// active phase whose match is over is written as PhaseFinished; a
	// session that becomes finished has its result added to the stats and
	// pair records in the same transaction as the write, so both or neither
	// are stored. If fn returns an error, nothing is written and that error
	// is returned unchanged, so callers can test it with errors.Is.
	//
	// A session that becomes finished with Rated set, between two members
	// (AI empty), on a Rateable board, after at least one disc was dropped
	// in the match (a forfeit before the first disc is never rated), also
	// changes both players' ratings in its server, in that same
	// transaction: each player's rating (rating.New() for a member never
	// rated there) idles for the rating periods since their last rated
	// match (rating.Idle, elapsed time over rating.PeriodLength, measured
	// on the Store's clock), then rating.Match rates the match (score 1
	// for the winner, 0 for the loser); each member's rated matches grow
	// by one, their Best follows the new R and their LastPlayed is the
	// finish. The session's Ratings holds the change (Before: the ratings
	// the match was rated from, after idling; After: the new ones), and
	// the session Update returns (and every later load) carries it. A
	// match that is not rated leaves every rating unchanged. Create
	// counts a session stored already finished the same way. A session
	// that plays a tournament game and ends (finished or cancelled) has
	// its result recorded on its pairing in that same transaction (see
	// TournamentStore).
	//
	// Serialisation, within a process and across processes: calls for one
	// channel are queued by a per-channel lock in the process, so fn always
	// sees the latest state this process knows and never runs twice at once
	// for one channel. Across processes the write is a compare-and-swap on
	// the row's revision counter; when another process wrote the session
	// between the load and the write, nothing is written and Update loads
	// the new state and calls fn again on a fresh copy. fn may therefore be
	// called more than once, each time on the latest state, and only the
	// call whose result is committed counts: fn must reset whatever it
	// records for its caller at each call, and must have no other side
	// effect. The first call may start from the state this process cached
	// for the channel, without reading the row, and a write from it is the
	// same compare-and-swap; when fn refuses that state and the row has
	// moved on, fn is called again on the row. A click that lost a race to
	// another process thus meets the state the winner left, exactly as a
	// click that waited for the per-channel lock does, and is never
	// reported as an error. After MaxAttempts lost races in a row Update
	// gives up with ErrConflict.
	//
	// fn must be non-nil and must not call Update, Create or Abandon for
	// the same channel (that would deadlock). It runs outside any database
	// transaction, so it may take its time (an AI move, say) without
	// holding a row lock or blocking other channels. Waiting for the lock
	// ends with ctx.
	//
	// Besides fn's own error, Update returns an error wrapping ErrNotFound
	// when the channel has no session, ErrCorrupt when the stored row
	// cannot be rebuilt (fn is not called on it), ErrInvalidSession when fn
	// changed ID, ChannelID, GuildID, Config or CreatedAt or left the
	// session breaking a rule (CheckChange), ErrActiveSession when fn made
	// an old session active while another is active, ErrConflict as above,
	// or ctx's error; in all these cases nothing is written.
	Update(ctx context.Context, channelID string, fn func(*Session) error) (*Session, error)

	// Abandon sets the channel's active session to PhaseCancelled and
	// EndAbandoned without loading its match, and returns its ID. It is the
	// way out for a session whose stored row no longer replays (ErrCorrupt),
	// which would otherwise keep the channel busy forever. It returns an
	// error wrapping ErrNotFound when the channel has no active session.
	Abandon(ctx context.Context, channelID string) (int64, error)

	// History returns the channel's sessions, newest first, at most limit
	// of them (all when limit <= 0). It returns an empty slice for a
	// channel without sessions, and an error wrapping ErrCorrupt when a row
	// cannot be rebuilt.
	History(ctx context.Context, channelID string, limit int) ([]*Session, error)

	// Due returns the channels, at most limit of them (all when limit <=
	// 0), whose active session has work due at now: a Deadline that has
	// passed (at or before now), or a PostDue that has come. The earliest
	// due come first, ties by channel ID. Every process may see the same
	// channel due: the caller settles each with Update, whose function
	// re-checks the deadline on the latest state, so a deadline fires once
	// however many processes run the scheduler.
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)

	// Stats returns the record of member userID in server guildID, against
	// members (vsAI false) or against the bot (vsAI true). A member who
	// never finished such a match has the zero record (with GuildID, UserID
	// and VsAI filled in), not an error.
	Stats(ctx context.Context, guildID, userID string, vsAI bool) (Stats, error)

	// Pair returns the record of member userID against member opponentID
	// in server guildID; the zero record when they never finished a match.
	Pair(ctx context.Context, guildID, userID, opponentID string) (PairRecord, error)

	// Leaderboard returns the best members of server guildID in matches
	// between members, at most limit of them (limit from 1 to 100, else an
	// error), ranked by the most match wins, then the higher win rate, then
	// the better round difference (rounds won minus rounds lost), then by
	// user ID (the catalog states the rule to users). Members with
	// no finished match are left out; matches against the bot do not
	// count.
	Leaderboard(ctx context.Context, guildID string, limit int) ([]Stats, error)

	// CountActive returns how many sessions are active (challenges and
	// matches being played) across all channels.
	CountActive(ctx context.Context) (int, error)

	// LastChallenge returns when member userID last opened a session as
	// challenger (Players[0]) in server guildID ("" for direct messages):
	// the newest CreatedAt of those sessions, whatever their phase, in
	// UTC; the zero time when they never did. Sessions removed by Forget
	// no longer count. It reads one index entry (for a cooldown between
	// one member's challenges, checked at every challenge).
	LastChallenge(ctx context.Context, guildID, userID string) (time.Time, error)

	// ActiveChannelsOf returns the channels, in any server or outside
	// one, whose active session (a challenge or a match being played) has
	// member userID as a player, on either side; sorted by channel ID,
	// and empty (not nil) when there is none.
	ActiveChannelsOf(ctx context.Context, userID string) ([]string, error)

	// GuildSettings returns the settings of server guildID, read from the
	// database at every call (no process keeps them in memory), so that a
	// change made through any process is seen at once by all of them. A
	// server that never changed its settings has the zero GuildSettings
	// with GuildID filled in, not an error. It returns an error wrapping
	// ErrCorrupt when the stored settings cannot be read back.
	GuildSettings(ctx context.Context, guildID string) (GuildSettings, error)

	// UpdateGuildSettings loads the settings of server guildID (the zero
	// value for a server that set nothing), calls fn on a copy, and if fn
	// returns nil writes the copy back with UpdatedAt from the clock and
	// UpdatedBy set to userID (the admin who changed them), and returns
	// it. GuildID stays guildID whatever fn does. If fn returns an error,
	// nothing is written and that error is returned unchanged.
	//
	// The write is a compare-and-swap on the row's revision, atomic across
	// processes: when another process changed the settings between the
	// load and the write, nothing is written and fn is called again on the
	// fresh settings, so two admins changing two different settings at
	// once, through two processes, both see their change kept. fn may
	// therefore run more than once and must have no other side effect;
	// it runs outside any transaction. Calls for one server are queued in
	// the process. After MaxAttempts lost races in a row it gives up with
	// ErrConflict. Keys of the stored JSON that this program does not know
	// (written by a newer version) are kept as they are.
	//
	// Besides fn's own error, it returns an error for an empty guildID,
	// one wrapping ErrCorrupt when the stored settings cannot be read (fn
	// is not called), ErrConflict as above, or ctx's error; in all these
	// cases nothing is written.
	UpdateGuildSettings(ctx context.Context, guildID, userID string, fn func(*GuildSettings) error) (GuildSettings, error)

	// Forget removes every stored row that names member userID, in one
	// transaction: the sessions they played in on either side (any phase;
	// the session IDs are never given again), their own member records,
	// the pair records between them and anyone, their ratings in every
	// server (their opponents' ratings stay as they are), their attempts
	// at puzzles, their puzzle record and the puzzles found in their
	// matches (PuzzleStore's rows; the puzzles' ratings stay), the records
	// of the result cards shared of their matches (CardStore), and their user
	// ID where it names who last changed a server's settings or who ended
	// a session (set to "" there, the row kept, its revision moved on). In
	// the tournaments they entered their entries are made anonymous rather
	// than removed (their user ID replaced by the placeholder ForgottenID
	// of the entry, in the entry and its pairings, their name emptied; in a
	// tournament not finished they are withdrawn; in one open for sign-up
	// the entry goes), so that the standings keep their results, and their
	// ID is cleared where it names who made or ended a tournament. It
	// returns the counts removed. Forget does not look at phases: the
	// caller ends the member's active sessions first (ActiveChannelsOf), as
	// it sees fit; rows written after Forget returns (a match the member
	// finishes later) are not removed. An empty userID is refused with an
	// error.
	//
	// This Store drops the removed sessions from its memory. Other
	// processes may still hold them in theirs, but never return them: every
	// load checks the row, so Get, Update and History in any process see
	// a channel whose newest session was removed as holding its previous
	// session, or none (ErrNotFound).
	Forget(ctx context.Context, userID string) (ForgetCounts, error)

	// Rating returns the rating of member userID in server guildID, as of
	// their last rated match there (see Update). A member never rated
	// there has rating.New() with Games 0, Best 0 and a zero LastPlayed
	// (GuildID and UserID filled in), not an error.
	Rating(ctx context.Context, guildID, userID string) (MemberRating, error)

	// RatingLeaderboard returns the members of server guildID with at
	// least MinRatedGames rated matches there, at most limit of them
	// (limit from 1 to 100, else an error), ranked by R, highest first,
	// then by the most rated matches, then by user ID (the catalog states
	// the rule to users). It reads one index in its order.
	RatingLeaderboard(ctx context.Context, guildID string, limit int) ([]MemberRating, error)

	// RatedToday returns how many rated matches members userA and userB
	// played with each other in server guildID (either one challenger)
	// that ended at or after since: finished matches whose result changed
	// their ratings (so not an unrated one, nor a rated one forfeited
	// before its first disc), counted by when they ended, on the Store's
	// clock. Sessions removed by Forget no longer count. For the limit of
	// RatedPerDay rated matches a day between two members.
	RatedToday(ctx context.Context, guildID, userA, userB string, since time.Time) (int, error)

	// Ping checks that the database answers, returning the cause when it
	// does not (for health checks).
	Ping(ctx context.Context) error

	// Close releases the database. Calls after Close return an error.
	Close() error
}

// MaxAttempts is how many times Update tries to write a session before it
// gives up with ErrConflict, each try on the state another process left.
// Every lost try means another process's write committed, so the bot as a
// whole always makes progress; the bound only stops one call that keeps
// losing (after a few losses it also waits a moment, up to a few
// milliseconds, before trying again).
const MaxAttempts = 32

// Options are the settings every backend's Open takes, set with Option
// functions.
type Options struct {
	// Clock is the clock every timestamp a Store writes comes from
	// (CreatedAt, UpdatedAt, a migration's applied_at, an export's
	// exported_at), converted to UTC; the system clock by default.
	Clock clock.Clock
	// CacheSize is how many decoded sessions a Store keeps in memory (see
	// WithCacheSize); DefaultCacheSize by default.
	CacheSize int
}

// DefaultCacheSize is how many decoded sessions a Store keeps by default:
// enough for every match being played on a large bot's process.
const DefaultCacheSize = 4096

// Option configures a Store in a backend's Open.
type Option func(*Options)

// WithClock makes the Store take its timestamps from c instead of the
// system clock. The times are converted to UTC. A nil c is ignored.
func WithClock(c clock.Clock) Option {
	return func(o *Options) {
		if c != nil {
			o.Clock = c
		}
	}
}

// WithCacheSize sets how many decoded sessions the Store keeps in memory,
// keyed by session ID and revision, so that an Update on a session it has
// seen at its current revision decodes and replays nothing. n <= 0 turns
// the cache off (every load decodes the row and replays the match, as
// benchmarks compare).
func WithCacheSize(n int) Option {
	return func(o *Options) { o.CacheSize = n }
}

// ApplyOptions returns the Options that opts make, from the defaults. For
// backends.
func ApplyOptions(opts ...Option) Options {
	o := Options{Clock: clock.Real(), CacheSize: DefaultCacheSize}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// ExportCounts are the rows a backend's Export wrote or its Import read,
// by table: matches (every session), member_stats, pair_records,
// guild_settings, member_ratings, the tournaments with their entries,
// rounds and pairings, and the puzzles' tables (each left out of the
// trailer when 0, as files made before them have it).
type ExportCounts struct {
	Matches            int `json:"matches"`
	MemberStats        int `json:"member_stats"`
	PairRecords        int `json:"pair_records"`
	GuildSettings      int `json:"guild_settings"`
	MemberRatings      int `json:"member_ratings"`
	Tournaments        int `json:"tournaments,omitempty"`
	TournamentEntries  int `json:"tournament_entries,omitempty"`
	TournamentRounds   int `json:"tournament_rounds,omitempty"`
	TournamentPairings int `json:"tournament_pairings,omitempty"`
	// The puzzles' tables (PuzzleStore): found_puzzles, puzzle_scans,
	// puzzle_ratings, puzzle_players, puzzle_attempts, puzzle_daily,
	// puzzle_days and puzzle_daily_posts.
	FoundPuzzles   int `json:"found_puzzles,omitempty"`
	PuzzleScans    int `json:"puzzle_scans,omitempty"`
	PuzzleRatings  int `json:"puzzle_ratings,omitempty"`
	PuzzlePlayers  int `json:"puzzle_players,omitempty"`
	PuzzleAttempts int `json:"puzzle_attempts,omitempty"`
	DailyPuzzles   int `json:"puzzle_daily,omitempty"`
	PuzzleDays     int `json:"puzzle_days,omitempty"`
	DailyPosts     int `json:"puzzle_daily_posts,omitempty"`
	// SharedCards counts the rows of shared_cards (CardStore).
	SharedCards int `json:"shared_cards,omitempty"`
}

// ExportOptions choose what a backend's Export writes.
type ExportOptions struct {
	// GuildID, when not empty, limits the export to one server: its
	// sessions (those whose GuildID it is), member records, pair records,
	// settings and ratings. Empty exports everything, direct messages included.
	GuildID string
}
