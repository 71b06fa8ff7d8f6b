// Package history defines faucet's run-history store: the RunHistory interface
// behind `faucet serve` and every type it reads and writes (runs, idempotency
// claims, leases and cluster dispatch, shards, membership, audit, run logs,
// the data-movement catalog, config snapshots, templates, local outputs,
// usage, change requests and tenants).
//
// The schema and semantics are those of faucet-cli 1.13's run-history layer,
// so that one database can be shared between the original and this port. The
// backends live in sub-packages: memory (the semantic reference), sqlstore
// (SQLite and Postgres, one implementation, two dialects) and fallback (the
// degraded-mode wrapper). historytest is the conformance suite all of them run.
//
// # Storage conventions
//
// Every column is TEXT. Timestamps in columns are fixed-width RFC 3339 in UTC
// with nine fractional digits and a Z suffix (FormatTS), so lexical order is
// chronological order and keyset paging, expiry and purge thresholds are plain
// string comparisons. Integers are decimal text; run-log sequence numbers are
// zero-padded to 20 digits (PadSeq). The JSON body column holds the whole
// record with the original's field names and is the source of truth on read;
// the other columns exist to filter, order and expire.
//
// # Idempotency claims
//
// A claim is a row in faucet_serve_idem keyed by the idempotency key. The
// first writer wins an INSERT ... ON CONFLICT DO NOTHING and gets ClaimFresh.
// A loser reads the row: the same fingerprint replays the existing run id
// (ClaimReplay), a different one is ClaimConflict (HTTP 409). A claim older
// than the caller's window may be taken over by an optimistic UPDATE guarded
// on the old claimed_at, so exactly one of several racing claimants wins. The
// loop is bounded by ClaimAttempts; exhausting it answers Conflict, never
// Fresh, because a 409 is safer than a duplicate run.
//
// # Leases and ownership
//
// Each store instance has an instance id. Upsert stamps owner = instance id
// and lease_expires_at = now + lease TTL in columns only (never in the body),
// so RenewLeases can extend a lease without rewriting bodies. Orphan recovery
// only touches non-terminal runs whose lease has lapsed, never a live peer's
// heartbeated runs. In cluster mode runs flow pending -> running -> terminal:
// ClaimPending flips one pending run at a time with an UPDATE guarded on
// status='pending', so two instances polling the same table claim each run
// exactly once (deliberately portable, not FOR UPDATE SKIP LOCKED).
// ReclaimOrphans requeues a running run whose lease lapsed (attempt+1, owner
// and lease cleared, cancel_requested kept) until max attempts, then fails it
// as a poison run.
//
// # Fencing
//
// Terminal writes are fenced: FinalizeOwned only updates a row that this
// instance owns and that is still non-terminal (first finalizer wins, a zombie
// sharing the owner id cannot overwrite), FinalizeShardedParent and
// CancelPending are guarded on the status they expect (sharded / pending), and
// shard finalization is guarded on owner and status='running'. Every guarded
// write reports whether it won, so exactly one of several concurrent callers
// acts on the outcome (metrics, callbacks).
//
// # Read-max-then-insert
//
// Template versions and launch sequence numbers are assigned by reading the
// current maximum and inserting max+1 inside a write transaction (BEGIN
// IMMEDIATE on SQLite). A lost race surfaces as a primary-key conflict or a
// busy error and is retried with RetryBackoff up to ClaimAttempts, so
// concurrent registers get distinct consecutive versions and none is lost.
//
// # Errors
//
// Backend failures are *Error values carrying a Transience verdict computed
// once from the typed driver error (SQLSTATE or SQLite extended result code,
// see TransienceOfCode), never from message text. Unreachable errors (the
// database could not be reached at all) are the only ones that trip the
// degraded fallback.
//
// # Deliberate differences from 1.13
//
// Where the original has a race or a hazard, this port does the safe thing:
//   - Delete, TenantDelete and TemplateDelete run their statements in one
//     write transaction (the seed's delete was four separate statements).
//   - RecoverOrphans writes each orphan with an UPDATE guarded on
//     still-orphaned, so a lease renewed between the scan and the write wins
//     (the seed used an unconditional upsert).
//   - Run-log batches and launch-log appends use the write transaction
//     (BEGIN IMMEDIATE on SQLite), with the bounded retry.
//   - A keyset page uses the listing statement with a sargable cursor bound
//     (same rows), so a page deep in the history walks the index instead of
//     scanning every newer run.
//   - A run whose body is corrupt is left out of List (named in
//     ListPage.Corrupt) instead of failing the whole listing; Get on it
//     returns the decode error.
//   - The fallback trips only on unreachable errors, retries them first,
//     refuses idempotent claims while degraded even when it started degraded,
//     and returns to the database when a probe answers (1.13 tripped on any
//     error, permanently).
//   - The memory backend implements the cluster, shard and tenant-link
//     methods with the SQL semantics (the original left them inert), dedups
//     usage per (run_id, row) and refuses a duplicate connect-session state,
//     so memory and SQL can be compared operation by operation.
package history
