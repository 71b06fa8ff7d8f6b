package main

import (
	"fmt"
	"os"
	"sync"
)

// cleanups run on a fatal error too (check exits without running defers):
// stop the live servers, drop the databases, remove the temp dir.
var (
	cleanupMu sync.Mutex
	cleanups  []func()
)

func atExit(f func()) {
	cleanupMu.Lock()
	cleanups = append(cleanups, f)
	cleanupMu.Unlock()
}

func runCleanups() {
	cleanupMu.Lock()
	fs := cleanups
	cleanups = nil
	cleanupMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		runCleanups()
		os.Exit(1)
	}
}

func must(ok bool, what string) {
	if !ok {
		fmt.Fprintln(os.Stderr, "bench: check failed:", what)
		runCleanups()
		os.Exit(1)
	}
}
