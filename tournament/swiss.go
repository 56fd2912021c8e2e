package tournament

import (
	"fmt"
	"slices"

	"github.com/connectn/connectn/tournament/internal/matching"
)

func errTooFew(n int) error {
	return fmt.Errorf("%d player(s) to pair: %w", n, ErrTooFewPlayers)
}

// The criteria of a Swiss pairing, most important first: each is a cost per
// pair, and a pairing's costs are compared criterion by criterion (the sum
// of the first, then of the second, and so on), as the quality criteria of
// FIDE's Dutch system (C.04.3, section C) are. The package documentation
// states them for players.
const (
	critBye       = iota // the bye's recipient: 0 for the lowest in pairing order
	critColour           // players pushed beyond one opener more than seconds, or the reverse
	critScore            // |score difference| in half-points
	critSquare           // its square: two pairs one point apart before one two apart
	critAlternate        // players with balanced openers who do not alternate from their last game
	critHalf             // within a score group, top half against bottom half
	nCrit
)

// swissPlan is the data of one Swiss pairing: the players to pair, in
// pairing order, and what the costs need.
type swissPlan struct {
	h     *history
	order []int  // player indices in pairing order
	group []int  // score group of order[i], 0 for the top score
	rank  []int  // order[i]'s place in its group, from 0
	size  []int  // the size of each score group
	diff  []int  // order[i]'s openers minus seconds
	last  []int  // order[i]'s colour in their last game: +1, −1, 0 for none
	met   []bool // met[i*len(order)+j]: order[i] and order[j] were paired
	bye   bool   // an odd number to pair: vertex len(order) is the bye
	round int    // the number of the round being paired
}

func newSwissPlan(s State) *swissPlan {
	h := newHistory(s)
	p := &swissPlan{h: h, round: len(s.Rounds) + 1}
	p.order = h.pairingOrder(func(i int) bool { return !s.Players[i].Withdrawn })
	p.group = make([]int, len(p.order))
	p.rank = make([]int, len(p.order))
	for i, pl := range p.order {
		if i == 0 || h.points2[pl] != h.points2[p.order[i-1]] {
			p.size = append(p.size, 0) // a new score group
		}
		g := len(p.size) - 1
		p.group[i], p.rank[i] = g, p.size[g]
		p.size[g]++
	}
	m := len(p.order)
	p.bye = m%2 == 1
	p.diff, p.last = make([]int, m), make([]int, m)
	at := make([]int, len(s.Players)) // player index → place in order, or −1
	for i := range at {
		at[i] = -1
	}
	for i, pl := range p.order {
		p.diff[i], p.last[i] = h.colourDiff(pl), h.lastColour(pl)
		at[pl] = i
	}
	p.met = make([]bool, m*m)
	for i, pl := range p.order {
		for _, sl := range h.slots[pl] {
			if sl.opp >= 0 && sl.kind != absent && at[sl.opp] >= 0 {
				p.met[i*m+at[sl.opp]] = true
			}
		}
	}
	return p
}

// colourCost returns, for player i of the plan opening (opens) or going
// second, how far beyond one their openers and seconds would be apart, and
// 1 if they have balanced openers and would repeat their last colour.
func (p *swissPlan) colourCost(i int, opens bool) (beyond, repeat int) {
	c := -1
	if opens {
		c = +1
	}
	d := p.diff[i]
	beyond = max(0, abs(d+c)-1)
	if d == 0 && p.last[i] == c {
		repeat = 1
	}
	return beyond, repeat
}

// preference returns +1 when player i should open, −1 when they should go
// second, 0 when they have no preference: the side they opened less often,
// or the opposite of their last game when balanced.
func (p *swissPlan) preference(i int) int {
	switch d := p.diff[i]; {
	case d > 0:
		return -1
	case d < 0:
		return +1
	}
	return -p.last[i]
}

