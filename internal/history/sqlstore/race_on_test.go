//go:build race

package sqlstore_test

// raceEnabled trims the randomized property test under the race detector,
// which slows SQLite roughly tenfold.
const raceEnabled = true
