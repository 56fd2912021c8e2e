package rating_test

import (
	"math"
	"testing"

	"github.com/connectn/connectn/rating"
)

// TestSystemAtTauIsUpdate holds that System{Tau: Tau} rates exactly as
// Update and Match do, bit for bit, over the grid and the random pairs.
func TestSystemAtTauIsUpdate(t *testing.T) {
	s := rating.System{Tau: rating.Tau}
	for _, p := range pairs() {
		for _, sc := range scores {
			res := []rating.Result{{Opponent: p[1], Score: sc}}
			if got, want := s.Update(p[0], res), rating.Update(p[0], res); got != want {
				t.Fatalf("System.Update(%+v, %v) = %+v, Update %+v", p[0], res, got, want)
			}
			ga, gb := s.Match(p[0], p[1], sc)
			wa, wb := rating.Match(p[0], p[1], sc)
			if ga != wa || gb != wb {
				t.Fatalf("System.Match(%+v, %+v, %v) = %+v %+v, Match %+v %+v", p[0], p[1], sc, ga, gb, wa, wb)
			}
		}
	}
}

// TestSystemTauMovesVolatility checks what Glickman's paper says of τ
// (step 1 of "Example of the Glicko-2 system"): it "constrains the change
// in volatility over time", smaller values preventing the volatility from
// changing by large amounts. After a result far from expectation σ rises,
// the more the larger τ; after results close to it (the paper's example) σ
// falls a little, again the more the larger τ. After the upset, the larger
// σ′ widens φ′ and R falls further.
func TestSystemTauMovesVolatility(t *testing.T) {
	taus := []float64{0.3, 0.5, 0.75, 1.2}
	tests := []struct {
		name    string
		r       rating.Rating
		results []rating.Result
		rise    bool
	}{
		{
			name: "an upset: established player loses to a much weaker one",
			r:    rating.Rating{R: 2000, RD: 50, Sigma: 0.06},
			results: []rating.Result{
				{Opponent: rating.Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
				{Opponent: rating.Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
				{Opponent: rating.Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
			},
			rise: true,
		},
		{
			name: "the paper's example",
			r:    rating.Rating{R: 1500, RD: 200, Sigma: 0.06},
			results: []rating.Result{
				{Opponent: rating.Rating{R: 1400, RD: 30, Sigma: 0.06}, Score: 1},
				{Opponent: rating.Rating{R: 1550, RD: 100, Sigma: 0.06}, Score: 0},
				{Opponent: rating.Rating{R: 1700, RD: 300, Sigma: 0.06}, Score: 0},
			},
			rise: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev, prevR := 0.0, tt.r.R
			for i, tau := range taus {
				got := rating.System{Tau: tau}.Update(tt.r, tt.results)
				if tt.rise && !(got.R < prevR) {
					t.Errorf("τ %v: R′ = %v, not below %v", tau, got.R, prevR)
				}
				prevR = got.R
				change := got.Sigma - tt.r.Sigma
				if (change > 0) != tt.rise {
					t.Errorf("τ %v: σ′ = %v from %v, want a rise: %v", tau, got.Sigma, tt.r.Sigma, tt.rise)
				}
				if i > 0 && !(math.Abs(change) > prev) {
					t.Errorf("τ %v: |σ′ − σ| = %.3g, not above %.3g at τ %v", tau, math.Abs(change), prev, taus[i-1])
				}
				prev = math.Abs(change)
			}
		})
	}
}
