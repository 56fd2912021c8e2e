//go:build race

package ai

// ponsLimit is how many positions of each Pons set TestPons checks under
// the race detector, which slows the search about tenfold; the plain run
// (and CI's explicit step) checks 100.
const ponsLimit = 10

const raceEnabled = true
