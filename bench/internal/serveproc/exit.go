// Package serveproc runs `faucet serve` subprocesses for the benchmark
// programs (bench/serve, bench/cluster): start one on a loopback port the
// kernel picks, talk to it over HTTP, stop it, and on a fatal error stop
// everything that was started, print the server's log tail and exit.
package serveproc

import (
	"fmt"
	"os"
	"sync"
)

// Cleanups run on a fatal error too (Check exits without running defers):
// stop the live servers, drop the databases, remove the temp dir.
var (
	cleanupMu sync.Mutex
	cleanups  []func()
)

// AtExit registers f to run (in reverse order) at RunCleanups.
func AtExit(f func()) {
	cleanupMu.Lock()
	cleanups = append(cleanups, f)
	cleanupMu.Unlock()
}

// RunCleanups runs the registered cleanups once, newest first.
func RunCleanups() {
	cleanupMu.Lock()
	fs := cleanups
	cleanups = nil
	cleanupMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// Check exits (after the cleanups) when err is not nil.
func Check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		RunCleanups()
		os.Exit(1)
	}
}

// Must exits (after the cleanups) when ok is false.
func Must(ok bool, what string) {
	if !ok {
		fmt.Fprintln(os.Stderr, "bench: check failed:", what)
		RunCleanups()
		os.Exit(1)
	}
}
