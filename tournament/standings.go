package tournament

import (
	"fmt"
	"slices"
)

// TieBreaks are the values that order players level on points. In a Swiss
// or a round robin: Buchholz, then Sonneborn–Berger, then the direct
// encounter (see the package documentation for the exact definitions); in
// an arena, Performance. All are exact: multiples of a quarter point.
type TieBreaks struct {
	// Buchholz is the sum of the adjusted scores of the player's
	// opponents, an unplayed round counting a virtual opponent.
	Buchholz float64 `json:"buchholz"`
	// SonnebornBerger is the sum, over the player's rounds, of their points
	// in the round times their opponent's adjusted score (the virtual
	// opponent's in an unplayed round).
	SonnebornBerger float64 `json:"sonneborn_berger"`
	// Direct is the player's points in played games against the others
	// level with them on points, Buchholz and Sonneborn–Berger, when
	// DirectApplied: all of those played each other. Otherwise it is 0
	// and decides nothing.
	Direct        float64 `json:"direct"`
	DirectApplied bool    `json:"direct_applied,omitempty"`
	// Performance (arena only) is the linear performance rating over the
	// played games: the opponents' average rating plus 400 × (wins −
	// losses) / games; 0 with no played game.
	Performance float64 `json:"performance,omitempty"`
}

// Standing is one line of the standings.
type Standing struct {
	// Rank is the place, from 1; every player has a place of their own
	// (the last tie-breaks are the rating and then the order of entry).
	Rank   int     `json:"rank"`
	Player string  `json:"player"`
	Points float64 `json:"points"`
	// Games counts the player's games with a result, forfeits included,
	// byes not; Wins, Draws and Losses split them.
	Games  int `json:"games"`
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
	// Byes counts the player's byes (Swiss and round robin).
	Byes      int       `json:"byes,omitempty"`
	TieBreaks TieBreaks `json:"tie_breaks"`
	// Rating is the player's entry rating (rating.DefaultR for none).
	Rating    float64 `json:"rating"`
	Withdrawn bool    `json:"withdrawn,omitempty"`
	// OnFire (arena only) is set while the player's last two games or
	// more were wins: their next win counts 4 and a draw 2.
	OnFire bool `json:"on_fire,omitempty"`
}

// Standings returns every entry, withdrawn players included, ranked from
// the results so far (a game without a result counts for nothing yet):
// by points, then, in a Swiss or a round robin, Buchholz, Sonneborn–Berger
// and the direct encounter, in an arena by performance; then by rating and
// last by the order of entry. It returns an error wrapping ErrInvalidConfig
// or ErrInvalidState when s.Validate fails.
func Standings(s State) ([]Standing, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Config.Format == Arena {
		return arenaStandings(s), nil
	}
	return roundStandings(s), nil
}

// Score returns the points of player id so far: in a Swiss or a round
// robin 1 a win, ½ a draw, 1 a bye; in an arena the arena points. It
// returns an error wrapping ErrUnknownPlayer, or the error of s.Validate.
func Score(s State, id string) (float64, error) {
	st, err := Standings(s)
	if err != nil {
		return 0, err
	}
	for _, x := range st {
		if x.Player == id {
			return x.Points, nil
		}
	}
	return 0, fmt.Errorf("player %q: %w", id, ErrUnknownPlayer)
}

// roundStandings ranks a Swiss or a round robin. Values are kept in half
// points (Buchholz) and quarter points (Sonneborn–Berger) to be exact.
func roundStandings(s State) []Standing {
	h := newHistory(s)
	n := len(s.Rounds)
	np := len(s.Players)
	// adjusted[q]: q's score in half-points with every unplayed round
	// (bye, forfeit, absence) counted as a draw: FIDE's rule for the
	// opponents of a player with unplayed rounds.
	adjusted := make([]int, np)
	for q := range np {
		for _, sl := range h.slots[q] {
			switch sl.kind {
			case played:
				adjusted[q] += sl.points2
			case unplayed, absent:
				adjusted[q]++
			}
		}
	}
	bh2 := make([]int, np)
	sb4 := make([]int, np)
	out := make([]Standing, np)
	for p := range np {
		before := 0 // p's half-points before round r
		st := &out[p]
		for r, sl := range h.slots[p] {
			switch sl.kind {
			case played:
				bh2[p] += adjusted[sl.opp]
				sb4[p] += sl.points2 * adjusted[sl.opp]
			case unplayed, absent:
				// The virtual opponent: p's score before the round, the
				// opposite result in it, then a draw every later round.
				virtual := before + (2 - sl.points2) + (n - (r + 1))
				bh2[p] += virtual
				sb4[p] += sl.points2 * virtual
			}
			before += sl.points2
			if sl.opp >= 0 && (sl.kind == played || sl.kind == unplayed) {
				st.Games++
				switch sl.points2 {
				case 2:
					st.Wins++
				case 1:
					st.Draws++
				default:
					st.Losses++
				}
			}
		}
		pl := s.Players[p]
		st.Player, st.Points, st.Byes = pl.ID, float64(h.points2[p])/2, h.byes[p]
		st.Rating, st.Withdrawn = pl.rating(), pl.Withdrawn
		st.TieBreaks.Buchholz = float64(bh2[p]) / 2
		st.TieBreaks.SonnebornBerger = float64(sb4[p]) / 4
	}
	order := make([]int, np)
	for i := range order {
		order[i] = i
	}
	level := func(a, b int) int {
		if c := h.points2[b] - h.points2[a]; c != 0 {
			return c
		}
		if c := bh2[b] - bh2[a]; c != 0 {
			return c
		}
		return sb4[b] - sb4[a]
	}
	slices.SortStableFunc(order, level)
	direct := make([]int, np)
	for start := 0; start < np; {
		end := start + 1
		for end < np && level(order[start], order[end]) == 0 {
			end++
		}
		group := order[start:end]
		if len(group) > 1 && allPlayed(h, group) {
			for _, a := range group {
				for _, sl := range h.slots[a] {
					if sl.kind == played && slices.Contains(group, sl.opp) {
						direct[a] += sl.points2
					}
				}
				out[a].TieBreaks.Direct = float64(direct[a]) / 2
				out[a].TieBreaks.DirectApplied = true
			}
		}
		start = end
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := level(a, b); c != 0 {
			return c
		}
		if c := direct[b] - direct[a]; c != 0 {
			return c
		}
		return byRating(s, a, b)
	})
	ranked := make([]Standing, np)
	for i, p := range order {
		ranked[i] = out[p]
		ranked[i].Rank = i + 1
	}
	return ranked
}

// allPlayed reports whether every two players of group played a game (not
// a forfeit) against each other.
func allPlayed(h *history, group []int) bool {
	for i, a := range group {
		for _, b := range group[i+1:] {
			if !slices.ContainsFunc(h.slots[a], func(sl slot) bool { return sl.kind == played && sl.opp == b }) {
				return false
			}
		}
	}
	return true
}

// byRating orders players a and b by rating (highest first), then by entry.
func byRating(s State, a, b int) int {
	ra, rb := s.Players[a].rating(), s.Players[b].rating()
	switch {
	case ra > rb:
		return -1
	case ra < rb:
		return 1
	}
	return a - b
}
