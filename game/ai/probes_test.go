package ai

import "testing"

// TestProbesSettle drives the null-window sequence of a solve (probes.med)
// against every score of the empty 7x6 board's interval, with probes whose
// fail-soft results say as little as they can (med on a fail low, med+1 on
// a fail high) or as much (the score itself), for each order: every window
// must lie inside the interval, and the interval must close on the score
// within the probes a bisection of it needs, plus the probe at 0 and the
// one next to it.
func TestProbesSettle(t *testing.T) {
	defer func() { probeBy = 0 }()
	for _, by := range []int{0, 1, 2} {
		probeBy = by
		for score := -21; score <= 21; score++ {
			for _, tight := range []bool{false, true} {
				lo, hi := -21, 21
				var next probes
				n := 0
				for lo < hi {
					next.lo, next.hi = lo, hi
					med := next.med()
					if med < lo || med >= hi {
						t.Fatalf("order %d, score %d: window (%d,%d) outside [%d,%d]", by, score, med, med+1, lo, hi)
					}
					r := med + 1
					if score <= med {
						r = med
					}
					if tight {
						r = score
					}
					next.last = r
					if r <= med {
						hi = r
					} else {
						lo = r
					}
					if n++; n > 43 {
						t.Fatalf("order %d, score %d: not settled after %d probes", by, score, n)
					}
				}
				if lo != score {
					t.Fatalf("order %d, score %d: settled on %d", by, score, lo)
				}
				if limit := 8; by != 2 && n > limit {
					t.Errorf("order %d, score %d, tight %v: %d probes, want at most %d", by, score, tight, n, limit)
				}
			}
		}
	}
}
