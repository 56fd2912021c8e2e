package rating

import (
	"math"
	"time"
)

// The constants of the system. R, RD and σ of a new player and τ are the
// paper's suggestions (step 1); Epsilon is the paper's convergence tolerance
// for step 5; Scale is the paper's conversion factor between the Glicko scale
// and the Glicko-2 scale (steps 2 and 8).
const (
	// DefaultR is the rating of a new player, 1500 on the Glicko scale.
	DefaultR = 1500.0
	// DefaultRD is the rating deviation of a new player, 350 on the Glicko
	// scale. It is also MaxRD.
	DefaultRD = 350.0
	// DefaultSigma is the volatility of a new player, 0.06 (volatility is
	// always on the Glicko-2 scale, in rating units divided by Scale per
	// rating period).
	DefaultSigma = 0.06

	// Tau is the system constant τ, which constrains how fast the volatility
	// may change: 0.5, inside the paper's suggested range 0.3 to 1.2. Smaller
	// values damp the reaction to improbable results. Update and Match use it;
	// System chooses another.
	Tau = 0.5

	// Epsilon is the convergence tolerance ε = 0.000001 of the Illinois
	// iteration of step 5, on the scale of ln(σ²).
	Epsilon = 0.000001

	// Scale is 173.7178, the factor between the Glicko scale (R, RD) and the
	// Glicko-2 scale (μ, φ): μ = (R − 1500)/Scale and φ = RD/Scale.
	Scale = 173.7178

	// MaxRD is the largest RD that Idle produces: 350, the RD of a player
	// about whom nothing is known. Idling never raises RD above it; Update
	// follows the paper, which has no cap.
	MaxRD = 350.0

	// ProvisionalRD is the RD from which a rating is provisional: a rating
	// whose RD is at least 110 is shown by the bot as provisional (for
	// instance with a "?" after the number), as lichess does. A new player
	// (RD 350) needs a handful of games against established players to get
	// below it, and an established player who stops playing climbs back
	// above it after some months of Idle (see PeriodLength).
	ProvisionalRD = 110.0

	// PeriodLength is the length of time that the bot counts as one rating
	// period when it calls Idle: one day. Before a rated match, call
	// Idle(r, now.Sub(lastRated).Hours()/PeriodLength.Hours()) for each
	// player, then Match. With σ = 0.06 one period adds (0.06·Scale)² ≈ 108.6
	// to RD², so an established RD of 60 reaches ProvisionalRD after about 78
	// idle periods (about 2½ months) and MaxRD after about 1100 (3 years);
	// an RD of 45 becomes provisional after about 93 days. A longer period
	// slows this down in proportion. The match itself counts as one more
	// period (step 6 of Update).
	PeriodLength = 24 * time.Hour
)

// maxIterations bounds the Illinois iteration of step 5. The paper has no
// bound; the iteration converges superlinearly and takes well under 20 steps
// for any finite valid input (the tests check a wide grid), so the bound only
// guarantees that Update returns on invalid input such as an infinite σ.
const maxIterations = 100

// Rating is a player's Glicko-2 rating on the Glicko scale, the one shown to
// players.
//
// R is the rating, 1500 for a new player; RD is the rating deviation in the
// same units, one standard deviation of the estimate of R (R ± 2·RD is a 95%
// interval), at least 0 and at most MaxRD in practice (an unrated Update may
// pass it slightly, Idle never does); Sigma is the volatility σ on the
// Glicko-2 scale, the expected fluctuation of the player's strength per rating
// period, 0.06 for a new player and above 0. All three must be finite. The fields are plain float64 values, so a Rating
// round-trips exactly through encoding/json.
type Rating struct {
	R     float64 `json:"r"`
	RD    float64 `json:"rd"`
	Sigma float64 `json:"sigma"`
}

// New returns the rating of a new player: R 1500, RD 350, σ 0.06.
func New() Rating {
	return Rating{R: DefaultR, RD: DefaultRD, Sigma: DefaultSigma}
}

// Provisional reports whether r.RD is at least ProvisionalRD.
func (r Rating) Provisional() bool {
	return r.RD >= ProvisionalRD
}

