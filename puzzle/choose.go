package puzzle

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/connectn/connectn/rating"
)

// PickWindow is how many of the unseen puzzles nearest a member's rating
// Pick chooses among.
const PickWindow = 20

// Pick chooses a puzzle of pool for a member rated member who has seen the
// puzzles whose IDs seen holds (nil: none): one of the PickWindow unseen
// puzzles whose Rating.R is nearest member.R (ties by ID), drawn with a
// generator seeded by seed, so the same pool, rating, seen set and seed
// give the same puzzle whatever the pool's order. Pool entries carry their
// current rating (the store's, not only InitialRating). ok is false when
// every puzzle of pool has been seen.
func Pick(pool []Puzzle, member rating.Rating, seen map[string]bool, seed uint64) (p Puzzle, ok bool) {
	var unseen []Puzzle
	for _, q := range pool {
		if !seen[q.ID] {
			unseen = append(unseen, q)
		}
	}
	if len(unseen) == 0 {
		return Puzzle{}, false
	}
	slices.SortFunc(unseen, func(a, b Puzzle) int {
		da, db := math.Abs(a.Rating.R-member.R), math.Abs(b.Rating.R-member.R)
		switch {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	n := min(len(unseen), PickWindow)
	rng := rand.New(rand.NewPCG(seed, 0x70757a7a6c65))
	return unseen[rng.IntN(n)], true
}

// Daily returns the puzzle of the day date (its year, month and day in
// date's location; the time of day does not count) for the whole bot,
// chosen from the well-rated puzzles of pool: those whose rating is no
// longer provisional (RD below rating.ProvisionalRD, so attempts have
// settled it), or every puzzle of pool when none is. Among them it takes
// the one whose hash of the date and its ID is highest (rendezvous
// hashing): a deterministic function of the date and the set of
// candidates, not of their order, which changes when a new candidate beats
// the day's pick, and picks every puzzle about as often. Ratings move
// during the day, and with them the candidates: the caller chooses once a
// day and keeps its choice. ok is false for an empty pool.
func Daily(pool []Puzzle, date time.Time) (p Puzzle, ok bool) {
	var well []Puzzle
	for _, q := range pool {
		if !q.Rating.Provisional() {
			well = append(well, q)
		}
	}
	if len(well) == 0 {
		well = pool
	}
	day := date.Format(time.DateOnly)
	var best uint64
	for _, q := range well {
		h := sha256.Sum256([]byte(day + "/" + q.ID))
		x := binary.BigEndian.Uint64(h[:8])
		if !ok || x > best || (x == best && q.ID < p.ID) {
			p, best, ok = q, x, true
		}
	}
	return p, ok
}
