//go:build !race

package tournament_test

const raceEnabled = false
