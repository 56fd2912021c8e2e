package rating

import (
	"math"
	"testing"
)

// paperPlayer and paperResults are the worked example of Glickman's "Example
// of the Glicko-2 system": a player at 1500 ± 200 (σ 0.06) beats a 1400 ± 30
// player and loses to 1550 ± 100 and 1700 ± 300, with τ = 0.5.
var (
	paperPlayer  = Rating{R: 1500, RD: 200, Sigma: 0.06}
	paperResults = []Result{
		{Opponent: Rating{R: 1400, RD: 30, Sigma: 0.06}, Score: 1},
		{Opponent: Rating{R: 1550, RD: 100, Sigma: 0.06}, Score: 0},
		{Opponent: Rating{R: 1700, RD: 300, Sigma: 0.06}, Score: 0},
	}
)

// TestPaperExample checks the worked example's result against the figures
// the paper prints, to the paper's precision.
func TestPaperExample(t *testing.T) {
	if Tau != 0.5 {
		t.Fatalf("Tau = %v, the paper's example needs 0.5", Tau)
	}
	got := Update(paperPlayer, paperResults)
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{name: "r′", got: got.R, want: 1464.06, tol: 0.01},
		{name: "RD′", got: got.RD, want: 151.52, tol: 0.01},
		{name: "σ′", got: got.Sigma, want: 0.05999, tol: 0.00001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertNear(t, tt.got, tt.want, tt.tol)
		})
	}
}

// TestPaperExampleFullPrecision pins the example's result as computed without
// the paper's rounding of intermediate values (the paper carries E to three
// decimals, hence its v = 1.7785 and r′ = 1464.06), so that any change of the
// arithmetic shows.
func TestPaperExampleFullPrecision(t *testing.T) {
	got := Update(paperPlayer, paperResults)
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{name: "r′", got: got.R, want: 1464.0507, tol: 0.0001},
		{name: "RD′", got: got.RD, want: 151.5165, tol: 0.0001},
		{name: "σ′", got: got.Sigma, want: 0.0599960, tol: 0.0000001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertNear(t, tt.got, tt.want, tt.tol)
		})
	}
}

// TestPaperIntermediates checks the intermediate values that the paper prints
// for its example, step by step. The tolerance is half a unit of the last
// printed digit, except where the paper computes from its own rounded values:
// v and Δ (from E rounded to three decimals) and φ* (from φ = 1.1513).
func TestPaperIntermediates(t *testing.T) {
	var tr trace
	update(paperPlayer, paperResults, 0.5, &tr)
	if len(tr.g) != 3 {
		t.Fatalf("trace holds %d opponents, want 3", len(tr.g))
	}
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{name: "step 2 μ", got: tr.mu, want: 0, tol: 0.00005},
		{name: "step 2 φ", got: tr.phi, want: 1.1513, tol: 0.00005},
		{name: "step 2 μ1", got: tr.muJ[0], want: -0.5756, tol: 0.00005},
		{name: "step 2 μ2", got: tr.muJ[1], want: 0.2878, tol: 0.00005},
		{name: "step 2 μ3", got: tr.muJ[2], want: 1.1513, tol: 0.00005},
		{name: "step 2 φ1", got: tr.phiJ[0], want: 0.1727, tol: 0.00005},
		{name: "step 2 φ2", got: tr.phiJ[1], want: 0.5756, tol: 0.00005},
		{name: "step 2 φ3", got: tr.phiJ[2], want: 1.7269, tol: 0.00005},
		{name: "step 3 g(φ1)", got: tr.g[0], want: 0.9955, tol: 0.00005},
		{name: "step 3 g(φ2)", got: tr.g[1], want: 0.9531, tol: 0.00005},
		{name: "step 3 g(φ3)", got: tr.g[2], want: 0.7242, tol: 0.00005},
		{name: "step 3 E1", got: tr.e[0], want: 0.639, tol: 0.0005},
		{name: "step 3 E2", got: tr.e[1], want: 0.432, tol: 0.0005},
		{name: "step 3 E3", got: tr.e[2], want: 0.303, tol: 0.0005},
		{name: "step 3 v", got: tr.v, want: 1.7785, tol: 0.001},
		{name: "step 4 Δ", got: tr.delta, want: -0.4834, tol: 0.001},
		{name: "step 5.1 a = ln(σ²)", got: tr.a, want: -5.62682, tol: 0.000005},
		{name: "step 5.2 A = a", got: tr.initA, want: -5.62682, tol: 0.000005},
		{name: "step 5.2 B = a − τ (k = 1, as Δ² ≤ φ² + v)", got: tr.initB, want: -6.12682, tol: 0.000005},
		{name: "step 5.5 σ′", got: tr.sigma, want: 0.05999, tol: 0.00001},
		{name: "step 6 φ*", got: tr.phiStar, want: 1.152862, tol: 0.00001},
		{name: "step 7 φ′", got: tr.phiPrime, want: 0.8722, tol: 0.00005},
		{name: "step 7 μ′", got: tr.muPrime, want: -0.2069, tol: 0.00005},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertNear(t, tt.got, tt.want, tt.tol)
		})
	}
	if tr.iterations < 1 || tr.iterations > 20 {
		t.Errorf("Illinois iterations = %d, want between 1 and 20", tr.iterations)
	}
}

