//go:build !race

package connectortest

const raceEnabled = false
