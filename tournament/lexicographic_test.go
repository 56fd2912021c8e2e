package tournament

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLexicographicFits checks the criteria of the largest Swiss the
// package accepts (MaxPlayers, MaxRounds: every criterion at the most it
// can reach) fit the matching's weights, and one more does not.
func TestLexicographicFits(t *testing.T) {
	pairs := int64(MaxPlayers / 2)
	worst := [nCrit]int64{
		critBye:       MaxPlayers - 1,
		critColour:    2 * MaxRounds, // two players each MaxRounds beyond one
		critScore:     2 * MaxRounds, // half-points
		critSquare:    2 * MaxRounds * 2 * MaxRounds,
		critAlternate: 2,
		critHalf:      2 * MaxPlayers,
	}
	per := [nCrit]int64{1, pairs, pairs, pairs, pairs, pairs}
	if _, err := lexicographic([][nCrit]int64{worst}, per); err != nil {
		t.Fatalf("the largest Swiss: %v", err)
	}
	worse := worst
	worse[critSquare] *= 1 << 20
	if _, err := lexicographic([][nCrit]int64{worse}, per); !errors.Is(err, ErrNoPairing) {
		t.Errorf("criteria far beyond the limits: %v, want ErrNoPairing", err)
	}
}

// TestLexicographicOrder checks the weights of single pairs order their
// criteria lexicographically: a pair whose criteria come first weighs more.
func TestLexicographicOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 15))
	costs := make([][nCrit]int64, 500)
	for i := range costs {
		for k := range costs[i] {
			costs[i][k] = int64(rng.IntN(4))
		}
	}
	var per [nCrit]int64
	for k := range per {
		per[k] = 1
	}
	w, err := lexicographic(costs, per)
	if err != nil {
		t.Fatal(err)
	}
	for i := range costs {
		for j := range costs {
			if c := slices.Compare(costs[i][:], costs[j][:]); c != -w[i].Cmp(w[j]) {
				t.Fatalf("criteria %v and %v compare %d, weights %v and %v", costs[i], costs[j], c, w[i], w[j])
			}
		}
	}
}