// Result is the outcome of one game against one opponent, from the rated
// player's side: Score is 1 for a win, 0.5 for a draw and 0 for a loss (any
// value in [0, 1] is accepted, as the paper allows). Opponent is the
// opponent's rating at the start of the rating period.
type Result struct {
	Opponent Rating
	Score    float64
}

// Update returns r after one rating period in which the player had results,
// computed by steps 1 to 8 of Glickman's "Example of the Glicko-2 system"
// with τ = Tau and ε = Epsilon; σ′ is found with the paper's Illinois
// iteration (step 5). Every opponent's rating is the one from the start of the
// period. With no results, only RD grows: φ′ = sqrt(φ² + σ²) (step 6), with R
// and σ unchanged and no cap at MaxRD (Idle caps). Update does not modify r or
// results.
//
// Inputs must be finite with RD ≥ 0 and Sigma > 0 and scores in [0, 1]; for
// any other input the result is unspecified (it may hold NaN), but Update
// always returns.
func Update(r Rating, results []Result) Rating {
	return update(r, results, Tau, nil)
}

// System is the Glicko-2 system with a chosen τ, for ratings that need
// another than Tau: Update and Match are System{Tau: Tau}'s, bit for bit.
// Tau must be above 0; the paper suggests 0.3 to 1.2, and lichess rates
// puzzles with 0.75. A larger τ lets σ move further after a surprising
// result, so the rating follows a real change of strength sooner (step 5
// of the paper: "smaller values of τ prevent the volatility measures from
// changing by large amounts"). The zero System is not usable.
type System struct {
	Tau float64
}

// Update is the package's Update with s.Tau as τ.
func (s System) Update(r Rating, results []Result) Rating {
	return update(r, results, s.Tau, nil)
}

// Match is the package's Match with s.Tau as τ: one game between a and b
// as its own rating period for each, both computed from the ratings
// before it, scoreA being a's score.
func (s System) Match(a, b Rating, scoreA float64) (Rating, Rating) {
	na := s.Update(a, []Result{{Opponent: b, Score: scoreA}})
	nb := s.Update(b, []Result{{Opponent: a, Score: 1 - scoreA}})
	return na, nb
}

// Match rates one game between a and b as its own rating period for each
// player (an instant update, as lichess does): scoreA is a's score (1 a won,
// 0.5 draw, 0 b won) and b scores 1 − scoreA. Both new ratings are computed
// from the ratings before the game, so for the scores 0, 0.5 and 1,
// Match(b, a, 1−s) returns the results of Match(a, b, s) swapped, bit for
// bit. To account for the time since each player's last game, call Idle on
// each rating first (see PeriodLength).
func Match(a, b Rating, scoreA float64) (Rating, Rating) {
	return System{Tau: Tau}.Match(a, b, scoreA)
}

// Idle returns r after periods empty rating periods (a real number of periods,
// see PeriodLength): R and σ are unchanged and RD grows to
// Scale·sqrt(φ² + periods·σ²), the fractional extension of step 6 that lichess
// uses, capped at MaxRD. Idle never lowers RD: a rating whose RD is already
// MaxRD or more is returned unchanged, as is one idled for zero, negative or
// NaN periods. For periods = 1 and a result below MaxRD, RD equals that of
// Update(r, nil) exactly.
func Idle(r Rating, periods float64) Rating {
	if !(periods > 0) || r.RD >= MaxRD {
		return r
	}
	r.RD = math.Min(grow(r.RD, r.Sigma, periods), MaxRD)
	return r
}

// grow returns RD on the Glicko scale after periods periods without games:
// Scale·sqrt(φ² + periods·σ²) with φ = rd/Scale.
func grow(rd, sigma, periods float64) float64 {
	phi := rd / Scale
	return Scale * math.Sqrt(phi*phi+periods*sigma*sigma)
}

// trace holds the intermediate values of one update, named as in the paper,
// for the tests that compare them with the worked example.
type trace struct {
	mu, phi           float64   // step 2
	muJ, phiJ, g, e   []float64 // steps 2 and 3, one per result
	v, delta          float64   // steps 3 and 4
	a, initA, initB   float64   // step 5.1 and 5.2: a = ln(σ²), the first bracket
	iterations        int       // step 5.4: passes of the Illinois loop
	sigma             float64   // step 5.5: σ′
	phiStar           float64   // step 6: φ*
	phiPrime, muPrime float64   // step 7: φ′, μ′
}

