package tournament

import "slices"

// slotKind is what a player did in one round.
type slotKind int8

const (
	absent   slotKind = iota // not paired: withdrawn (or entered later)
	pending                  // paired in a game without a result yet
	played                   // a game played to a result
	unplayed                 // a bye, or a game won or lost by forfeit
)

// slot is one player's round: what happened, against whom (−1: nobody)
// and the half-points it gave them.
type slot struct {
	kind    slotKind
	opp     int
	points2 int
	opened  bool // the player was the pairing's opener
}

// history is the tournament seen player by player, by their index in
// State.Players; points are counted in half-points to stay exact.
type history struct {
	s       State
	idx     map[string]int
	slots   [][]slot // slots[player][round-1]
	points2 []int    // half-points from every decided result
	byes    []int
	colours [][]int8 // +1 opened, −1 second, for each pairing with an opponent
}

func newHistory(s State) *history {
	n := len(s.Players)
	h := &history{
		s:       s,
		idx:     make(map[string]int, n),
		slots:   make([][]slot, n),
		points2: make([]int, n),
		byes:    make([]int, n),
		colours: make([][]int8, n),
	}
	for i, p := range s.Players {
		h.idx[p.ID] = i
		h.slots[i] = make([]slot, len(s.Rounds))
		for r := range h.slots[i] {
			h.slots[i][r] = slot{kind: absent, opp: -1}
		}
	}
	for r, round := range s.Rounds {
		for _, p := range round.Pairings {
			a := h.idx[p.Opener]
			if p.IsBye() {
				h.slots[a][r] = slot{kind: unplayed, opp: -1, points2: 2, opened: true}
				h.points2[a] += 2
				h.byes[a]++
				continue
			}
			b := h.idx[p.Second]
			h.colours[a] = append(h.colours[a], +1)
			h.colours[b] = append(h.colours[b], -1)
			kind := played
			switch {
			case p.Result == Pending:
				kind = pending
			case p.Result.Forfeit():
				kind = unplayed
			}
			pa, pb := p.Result.Points()
			h.slots[a][r] = slot{kind: kind, opp: b, points2: int(2 * pa), opened: true}
			h.slots[b][r] = slot{kind: kind, opp: a}
			h.slots[b][r].points2 = int(2 * pb)
			h.points2[a] += int(2 * pa)
			h.points2[b] += int(2 * pb)
		}
	}
	return h
}

// colourDiff returns how many more times player i opened than went second.
func (h *history) colourDiff(i int) int {
	d := 0
	for _, c := range h.colours[i] {
		d += int(c)
	}
	return d
}

// lastColour returns +1 or −1 for player i's last pairing with an
// opponent, 0 when they have none.
func (h *history) lastColour(i int) int {
	if c := h.colours[i]; len(c) > 0 {
		return int(c[len(c)-1])
	}
	return 0
}

// pairingOrder returns the indices of the players for whom keep is true,
// in the pairing order: most points first, then highest rating, then
// earliest entry (FIDE's ranking order for pairing, C.04.2 A.2, with the
// rating as the pairing number).
func (h *history) pairingOrder(keep func(i int) bool) []int {
	var out []int
	for i := range h.s.Players {
		if keep(i) {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		if h.points2[a] != h.points2[b] {
			return h.points2[b] - h.points2[a]
		}
		ra, rb := h.s.Players[a].rating(), h.s.Players[b].rating()
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return a - b
	})
	return out
}
