package main

import "github.com/faucet-hq/faucet/bench/internal/serveproc"

// The fatal-exit cleanups and the HTTP helper are serveproc's.
var (
	atExit      = serveproc.AtExit
	runCleanups = serveproc.RunCleanups
	check       = serveproc.Check
	must        = serveproc.Must
	do          = serveproc.Do
)
