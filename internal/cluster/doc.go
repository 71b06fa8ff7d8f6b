// Package cluster is `faucet serve --cluster`: several serve instances
// share one Postgres run history and execute the runs submitted to any of
// them, each run on exactly one instance at a time, with failover when an
// instance dies (Mode A), and split a shardable run's source into shards
// that run on several instances at once (Mode B). It holds the protocol; the SQL that
// implements its conditional writes lives in internal/history/sqlstore and
// is reached only through history.Leases. The server (internal/serve)
// executes the runs and plugs in as an Executor.
//
// # Who is authoritative for what
//
// The database decides everything that more than one instance can see: a
// run's status, its owner (the owner column, never the JSON body), its lease
// (lease_expires_at), its attempt count (body), the cross-instance cancel
// flag (cancel_requested column), idempotency claims (faucet_serve_idem) and
// membership (faucet_serve_instances and faucet_serve_instance_caps). Every
// write that can race is a single guarded UPDATE whose affected-row count
// says who won; nothing is decided from a value read earlier. An instance is
// authoritative only for what it executes right now: its local cancel tokens,
// its execution slots, and the table of runs it holds (Node.held).
//
// # The life of a run
//
//  1. Submit (any instance). The server validates the config, claims the
//     idempotency key in the shared table (one run per key cluster-wide),
//     and writes the record with the raw config text (config_body,
//     config_format; directives such as ${env:X} unresolved), timeout,
//     clock, params and callback. When it has an execution slot free now
//     and knows of no pending run waiting (see the backlog below), the
//     record is written already claimed (InsertClaimed): one INSERT of a new
//     run id with status running, owner=me, lease=now+ttl and started_at,
//     and the run starts at once (the submission answers running). The run
//     never was pending, so no peer can claim it; only a lapsed lease lets
//     anyone else touch it, as for any claim. Otherwise the record is
//     written pending (the submission answers pending), the backlog is set
//     and the local claim loop is kicked. A submission while the history is
//     degraded is refused with 503: a pending run kept in memory could never
//     be claimed by a peer.
//  2. Claim (every --cluster-poll-secs; and on a kick while the backlog is
//     set: after a local pending submit, after a reclaim requeued runs or
//     shards, after a run was sharded, and when a local run's pipeline ends
//     or its slot is released). ClaimPending selects the oldest pending
//     runs up to this instance's free capacity and flips each one with
//     UPDATE ... SET owner=me, status='running', lease=now+ttl WHERE
//     status='pending'. Only rows where that update matched are ours, so two
//     instances polling the same table never claim the same run. The body is
//     rewritten as running in the same statement. A run whose pipeline has
//     ended and that only writes its result counts as a free slot, so its
//     successor is claimed while that write is under way and starts when the
//     slot is released (the slot bound on executions holds). The backlog is
//     this instance's belief that pending runs or shards may be waiting: set
//     at start, by a local pending submit, a requeue or an expansion, and by
//     a claim that took all it asked for; cleared by a claim that took fewer
//     (unless a pending run was noted meanwhile; a claim whose rows a peer
//     won counts as one that took fewer, while that peer, which took all it
//     asked for, keeps claiming on its kicks). A claim on a kick is
//     skipped while it is clear (no statement); the poll tick claims
//     regardless, so runs stored pending by peers are claimed within one
//     poll interval by any member with free capacity. A local submission
//     may therefore start before an older run pending on a saturated peer
//     that this instance has not seen yet.
//  3. Execute. The claiming instance re-loads the config from config_body
//     with its own environment, secrets and --default-config, exactly as a
//     local submission is loaded. A config that no longer loads there fails
//     the run ("re-loading claimed config: ..."). A run claimed by the
//     instance it was submitted to executes the submission as loaded at
//     submit when that instance still keeps it (same environment, secrets
//     and --default-config; the server keeps the last few hundred pending
//     submissions, and re-loads after a reload of the default config). A
//     run claimed from
//     pending records started_at with its first fenced write (MarkRunning);
//     a run claimed at submission has it in its INSERT.
//  4. Renew. Every ttl/3 the instance rewrites each run it holds with
//     FinalizeOwned(record as running), which pushes lease_expires_at to
//     now+ttl only WHERE owner=me AND status is not terminal. Renewal is per
//     run, not a blanket UPDATE of every row owned by this instance id: a row
//     this instance owns but does not execute (a claim whose reply was lost,
//     an execution given up at shutdown) is not kept alive, its lease lapses
//     and a peer reclaims it. A renewal that matches nothing is definitive
//     (the write is idempotent, so a retried renewal that already committed
//     still matches): the run was reclaimed, the execution here is a zombie,
//     and it is stopped at once. Its result is then discarded without
//     writing (fenced locally, reason lease_lost).
//  5. Finalize. The terminal write is FinalizeOwned: UPDATE ... WHERE
//     owner=me AND status NOT IN (completed, failed, cancelled). Exactly one
//     writer wins: the owner, once. A loser (the run was reclaimed and is
//     pending again or owned by a peer, or it is already terminal) discards
//     its result and logs "reclaimed by another instance; discarding
//     result" (fenced, reason database). Only the winner counts the run in
//     faucet_serve_runs_total and fires the completion callback, so a
//     callback fires once per run. A failed terminal write (database
//     unreachable, history degraded) is retried until it succeeds or the
//     server stops for good. It is not renewed meanwhile: a write that
//     failed may still have committed (its reply was lost), and a renewal
//     of a terminal row would match nothing and pass for a lost lease. So
//     an outage longer than the ttl may let a peer reclaim the run; the
//     retried write then loses the fence. When the write reports a loss,
//     the record is read back: if it carries this write's own finished_at
//     the write did commit (a retry after a lost reply) and it counts as
//     won.
//  6. Reclaim (every ttl/3, every instance). ReclaimOrphans takes each
//     running run whose lease lapsed and, guarded on still-running and
//     still-expired, either requeues it (status pending, owner and lease
//     cleared, attempt+1, cancel_requested kept so a cancel acknowledged
//     before the crash is honoured by the next owner, #321 M7) or, once it
//     was reclaimed --cluster-max-attempts times, fails it as a poison run
//     ("run reclaimed N times after its owning instance's lease expired;
//     giving up (poison run)"). attempt counts reclaims, not completions.
//     No callback fires for a poison failure (the original's rule: callbacks
//     follow in-process terminal transitions only).
//
// # Cancellation
//
// A cancel that reaches the instance executing the run fires its local
// token. Elsewhere: a pending run is cancelled with one guarded UPDATE
// (CancelPending, status='pending'), which loses cleanly to a concurrent
// claim; the instance whose update won is the terminal writer and fires the
// callback. Otherwise the cancel_requested flag is set on the running row
// and the owner, which lists its flagged runs on every poll tick
// (PendingCancellations; also on the next kick after a cancel requested
// through it, and right after it claims a requeued run, whose flag survived
// the requeue), stops the run within one poll interval; its terminal write
// (cancelled) is fenced like any other.
//
// # Membership
//
// On every poll tick (not on kicks) each instance heartbeats its row: start time, listen
// address, capacity (--max-concurrent-runs), runs in flight, and the newest
// state format it reads (StateFormat; a member with no capabilities row reads
// as 0). The live set is the members whose heartbeat is younger than
// max(lease ttl, 3 polls); it is served by GET /v1/cluster and counted in
// /readyz. The effective state format is the minimum over live members (this
// build's own when the set is empty), so a mixed-version cluster can write
// state every member can read. A restarted process is a new member (a new
// instance id); its predecessor's row ages out of the live set and is pruned
// with the run retention.
//
// # Invariants
//
//   - One owner: a run is claimed by at most one instance at a time (guarded
//     claim, #146 H7; a run claimed at submission is inserted owned under
//     a new id and was never pending); only a lapsed lease lets anyone else
//     touch a running run, and reclaim never touches a live peer's
//     heartbeated lease.
//   - One terminal state: terminal writes are fenced on owner and
//     non-terminal status (#321 L5); poison failures and pending cancels are
//     guarded on the status they expect; nothing overwrites a terminal row.
//   - One callback: only the instance whose terminal write won fires it.
//   - One run per idempotency key cluster-wide (the shared claim table).
//   - The cancel flag survives a requeue (#321 M7).
//   - Nothing in this package writes memory: the cluster runs against the
//     fallback store's strict view (fallback.Store.Strict), so every
//     operation either reaches the database or fails with Degraded.
//   - Only membership capability is heartbeated separately (#736): an
//     instance without a caps row counts as state format 0.
//
// # Failures
//
// Crash (kill -9): the dead instance's leases lapse after at most one ttl;
// a peer requeues its runs and the cluster re-runs them (the sink may see
// the first attempt's writes too: at-least-once, unless the pipeline's
// delivery makes re-runs idempotent). The process that restarts is a new
// member and claims like any other.
//
// Pause (SIGSTOP, a long GC, a frozen VM): while paused the instance cannot
// renew; past the ttl its runs are requeued and run elsewhere. When it
// resumes, its first renewal matches nothing and it stops those runs; a
// result that arrives before that renewal is refused by the fenced terminal
// write. Either way nothing of the paused instance is finalized.
//
// Partition from the database: the fallback store degrades (/readyz 503,
// submissions 503), claims stop, renewals and terminal writes fail and are
// retried. Runs keep executing. If the partition ends within the ttl,
// renewals resume and nothing was lost. If it lasts longer, peers that can
// still reach the database requeue the runs and run them again, and the
// partitioned instance's terminal writes lose the fence when it comes back.
// When every instance lost the database, leases lapse everywhere; after
// recovery each instance renews what it still holds and whichever renewal or
// reclaim reaches a row first wins it (both are guarded), so again exactly
// one terminal state is written. The store returns to the database by
// itself (the probe loop); no operator action is needed.
//
// Clock skew: leases are written and compared as instance-local timestamps
// (now+ttl by the owner, now by the reclaimer), as in 1.13. A healthy owner
// renews every ttl/3, so its lease always has at least 2/3 of the ttl left;
// a reclaimer whose clock runs ahead by less than that margin (minus the
// database round trip) never reclaims a live lease. Larger skew makes
// reclaims early (the run is executed twice, and the fence still leaves one
// terminal state); keep clocks synchronised (NTP) well within ttl/3.
//
// # Mode B: sharded runs
//
// A run whose config has `shard: {count: N}` with N >= 2, expands to one
// row, and whose source implements connector.Sharder is split; anything
// else runs whole (with a warning naming why), as in 1.x. `faucet run`
// ignores the key.
//
//  1. Expand. The instance that claimed the run (the coordinator) re-loads
//     it as in step 3, builds the source without opening it and calls
//     EnumerateShards(ctx, N). A failure fails the run ("enumerating
//     shards: ..."). Claim.Expand then stops renewing the claim, inserts
//     the shard rows (InsertShards, ON CONFLICT DO NOTHING, so a second
//     coordinator inserts nothing new) and flips the run to sharded with
//     the owner-fenced FinalizeOwned; the claim is released (a sharded
//     parent has no lease). Insert before flip, unlike 1.x: a coordinator
//     that dies in between leaves a running parent whose lease lapses, is
//     requeued and expanded again (EnumerateShards of an unchanged data set
//     returns the same ids), where 1.x left a sharded parent with no shards
//     that never finished.
//  2. Claim. Every claim of Mode A step 2 (poll ticks, and kicks while
//     the backlog is set; an expansion and a shard requeue set it), after
//     runs, ClaimShards takes up to the capacity left, largest size estimate
//     first, one guarded UPDATE ... WHERE status='pending' per shard
//     (owner=me, lease=now+ttl). Shards count against
//     --max-concurrent-runs like runs.
//  3. Execute. The claimer re-loads the parent's stored config, builds the
//     row, narrows the source with ApplyShard before the engine opens it,
//     and runs it with the state key "<key>::<shard_id>" and the parent's
//     timeout. Its lines go to the server log with run_id and shard_id (not
//     to the run's captured log).
//  4. Renew and reclaim. Every ttl/3 each shard executing here is renewed
//     with RenewShardLease (owner=me AND status='running', per shard, like
//     runs: a shard owned here but not executed lapses; the seed's blanket
//     RenewShardLeases is not used). A renewal that matches nothing means
//     the shard was reclaimed: the local execution is stopped and its
//     result discarded without writing (fenced, reason lease_lost).
//     ReclaimShards requeues lapsed shards, or fails them once reclaimed
//     --cluster-max-attempts times, guarded on still-running and
//     still-expired, as runs are.
//  5. Finalize a shard. FinalizeShard writes completed or failed (a
//     cancelled or timed-out shard is failed, as in 1.x) WHERE owner=me
//     AND status='running': the result of an instance whose shard was
//     reclaimed is discarded. A retry after a lost reply reports a loss
//     although the row holds its outcome; nothing depends on that report.
//  6. Finalize the parent. After each shard write, and for every sharded
//     run on each lease tick (the sweep: parents whose last shard's owner
//     died, poison shards), ShardProgress is read; once every shard is
//     terminal, FinalizeShardedParent writes completed, or failed with
//     "K/N shard(s) failed", fenced on status='sharded'. Exactly one
//     instance wins; it counts the run and fires the completion callback. A
//     write whose reply was lost is confirmed by reading back its own
//     finished_at.
//
// Cancelling a sharded run sets cancel_requested on the parent (through
// any instance). Every poll (tick or kick) while this instance runs shards
// lists the runs whose shards it runs and whose parent is flagged
// (PendingShardCancellations), after claiming, so that pending shards
// claimed in the same poll stop at once; each shard stops at its next page
// boundary and is written failed, and the parent ends failed ("N/N
// shard(s) failed"), as in 1.x: the seed's schema has no cancelled shard
// outcome.
//
// Mode B keeps the Mode A invariants per shard (one owner, owner-fenced
// result, a lapsed lease is the only takeover) and adds: one terminal
// state and one callback per parent (the status fence); a parent is never
// finalized before every shard is terminal; every shard is run to a
// terminal state by some instance or failed as poison.
package cluster