// TestVolatilityBranches covers both initial brackets of step 5.2: B = ln(Δ²
// − φ² − v) after a result far from expectation, and B = a − kτ otherwise,
// and checks that σ′ lies between them and solves f(ln σ′²) ≈ 0.
func TestVolatilityBranches(t *testing.T) {
	tests := []struct {
		name      string
		r         Rating
		results   []Result
		wantLogB  bool // true: B = ln(Δ² − φ² − v)
		sigmaRise bool // true: σ′ > σ
	}{
		{
			name:      "paper example",
			r:         paperPlayer,
			results:   paperResults,
			wantLogB:  false,
			sigmaRise: false,
		},
		{
			name: "established player loses five times to much weaker players",
			r:    Rating{R: 2000, RD: 50, Sigma: 0.06},
			results: []Result{
				{Opponent: Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
				{Opponent: Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
				{Opponent: Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
				{Opponent: Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
				{Opponent: Rating{R: 1300, RD: 50, Sigma: 0.06}, Score: 0},
			},
			wantLogB:  true,
			sigmaRise: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr trace
			got := update(tt.r, tt.results, Tau, &tr)
			phi2 := tr.phi * tr.phi
			if logB := tr.delta*tr.delta > phi2+tr.v; logB != tt.wantLogB {
				t.Fatalf("Δ² > φ² + v is %v, want %v", logB, tt.wantLogB)
			}
			if tt.wantLogB {
				assertNear(t, tr.initB, math.Log(tr.delta*tr.delta-phi2-tr.v), 0)
			}
			if rise := got.Sigma > tt.r.Sigma; rise != tt.sigmaRise {
				t.Errorf("σ′ = %v from σ = %v, rise %v, want %v", got.Sigma, tt.r.Sigma, rise, tt.sigmaRise)
			}
			x := math.Log(got.Sigma * got.Sigma)
			lo, hi := math.Min(tr.initA, tr.initB), math.Max(tr.initA, tr.initB)
			if x < lo-Epsilon || x > hi+Epsilon {
				t.Errorf("ln σ′² = %v outside the first bracket [%v, %v]", x, lo, hi)
			}
			// f(x) at the root, with the values of the trace.
			ex := math.Exp(x)
			d := phi2 + tr.v + ex
			f := ex*(tr.delta*tr.delta-phi2-tr.v-ex)/(2*d*d) - (x-tr.a)/(Tau*Tau)
			// |f′| ≤ 1/τ² + 1/2 near the root, so |x − root| ≤ ε bounds |f|.
			assertNear(t, f, 0, 5*Epsilon)
		})
	}
}

func assertNear(t *testing.T, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("got %.7f, want %.7f ± %g (off by %.2g)", got, want, tol, math.Abs(got-want))
	}
}

// TestIllinoisIterations checks that the Illinois iteration converges in few
// steps over a wide grid of players, opponents and results, far from the
// guard maxIterations that the paper does not have.
func TestIllinoisIterations(t *testing.T) {
	const limit = 20
	most := 0
	var rs []Rating
	for _, r := range []float64{500, 1000, 1500, 2000, 2500} {
		for _, rd := range []float64{10, 30, 60, 110, 200, 350} {
			for _, s := range []float64{0.01, 0.03, 0.06, 0.09, 0.15} {
				rs = append(rs, Rating{R: r, RD: rd, Sigma: s})
			}
		}
	}
	for _, a := range rs {
		for _, b := range rs {
			for _, s := range []float64{0, 0.5, 1} {
				var tr trace
				update(a, []Result{{Opponent: b, Score: s}}, Tau, &tr)
				most = max(most, tr.iterations)
				if tr.iterations > limit {
					t.Fatalf("%+v against %+v scoring %v: %d iterations", a, b, s, tr.iterations)
				}
			}
		}
	}
	t.Logf("at most %d Illinois iterations (limit %d, guard %d)", most, limit, maxIterations)
}
