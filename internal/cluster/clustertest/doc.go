// Package clustertest holds the end-to-end proof of cluster Modes A and B:
// its tests build the faucet binary once, start real `faucet serve
// --cluster` processes on 127.0.0.1:0 against a fresh Postgres database per
// test, and kill, pause and cut them off from the database while they run
// pipelines, whole or split into shards.
// The package has no non-test code besides this comment.
package clustertest
