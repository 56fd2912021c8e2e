package tournament

// pairBerger returns the next round of a round robin from the Berger
// tables (FIDE Handbook C.05, Annex 1): with N players (one more, a dummy,
// when their number is odd; whoever meets it sits the round out with a
// bye), round 1 pairs 1–N, 2–(N−1), …, N/2–(N/2+1), the first named
// opening; each later round adds N/2 to every number but N, modulo N−1 (in
// 1..N−1), and the pairing with N swaps its openers. So every player meets
// every other once in N−1 rounds, and player N's openers alternate. The
// pairing numbers are the entries shuffled by the tournament's seed (a
// drawing of lots). A double round robin plays the N−1 rounds again with
// the openers swapped. A withdrawn player's game is not played: their
// opponent wins by forfeit at once (and a withdrawn player's bye, or a game
// of two withdrawn players, is left out).
func pairBerger(s State) ([]Pairing, error) {
	n := len(s.Players)
	if n < 2 {
		return nil, errTooFew(n)
	}
	size := n + n%2
	order := numbers(s.Seed, n) // order[k]: the player with pairing number k+1
	cycle := size - 1
	r := len(s.Rounds) // rounds played: the next is r+1
	table := bergerRound(size, r%cycle+1)
	swap := (r/cycle)%2 == 1
	var out []Pairing
	var bye *Pairing
	for _, t := range table {
		a, b := t[0], t[1]
		if swap {
			a, b = b, a
		}
		if a > n || b > n { // the dummy: a bye
			p := a
			if a > n {
				p = b
			}
			pl := s.Players[order[p-1]]
			if !pl.Withdrawn {
				bye = &Pairing{Opener: pl.ID, Result: Bye}
			}
			continue
		}
		pa, pb := s.Players[order[a-1]], s.Players[order[b-1]]
		p := Pairing{Opener: pa.ID, Second: pb.ID}
		switch {
		case pa.Withdrawn && pb.Withdrawn:
			continue
		case pa.Withdrawn:
			p.Result = SecondWinsByForfeit
		case pb.Withdrawn:
			p.Result = OpenerWinsByForfeit
		}
		out = append(out, p)
	}
	if bye != nil {
		out = append(out, *bye)
	}
	return out, nil
}

// bergerRound returns round (1..size−1) of the Berger table for size (even)
// players: pairs of pairing numbers, the first opening.
func bergerRound(size, round int) [][2]int {
	table := make([][2]int, size/2)
	for i := range table {
		table[i] = [2]int{i + 1, size - i}
	}
	step := func(x int) int {
		if x == size {
			return x
		}
		return (x-1+size/2)%(size-1) + 1
	}
	for range round - 1 {
		for i, t := range table {
			a, b := step(t[0]), step(t[1])
			if a == size || b == size {
				a, b = b, a // the pairing with N swaps its openers
			}
			table[i] = [2]int{a, b}
		}
	}
	return table
}

// numbers returns a permutation of 0..n−1 drawn from seed (Fisher–Yates).
func numbers(seed int64, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(lot(seed, 0xbe12, uint64(i)) % uint64(i+1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}
