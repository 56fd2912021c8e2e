package sessions

import (
	"context"
	"time"
)

// TournamentStore keeps tournaments: their settings, entries, rounds and
// pairings (with each pairing's game and result). Both backends' stores are
// one (they implement Store and TournamentStore on one database), and a
// caller that holds a Store finds it with a type assertion. It is an
// interface of its own, rather than more methods on Store, because only
// the tournaments feature and the scheduler's sweep of tournaments use it,
// each declaring what it needs, and a Store without tournaments (a test's
// fake) stays a Store.
//
// A TournamentStore ties tournaments to the sessions that play their
// games, on the Store it is, in the transactions of the Store's own writes:
//
//   - Store.Create of a session whose Tournament link is set records the
//     session (its ID and channel) on the pairing it names, in the
//     transaction that inserts it, when the pairing has no session yet,
//     no result, and its tournament is running; otherwise nothing is
//     stored and Create returns an error wrapping ErrGameTaken. So a game
//     has one session, however many processes start it at once.
//   - Store.Update that ends such a session (finished, or cancelled)
//     records its result on the pairing (TournamentResult), in the
//     transaction that writes the end (with its stats and ratings), when
//     the pairing has no result yet (a result once given stands; the later
//     one is dropped), moves the tournament's revision on and makes it due
//     at once (Due), so that the scheduler's next sweep pairs the next
//     round when that was the last result. A result is thus never lost nor
//     counted twice, and a crash between the result and the next round
//     leaves a tournament that the next sweep finds due.
//
// Every method holds across processes on one database.
type TournamentStore interface {
	// CreateTournament stores t (see NewTournament) as a new tournament
	// and returns the stored copy, with ID, Revision 0, CreatedAt and
	// UpdatedAt assigned from the Store's clock; t itself is not changed.
	// It returns an error wrapping ErrInvalidTournament when t breaks a
	// rule (Tournament.Validate).
	CreateTournament(ctx context.Context, t *Tournament) (*Tournament, error)

	// Tournament returns the tournament id, or an error wrapping
	// ErrTournamentNotFound, or ErrCorrupt for rows that cannot be read
	// back.
	Tournament(ctx context.Context, id int64) (*Tournament, error)

	// UpdateTournament loads tournament id, calls fn on a copy of it, and
	// if fn returns nil writes the copy back and returns it: its row
	// (status, settings, posts, Due, EndedBy, UpdatedAt from the clock,
	// Revision one more), its entries as they now are (joined, removed,
	// withdrawn, their names), the rounds fn added with their pairings,
	// and the results and games fn changed. If fn returns an error,
	// nothing is written and the error is returned unchanged.
	//
	// The write is a compare-and-swap on the tournament's revision, which
	// every write to the tournament moves on (a result recorded with a
	// session's end included): when another process wrote between the
	// load and the write, nothing is written and fn is called again on
	// the fresh tournament. fn may therefore run more than once and must
	// have no other side effect; only the call whose write commits counts.
	// So a change made by two processes at once (the next round paired by
	// two replicas that saw the last result at the same instant) is made
	// once: the second process's fn runs again on the tournament the
	// first left, where the round is paired already. After MaxAttempts
	// lost races it gives up with ErrConflict. The rounds are also keyed
	// by their number in the database, which refuses a round twice.
	//
	// Besides fn's error, it returns an error wrapping
	// ErrTournamentNotFound, ErrCorrupt, ErrInvalidTournament when fn
	// broke a rule (CheckTournamentChange), ErrConflict, or ctx's error;
	// in all these cases nothing is written.
	UpdateTournament(ctx context.Context, id int64, fn func(*Tournament) error) (*Tournament, error)

	// Tournaments returns the tournaments of server guildID, newest first,
	// at most limit of them (limit from 1 to 100, else an error).
	Tournaments(ctx context.Context, guildID string, limit int) ([]*Tournament, error)

	// DueTournaments returns the IDs of the tournaments whose Due has come
	// at now (at or before it), the earliest first, at most limit (all when
	// limit <= 0). Every process may see the same tournament due; the
	// caller settles it with UpdateTournament (Step), whose
	// compare-and-swap makes each change once.
	DueTournaments(ctx context.Context, now time.Time, limit int) ([]int64, error)
}
