package rating_test

import (
	"fmt"

	"github.com/connectn/connectn/rating"
)

// The worked example of Glickman's paper: one rating period with three games.
func ExampleUpdate() {
	player := rating.Rating{R: 1500, RD: 200, Sigma: 0.06}
	got := rating.Update(player, []rating.Result{
		{Opponent: rating.Rating{R: 1400, RD: 30, Sigma: 0.06}, Score: 1},
		{Opponent: rating.Rating{R: 1550, RD: 100, Sigma: 0.06}, Score: 0},
		{Opponent: rating.Rating{R: 1700, RD: 300, Sigma: 0.06}, Score: 0},
	})
	fmt.Printf("r′ %.2f, RD′ %.2f, σ′ %.6f\n", got.R, got.RD, got.Sigma)
	// Output: r′ 1464.05, RD′ 151.52, σ′ 0.059996
}

// Two new players; the first wins. Both are still provisional.
func ExampleMatch() {
	a, b := rating.Match(rating.New(), rating.New(), 1)
	fmt.Printf("%.1f ± %.1f provisional %v\n", a.R, a.RD, a.Provisional())
	fmt.Printf("%.1f ± %.1f provisional %v\n", b.R, b.RD, b.Provisional())
	// Output:
	// 1662.3 ± 290.3 provisional true
	// 1337.7 ± 290.3 provisional true
}

// An established player who has not played for 90 days (PeriodLength is one
// day) is provisional again.
func ExampleIdle() {
	r := rating.Rating{R: 1820, RD: 60, Sigma: 0.06}
	r = rating.Idle(r, 90)
	fmt.Printf("%.0f ± %.1f provisional %v\n", r.R, r.RD, r.Provisional())
	// Output: 1820 ± 115.7 provisional true
}
