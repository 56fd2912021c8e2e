//go:build !race

package ai

import "os"

// ponsLimit is how many positions of each Pons set TestPons checks in a
// plain run: the first 100 of every set but the slowest, Test_L1_R3
// (Begin-Hard, whose first 100 take minutes), of which the first 10;
// CONNECTN_PONS=100 (set by a step of .ci/run) checks 100 of that one too.
func ponsLimit(set string) int {
	if set == "Test_L1_R3" && os.Getenv("CONNECTN_PONS") != "100" {
		return 10
	}
	return 100
}

const raceEnabled = false