// update is Update with an explicit τ, recording intermediate values in tr
// when tr is not nil.
func update(r Rating, results []Result, tau float64, tr *trace) Rating {
	// Step 2: the Glicko-2 scale.
	mu := (r.R - DefaultR) / Scale
	phi := r.RD / Scale
	if tr != nil {
		tr.mu, tr.phi = mu, phi
	}
	if len(results) == 0 {
		// Step 6 alone: an unrated period only widens the deviation.
		return Rating{R: r.R, RD: grow(r.RD, r.Sigma, 1), Sigma: r.Sigma}
	}

	// Steps 3 and 4: v = 1/Σ g(φj)² E (1 − E) and Δ = v Σ g(φj)(sj − E).
	var sumV, sumD float64
	for _, res := range results {
		muJ := (res.Opponent.R - DefaultR) / Scale
		phiJ := res.Opponent.RD / Scale
		gJ := g(phiJ)
		eJ := 1 / (1 + math.Exp(-gJ*(mu-muJ)))
		sumV += gJ * gJ * eJ * (1 - eJ)
		sumD += gJ * (res.Score - eJ)
		if tr != nil {
			tr.muJ = append(tr.muJ, muJ)
			tr.phiJ = append(tr.phiJ, phiJ)
			tr.g = append(tr.g, gJ)
			tr.e = append(tr.e, eJ)
		}
	}
	v := 1 / sumV
	delta := v * sumD

	// Step 5: the new volatility.
	sigma := volatility(delta, phi, v, r.Sigma, tau, tr)

	// Step 6: the pre-period deviation.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)

	// Step 7: φ′ = 1/sqrt(1/φ*² + 1/v) and μ′ = μ + φ′² Σ g(φj)(sj − E).
	phiPrime := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muPrime := mu + phiPrime*phiPrime*sumD
	if tr != nil {
		tr.v, tr.delta = v, delta
		tr.sigma, tr.phiStar, tr.phiPrime, tr.muPrime = sigma, phiStar, phiPrime, muPrime
	}

	// Step 8: back to the Glicko scale. r′ = Scale·μ′ + 1500 is computed as
	// r + Scale·(μ′ − μ), the same value without the round trip through μ, so
	// that a result exactly as expected leaves R exactly unchanged.
	return Rating{
		R:     r.R + Scale*phiPrime*phiPrime*sumD,
		RD:    Scale * phiPrime,
		Sigma: sigma,
	}
}

// g is the paper's g(φ) = 1/sqrt(1 + 3φ²/π²).
func g(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

// volatility is step 5 of the paper: it finds σ′ = exp(A/2) where A is the
// root of f(x) = eˣ(Δ² − φ² − v − eˣ)/(2(φ² + v + eˣ)²) − (x − a)/τ², a =
// ln(σ²), by the Illinois variant of regula falsi, to within Epsilon.
func volatility(delta, phi, v, sigma, tau float64, tr *trace) float64 {
	delta2, phi2, tau2 := delta*delta, phi*phi, tau*tau
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi2 + v + ex
		return ex*(delta2-phi2-v-ex)/(2*d*d) - (x-a)/tau2
	}

	// 5.2: the initial bracket [A, B] around ln(σ′²). The loop over k ends:
	// f(a − kτ) ≥ k/τ − 1/2 grows without bound in k (and a NaN stops it).
	A := a
	var B float64
	if delta2 > phi2+v {
		B = math.Log(delta2 - phi2 - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 {
			k++
		}
		B = a - k*tau
	}
	if tr != nil {
		tr.a, tr.initA, tr.initB = a, A, B
	}

	// 5.3 and 5.4: narrow the bracket. fC·fB ≤ 0 (not < 0) keeps the loop
	// finite when f(C) is exactly zero.
	fA, fB := f(A), f(B)
	i := 0
	for ; math.Abs(B-A) > Epsilon && i < maxIterations; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	if tr != nil {
		tr.iterations = i
	}

	// 5.5: σ′ = e^(A/2).
	return math.Exp(A / 2)
}
