//go:build !race

package ai

// ponsLimit is how many positions of each Pons set TestPons checks.
const ponsLimit = 100

const raceEnabled = false
