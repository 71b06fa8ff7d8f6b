// Package connectortest is the conformance suite every faucet connector
// runs: Run(t, Factory) checks that the config schema is a JSON Schema
// object, that a source streams many records with bounded memory, that an
// incremental source resumes from a bookmark, that bad configs and
// cancelled contexts come back as errors (never panics), that cancellation
// stops a source within one page, and that a sink writes, flushes and
// closes cleanly.
//
// It also holds the helpers connector tests share: Collect drains a
// source the way the engine does, Cfg builds a connector.Config from
// key/value pairs, and ServiceURL finds a real database server (skipping,
// or failing under CI=true, when it is not there).
package connectortest
