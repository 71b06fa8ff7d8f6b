// Package serve is the HTTP control plane behind `faucet serve`: it runs
// pipelines submitted over HTTP and records them in the run history
// (internal/history, used only through its interface).
//
// # Layout
//
// routes.go declares every route (method + path template, permission, audit
// label); errors.go is the one place an error becomes a status and the
// envelope {"error":{"code","message","details"?}}; decode.go reads bodies
// strictly. auth.go resolves bearer tokens (constant time, every credential
// compared), rbac.go is the role ladder viewer ⊂ operator ⊂ admin, audit.go
// writes and lists audit entries. runner.go is the queue, submit, cancel and
// shutdown, lifecycle.go a run's execution and finalization, submit.go loads and fingerprints submissions, exec.go runs them
// on the engine, logs.go captures run logs, logsapi.go serves them, and
// metrics.go exports the faucet_serve_* series. clusterexec.go and
// clusterapi.go are cluster mode (--cluster, protocol in internal/cluster).
//
// # Submit protocol (POST /v1/runs)
//
// The order of checks decides which error a client sees, and is the
// original's (reference §4.2):
//
//  1. Decode the body strictly (413 over the body limit, 400 malformed JSON,
//     422 unknown field or wrong type).
//  2. Load: parse the config text (400), deep-merge it onto --default-config
//     (objects merge, scalars/arrays/nulls replace), interpolate, bind
//     params, strict decode, connector checks and matrix expansion (422 with
//     every problem's line, column and key path in details.errors).
//  3. Validate the callback, if any (422): http(s) with a host; with
//     --callback-allow-host only those hosts; otherwise link-local
//     addresses and cloud-metadata host names are refused, and refused
//     again at connect time for a name that resolves to a link-local
//     address (the original checked only the URL text).
//  4. Reserve a queue slot: 429 with Retry-After when --max-queued-runs
//     runs are already waiting, 503 while shutting down.
//  5. Mint the run id (UUIDv7).
//  6. Fingerprints. config_fp = sha256(name 0x00 canonical JSON of the
//     resolved configuration); the request fingerprint = sha256(config_fp
//     0x00 clock 0x00 timeout_secs 0x00 then "k 0x00 v 0x00" per label in
//     key order). The request name is not part of it.
//  7. Idempotency (only with idempotency_key, and only when the retention
//     window is > 0): ClaimIdempotency(key, fingerprint, run_id, window).
//     Fresh → go on; Replay → release the slot, answer 202 with the
//     existing run's {run_id, status, submitted_at}. The winner claims
//     before it writes its record, so a replay may briefly find no record:
//     it waits for it (about 2 s) before answering 404 (deleted meanwhile);
//     the original answered 404 in that window. Conflict → 409. A degraded
//     history refuses the claim (503): memory cannot see the claims written
//     before. The claim is atomic in the store (INSERT … ON CONFLICT DO
//     NOTHING, then read), so concurrent submissions of one key produce
//     exactly one run.
//  8. Write the queued record; if that fails the claim is released (scoped
//     to this run id) so the key is not burnt.
//  9. Register the cancel token, start the run, audit run.submit with the
//     config fingerprint, answer 202 {run_id, status: queued, submitted_at}.
//
// # Lifecycle
//
// A run waits for one of --max-concurrent-runs execution slots, racing its
// cancel token and the shutdown token. Slots go first come, first served:
// a run takes its place in line when it is accepted, so queued runs start
// in submission order. Cancelled while queued it is finalized at once
// (cancelled, or failed/server_shutdown). On a slot it
// moves queued → running (started_at written), runs every matrix row on the
// engine with the config's execution settings and ends completed, failed
// ("N invocation(s) failed", or the executor error), failed/timeout ("run
// exceeded timeout_secs (Ns)"), cancelled, or failed/server_shutdown.
// Cancellation is cooperative: the engine stops at its next page boundary;
// a run that does not stop within the flush grace (30 s) is abandoned.
// Unlike the original, the counts of a cancelled or timed-out run are
// kept, since what was flushed was written.
//
// Finalizing flushes the run's persisted logs first, then writes the
// terminal record (read-modify-write; a fresh minimal record if the stored
// one vanished, so a run never stays non-terminal), releases the run (it can
// be deleted from then on; a delete that arrives between the terminal write
// and the release waits for the release instead of answering 409) and
// fires the completion callback (3 attempts, 10 s each, 250 ms × 2^(n-1)
// apart, a 4xx other than 408/429 is final). A
// client that sees a terminal status can therefore read the complete
// persisted log.
//
// # Leases and orphans
//
// The SQL store stamps owner and lease on every upsert. Every
// max(lease_ttl/3, 1 s) the server renews its leases and fails any queued or
// running run whose lease lapsed ("owning serve instance's lease expired
// before the run finished"); Start does the same once, so runs left by a
// dead process are failed within one TTL of the restart and never stay
// running forever.
//
// # Cluster mode
//
// With Config.Cluster the server is one member of a cluster (Mode A; the
// protocol, its invariants and failure behaviour are internal/cluster's
// doc.go). Step 9 of the submit protocol becomes: refuse with 503 while
// the history is degraded; write the record pending with the raw config
// text, its format, timeout, clock, params and callback (secret params and
// callback headers are refused with 422: they would sit in the shared
// database in clear text); kick the claim loop; answer 202 pending. The
// member that claims the run re-loads that config with its own
// environment, secrets and --default-config, executes it in one of its
// slots, and writes the terminal record through the claim's fenced write:
// only the winner counts the run and fires the callback. A cancel for a
// run this member does not execute cancels a pending run at once (and this
// member fires its callback) or flags a running one for its owner. Orphan
// recovery and the lease loop are the cluster node's (reclaim, per-run
// renewal); GET /v1/cluster and /readyz show the live members.
//
// # Shutdown
//
// Shutdown refuses new runs (503), waits up to --shutdown-grace-secs for the
// queue and the running runs to drain, then fires the shutdown token and
// waits up to the flush grace for the runs to finalize; then live log
// streams end and the background loops stop. The caller shuts the HTTP
// server down afterwards.
//
// # Run logs
//
// Each run's engine logger writes "<LEVEL> <message> k=v…" lines (secrets
// redacted) into a per-run ring of 10,000 lines with a monotonic seq, read
// by SSE clients (replay, then follow; a reader that fell behind the ring
// gets a `truncated` event; `end` when the run finished). Lines are also
// persisted in batches of 256 through a bounded queue (overflow is dropped
// and counted), up to --log-max-lines-per-run per run, after which a
// sentinel line (seq = MaxUint64) marks the log truncated. Unlike the
// original, logs are persisted with the memory history too.
package serve
