//go:build race

package connectortest

// raceEnabled is true when built with -race (the memory test then streams
// fewer records: the race detector makes every access slower and heavier).
const raceEnabled = true
