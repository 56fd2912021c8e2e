//go:build !race

package ai

// ponsLimit is how many positions of each Pons set TestPons checks in a
// plain run: the first 100 of every set (CI runs it as its own step).
func ponsLimit(set string) int { return 100 }

const raceEnabled = false
