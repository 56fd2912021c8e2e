//go:build race

package ai

// ponsLimit is how many positions of each Pons set TestPons checks under
// the race detector, which slows the search five- to tenfold: a few of the
// fast sets, none of the two slowest (their first 100 positions take minutes
// even without it). The plain run, and CI's own step, check 100 of every set.
func ponsLimit(set string) int {
	switch set {
	case "Test_L1_R2", "Test_L1_R3":
		return 0
	case "Test_L2_R2":
		return 3
	}
	return 10
}

const raceEnabled = true
