//go:build race

package bot_test

// raceEnabled is set when the tests run under the race detector, which
// makes every click some ten times slower: the long end-to-end tests
// then play a smaller field.
const raceEnabled = true
