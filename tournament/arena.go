package tournament

import (
	"fmt"
	"slices"
	"time"

	"github.com/connectn/connectn/tournament/internal/matching"
)

// arenaRecord is one player's arena so far.
type arenaRecord struct {
	points                     int // arena points
	streak                     int // wins in a row at the end: on fire from 2
	last                       int // the last opponent (index into Players), −1 for none
	diff                       int // openers minus seconds
	lastC                      int // +1 opened the last game, −1 went second, 0 no game
	busy                       bool
	games, wins, draws, losses int
	played                     int     // games played (no forfeit), for the performance
	oppRating                  float64 // the sum of those opponents' ratings
}

// The arena's points (lichess's arena scoring, without berserk).
const (
	arenaWin  = 2
	arenaDraw = 1
	onFireAt  = 2 // wins in a row after which points double
)

// arenaRecords replays the arena: each player's games in the order they
// were paired (a player has one game at a time, so that is the order they
// ended), counting points and streaks. A win scores 2, a draw 1, a loss 0;
// while a player is on fire (their last two games or more were wins) a win
// scores 4 and a draw 2, and any result but a win puts the fire out. A win
// by forfeit counts as a win; a double forfeit as a loss for both.
func arenaRecords(s State) ([]arenaRecord, map[string]int) {
	idx := make(map[string]int, len(s.Players))
	rec := make([]arenaRecord, len(s.Players))
	for i, p := range s.Players {
		idx[p.ID] = i
		rec[i].last = -1
	}
	for _, r := range s.Rounds {
		for _, p := range r.Pairings {
			a, b := idx[p.Opener], idx[p.Second]
			rec[a].last, rec[b].last = b, a
			rec[a].diff++
			rec[b].diff--
			rec[a].lastC, rec[b].lastC = +1, -1
			if p.Result == Pending {
				rec[a].busy, rec[b].busy = true, true
				continue
			}
			oa, ob := p.Result.outcomes()
			for _, x := range []struct {
				me, opp int
				o       outcome
			}{{a, b, oa}, {b, a, ob}} {
				m := &rec[x.me]
				fire := 1
				if m.streak >= onFireAt {
					fire = 2
				}
				m.games++
				switch x.o {
				case win:
					m.points += arenaWin * fire
					m.streak++
					m.wins++
				case draw:
					m.points += arenaDraw * fire
					m.streak = 0
					m.draws++
				default:
					m.streak = 0
					m.losses++
				}
				if !p.Result.Forfeit() {
					m.played++
					m.oppRating += s.Players[x.opp].rating()
				}
			}
		}
	}
	return rec, idx
}

