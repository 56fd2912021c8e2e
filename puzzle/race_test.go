//go:build race

package puzzle

// raceEnabled is true under the race detector, which slows the solver and
// the self-play tenfold or more: the slowest tests then check fewer
// positions, saying so.
const raceEnabled = true