// orientKey scores i opening against j: the colour criteria, then whether
// the higher placed (i < j) and then the lower placed player misses their
// preference (FIDE's colour allocation rules, C.04.3 E.1, E.2 and E.4).
func (p *swissPlan) orientKey(i, j int, iOpens bool) [4]int {
	bi, ri := p.colourCost(i, iOpens)
	bj, rj := p.colourCost(j, !iOpens)
	miss := func(k int, opens bool) int {
		pref := p.preference(k)
		if pref == 0 || (pref > 0) == opens {
			return 0
		}
		return 1
	}
	hi, lo := i, j
	hiOpens := iOpens
	if j < i {
		hi, lo, hiOpens = j, i, !iOpens
	}
	return [4]int{bi + bj, ri + rj, miss(hi, hiOpens), miss(lo, !hiOpens)}
}

// orient returns whether i should open against j, and false for a tie
// (then the lot decides).
func (p *swissPlan) orient(i, j int) (iOpens, decided bool) {
	a, b := p.orientKey(i, j, true), p.orientKey(i, j, false)
	switch c := slices.Compare(a[:], b[:]); {
	case c < 0:
		return true, true
	case c > 0:
		return false, true
	}
	return false, false
}

// costs returns the criteria of pairing i with j (i < j, both indices into
// the plan's order), with j == len(order) for the bye.
func (p *swissPlan) costs(i, j int) [nCrit]int64 {
	var c [nCrit]int64
	if j == len(p.order) {
		c[critBye] = int64(len(p.order) - 1 - i)
		return c
	}
	a, b := p.orientKey(i, j, true), p.orientKey(i, j, false)
	best := a
	if slices.Compare(b[:2], a[:2]) < 0 {
		best = b
	}
	c[critColour] = int64(best[0])
	c[critAlternate] = int64(best[1])
	d := int64(abs(p.h.points2[p.order[i]] - p.h.points2[p.order[j]]))
	c[critScore] = d
	c[critSquare] = d * d
	gi, gj := p.group[i], p.group[j]
	if gi == gj {
		c[critHalf] = int64(abs(2*abs(p.rank[i]-p.rank[j]) - p.size[gi]))
	} else {
		// A floater: the lowest of the higher group against the highest
		// of the lower one costs nothing.
		c[critHalf] = int64(p.size[gi] - 1 - p.rank[i] + p.rank[j])
	}
	return c
}

// allowed reports whether i may meet j (j == len(order): take the bye):
// never two who were paired before, and a bye only for a player who had
// none (FIDE's absolute criteria C.04.3 C.1 and C.2).
func (p *swissPlan) allowed(i, j int) bool {
	if j == len(p.order) {
		return p.h.byes[p.order[i]] == 0
	}
	return !p.met[i*len(p.order)+j]
}

// window says which pairs the matching tries first (matching.MaxWeightPriced):
// players at most window apart in the pairing order, and players of one
// score group at most window from half the group apart (where the last
// criterion wants them). Other pairs join only when the dual variables show
// they could improve the pairing, so the result is the same, only faster.
const window = 8

// likely reports whether the pair i, j (i < j) is among those tried first.
func (p *swissPlan) likely(i, j int) bool {
	switch {
	case j-i <= window:
		return true
	case j == len(p.order): // the bye, far from the bottom
		return false
	}
	return p.group[i] == p.group[j] && abs(2*(j-i)-p.size[p.group[i]]) <= 2*window
}

