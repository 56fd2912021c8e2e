//go:build race

package tournament_test

// raceEnabled: under the race detector, which slows these single-goroutine
// tests about tenfold, the property tests check a tenth as many cases.
const raceEnabled = true
