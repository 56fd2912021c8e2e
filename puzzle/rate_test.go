package puzzle

import (
	"math"
	"testing"

	"github.com/connectn/connectn/rating"
)

// TestRateWorkedExample checks Rate against a Glicko-2 update worked out by
// hand, step by step as in Glickman's "Example of the Glicko-2 system",
// with τ = 0.75 (the arithmetic was done in a separate script, not with
// this package). A member at 1600 ± 150 (σ 0.06) fails a puzzle at
// 1400 ± 80 (σ 0.06).
//
// The member: μ = 0.575646, φ = 0.863469; the puzzle μj = −0.575646, φj =
// 0.460517; g(φj) = 0.969247, E = 0.753225, v = 5.726706, Δ = −4.180847;
// step 5 gives σ′ = 0.06000797; φ* = 0.865552, φ′ = 0.813947, μ′ =
// 0.091974; so R′ = 1515.9775, RD′ = 141.3970.
//
// The puzzle: μ = −0.575646, φ = 0.460517 against μj = 0.575646, φj =
// 0.863469; g = 0.902908, E = 0.261244, v = 6.355730, Δ = 4.239451; σ′ =
// 0.06000802, φ* = 0.464410, φ′ = 0.456726, μ′ = −0.436505; so R′ =
// 1424.1713, RD′ = 79.3414.
func TestRateWorkedExample(t *testing.T) {
	member := rating.Rating{R: 1600, RD: 150, Sigma: 0.06}
	puzzle := rating.Rating{R: 1400, RD: 80, Sigma: 0.06}
	gotM, gotP := Rate(member, puzzle, false)
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{name: "member R′", got: gotM.R, want: 1515.9775, tol: 0.0001},
		{name: "member RD′", got: gotM.RD, want: 141.3970, tol: 0.0001},
		{name: "member σ′", got: gotM.Sigma, want: 0.06000797, tol: 0.00000001},
		{name: "puzzle R′", got: gotP.R, want: 1424.1713, tol: 0.0001},
		{name: "puzzle RD′", got: gotP.RD, want: 79.3414, tol: 0.0001},
		{name: "puzzle σ′", got: gotP.Sigma, want: 0.06000802, tol: 0.00000001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if math.Abs(tt.got-tt.want) > tt.tol {
				t.Errorf("got %.8f, want %.8f ± %g", tt.got, tt.want, tt.tol)
			}
		})
	}
}

// TestRateSolvedIsAWin holds that solving raises the member and lowers the
// puzzle, failing the reverse, and that τ is the puzzles' 0.75, not the
// matches' 0.5.
func TestRateSolvedIsAWin(t *testing.T) {
	member, puzzle := rating.Rating{R: 1500, RD: 350, Sigma: 0.06}, rating.Rating{R: 1700, RD: 300, Sigma: 0.06}
	m, p := Rate(member, puzzle, true)
	if !(m.R > member.R && p.R < puzzle.R) {
		t.Errorf("solved: member %v -> %v, puzzle %v -> %v", member.R, m.R, puzzle.R, p.R)
	}
	m, p = Rate(member, puzzle, false)
	if !(m.R < member.R && p.R > puzzle.R) {
		t.Errorf("failed: member %v -> %v, puzzle %v -> %v", member.R, m.R, puzzle.R, p.R)
	}
	if half, _ := rating.Match(member, puzzle, 0); half == m {
		t.Errorf("Rate gives the match ratings' τ 0.5 result %+v", half)
	}
}