// pairSwiss returns the next Swiss round: a maximum-weight matching over
// the allowed pairs, of the most pairs, whose weights rank the pairings by
// the criteria above, most important first.
func pairSwiss(s State) ([]Pairing, error) {
	p := newSwissPlan(s)
	m := len(p.order)
	if m < 2 {
		return nil, errTooFew(m)
	}
	vertices := m
	if p.bye {
		vertices++
	}
	// The allowed pairs (i < j, j == m for the bye) and their criteria.
	ends := make([][2]int, 0, vertices*(vertices-1)/2)
	costs := make([][nCrit]int64, 0, vertices*(vertices-1)/2)
	for i := range m {
		for j := i + 1; j < vertices; j++ {
			if p.allowed(i, j) {
				ends = append(ends, [2]int{i, j})
				costs = append(costs, p.costs(i, j))
			}
		}
	}
	per := [nCrit]int64{}
	for k := range per {
		per[k] = int64(vertices / 2)
	}
	per[critBye] = 1 // one bye at most
	weights, err := lexicographic(costs, per)
	if err != nil {
		return nil, err
	}
	edges := make([]matching.Edge, len(ends))
	first := make([]bool, len(ends))
	for k, e := range ends {
		edges[k] = matching.Edge{U: e[0], V: e[1], W: weights[k]}
		first[k] = p.likely(e[0], e[1])
	}
	mate, err := matching.MaxWeightPriced(vertices, edges, first)
	if err != nil {
		return nil, fmt.Errorf("swiss pairing: %w", err)
	}
	if p.bye && mate[m] == -1 {
		return nil, fmt.Errorf("round %d, %d players: no player who could take the bye is left without one: %w", p.round, m, ErrNoPairing)
	}
	if slices.Contains(mate, -1) {
		return nil, fmt.Errorf("round %d, %d players: every pairing repeats a game: %w", p.round, m, ErrNoPairing)
	}
	// Boards: the best placed player's place first, the bye last.
	var boards [][2]int
	byeFor := -1
	for i := range m {
		j := mate[i]
		switch {
		case j == m:
			byeFor = i
		case i < j:
			boards = append(boards, [2]int{i, j})
		}
	}
	draw := lot(s.Seed, 0xc010, uint64(p.round)) & 1
	out := make([]Pairing, 0, len(boards)+1)
	for b, t := range boards {
		i, j := t[0], t[1]
		iOpens, decided := p.orient(i, j)
		if !decided {
			// The drawing of lots: the higher placed player opens on
			// alternate boards, starting from the side drawn for board 1.
			iOpens = (uint64(b)+draw)%2 == 0
		}
		a, c := s.Players[p.order[i]].ID, s.Players[p.order[j]].ID
		if !iOpens {
			a, c = c, a
		}
		out = append(out, Pairing{Opener: a, Second: c})
	}
	if byeFor >= 0 {
		out = append(out, Pairing{Opener: s.Players[p.order[byeFor]].ID, Result: Bye})
	}
	return out, nil
}

// lexicographic turns per-pair criteria into matching weights such that a
// matching of the most pairs with the greatest total weight has, among
// those, the least total of the first criterion, then of the second, and so
// on. per[k] is the most pairs of a matching that may have criterion k
// above 0. Each criterion is scaled by one more than the most the totals of
// the later ones can reach (per times their largest value); the weight is
// the largest possible cost plus one, less the pair's cost, so every weight
// is positive. It returns an error wrapping ErrNoPairing if the scale would
// pass matching.WeightLimit (TestLexicographicFits checks it does not for
// MaxPlayers and MaxRounds).
func lexicographic(costs [][nCrit]int64, per [nCrit]int64) ([]matching.Weight, error) {
	var maxOf [nCrit]int64
	for _, c := range costs {
		for k, v := range c {
			maxOf[k] = max(maxOf[k], v)
		}
	}
	tooBig := fmt.Errorf("the pairing criteria do not fit the weights: %w", ErrNoPairing)
	var scale [nCrit]matching.Weight
	total := matching.Int(0) // the largest cost of the criteria after k
	for k := nCrit - 1; k >= 0; k-- {
		scale[k] = total.Add(matching.Int(1))
		term, ok := scale[k].MulInt(maxOf[k] * per[k])
		if !ok {
			return nil, tooBig
		}
		total = total.Add(term)
		if matching.WeightLimit.Less(total) {
			return nil, tooBig
		}
	}
	out := make([]matching.Weight, len(costs))
	for i, c := range costs {
		w := total.Add(matching.Int(1))
		for k, v := range c {
			t, _ := scale[k].MulInt(v)
			w = w.Sub(t)
		}
		out[i] = w
	}
	return out, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