// ArenaPair pairs the players waiting for a game in the arena s at now:
// the most pairs possible among them, never two who played each other in
// either's last game (no immediate rematch), and among those pairings the
// one with the least total difference of arena points, then of rating (a
// maximum-weight matching, as lichess's arena pairs its waiting players).
// The one who opened less often opens (then the one who went second in
// their last game, then the drawing of lots). It returns the round to
// append to s: Number one more than the last, Started now, the pairings
// (highest scores first); players left unpaired keep waiting. Duplicates in
// waiting count once, and its order does not matter. A game paired before
// the end is played out, and its result counts.
//
// It returns an error wrapping ErrInvalidConfig or ErrInvalidState
// (s.Validate), ErrWrongFormat for a Swiss or a round robin, ErrNotStarted
// before s.Started (or when it is zero), ErrTournamentOver from
// ArenaEnd(s) on, ErrUnknownPlayer, ErrWithdrawn or ErrBusy for a waiting
// player who is not an entry, has withdrawn or still has a game without a
// result, or ErrNoPairing when no two waiting players may be paired.
func ArenaPair(s State, waiting []string, now time.Time) (Round, error) {
	if err := s.Validate(); err != nil {
		return Round{}, err
	}
	switch {
	case s.Config.Format != Arena:
		return Round{}, fmt.Errorf("a %s pairs with NextRound: %w", s.Config.Format, ErrWrongFormat)
	case s.Started.IsZero() || now.Before(s.Started):
		return Round{}, fmt.Errorf("the arena starts at %v: %w", s.Started, ErrNotStarted)
	case !now.Before(ArenaEnd(s)):
		return Round{}, fmt.Errorf("the arena ended at %v: %w", ArenaEnd(s), ErrTournamentOver)
	}
	rec, idx := arenaRecords(s)
	var pool []int
	for _, id := range waiting {
		i, ok := idx[id]
		switch {
		case !ok:
			return Round{}, fmt.Errorf("waiting player %q: %w", id, ErrUnknownPlayer)
		case s.Players[i].Withdrawn:
			return Round{}, fmt.Errorf("waiting player %s: %w", id, ErrWithdrawn)
		case rec[i].busy:
			return Round{}, fmt.Errorf("waiting player %s: %w", id, ErrBusy)
		}
		if !slices.Contains(pool, i) {
			pool = append(pool, i)
		}
	}
	slices.SortFunc(pool, func(a, b int) int {
		if c := rec[b].points - rec[a].points; c != 0 {
			return c
		}
		return byRating(s, a, b)
	})
	var edges []matching.Edge
	var costs [][nCrit]int64
	for u := range pool {
		for v := u + 1; v < len(pool); v++ {
			a, b := pool[u], pool[v]
			if rec[a].last == b || rec[b].last == a {
				continue
			}
			var c [nCrit]int64 // the arena's two criteria, in the Swiss's slots
			c[critScore] = int64(abs(rec[a].points - rec[b].points))
			c[critHalf] = int64(abs(int(s.Players[a].rating() - s.Players[b].rating())))
			edges = append(edges, matching.Edge{U: u, V: v})
			costs = append(costs, c)
		}
	}
	var per [nCrit]int64
	for k := range per {
		per[k] = int64(len(pool) / 2)
	}
	weights, err := lexicographic(costs, per)
	if err != nil {
		return Round{}, err
	}
	for k := range edges {
		edges[k].W = weights[k]
	}
	mate, err := matching.MaxWeight(len(pool), edges, true)
	if err != nil {
		return Round{}, fmt.Errorf("arena pairing: %w", err)
	}
	number := len(s.Rounds) + 1
	round := Round{Number: number, Started: now}
	for u, v := range mate {
		if v <= u {
			continue
		}
		a, b := pool[u], pool[v]
		aOpens := rec[a].diff < rec[b].diff
		switch {
		case rec[a].diff != rec[b].diff:
		case rec[a].lastC != rec[b].lastC:
			aOpens = rec[a].lastC < rec[b].lastC
		default:
			aOpens = lot(s.Seed, 0xa2e4a, uint64(number), uint64(a), uint64(b))&1 == 0
		}
		if !aOpens {
			a, b = b, a
		}
		round.Pairings = append(round.Pairings, Pairing{Opener: s.Players[a].ID, Second: s.Players[b].ID})
	}
	if len(round.Pairings) == 0 {
		return Round{}, fmt.Errorf("%d waiting, none of whom may play another: %w", len(pool), ErrNoPairing)
	}
	return round, nil
}

// arenaStandings ranks an arena: points, then performance, rating, entry.
func arenaStandings(s State) []Standing {
	rec, _ := arenaRecords(s)
	out := make([]Standing, len(s.Players))
	perf := make([]float64, len(s.Players))
	for i, pl := range s.Players {
		r := rec[i]
		if r.played > 0 {
			perf[i] = (r.oppRating + 400*float64(r.wins-r.losses)) / float64(r.played)
		}
		out[i] = Standing{
			Player: pl.ID, Points: float64(r.points),
			Games: r.games, Wins: r.wins, Draws: r.draws, Losses: r.losses,
			TieBreaks: TieBreaks{Performance: perf[i]},
			Rating:    pl.rating(), Withdrawn: pl.Withdrawn, OnFire: r.streak >= onFireAt,
		}
	}
	order := make([]int, len(s.Players))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := rec[b].points - rec[a].points; c != 0 {
			return c
		}
		switch {
		case perf[a] > perf[b]:
			return -1
		case perf[a] < perf[b]:
			return 1
		}
		return byRating(s, a, b)
	})
	ranked := make([]Standing, len(order))
	for i, p := range order {
		ranked[i] = out[p]
		ranked[i].Rank = i + 1
	}
	return ranked
}
