// Package engine runs one pipeline row: source -> transforms -> sink, with
// bounded memory, ordered checkpoints, retries, a dead-letter queue and
// cooperative cancellation. It knows connectors only through the interfaces
// of package connector and state only through state.Store; it does no HTTP
// and no SQL of its own.
//
// # Pages and goroutines
//
// A reader goroutine calls Source.Next and numbers the pages. A small pool
// of workers (one per CPU by default) takes pages in turn and, for each,
// runs the source's deferred Decode, the transforms, and, when the sink is a
// connector.PageEncoder, the encoding to bytes. The writer (the goroutine
// that called Run) takes finished pages strictly in their original order,
// routes failed records to the DLQ, writes the page, and checkpoints. The
// channels between them are bounded (2 pages per worker), so memory stays
// at a few pages whatever the input size.
//
// # Checkpoints
//
// For every page that carries a bookmark the writer keeps this order:
//
//	write page N (after pages 0..N-1) -> flush DLQ sink -> flush sink -> state.Put(bookmark)
//
// Flushing means fsync for file sinks, so the writer checkpoints at most
// once per CheckpointEvery (default 1s) and always at the end of the
// stream and on cancellation; bookmarks in between are folded into the
// pending one. A sink error never advances the bookmark. A checkpoint
// after which nothing is saved (no bookmark or state store, no source
// acknowledgement, no commit token, no overwrite swap) does not need the
// data to survive a crash, since a rerun writes it again: a sink that
// pays for durability separately (connector.DurableFlusher, the file
// sinks' fsync) is then asked for FlushBuffers only, as cp or DuckDB's
// COPY leave a file to the kernel's write-back.
//
// # Trimmed pages
//
// Once a worker has encoded a page for a connector.EncodedOnlyWriter
// sink, nothing reads its records again unless the run needs them: a
// --limit run encodes its last page again, exactly-once writes records,
// on_batch_error: dlq_all dead-letters a whole page, and a failed record
// of the page may refer to its memory. Otherwise the worker trims the
// page (connector.Page.Trim): its records and Locate are dropped and the
// source takes its memory back, so the pages waiting for the writer hold
// their encoded bytes, not their decoded records.
//
// # Source commits
//
// A source that implements connector.Committer (a broker consumer that
// redelivers unacknowledged messages) is told after each checkpoint which
// pages are durable:
//
//	flush DLQ sink -> flush sink -> state.Put(bookmark) -> Source.Committed(last written page)
//
// Pages without a bookmark also trigger checkpoints for such a source, so
// acknowledgements follow the sink by at most CheckpointEvery. Dry runs,
// --limit runs and read-only state stores never commit; under overwrite
// the commit waits for the swap.
//
// # Effectively-once
//
// With Row.ExactlyOnce every bookmarked page is written together with a
// commit token in one sink transaction, and the sink's last token decides
// where a resumed run starts; exactlyonce.go has the protocol.
//
// # Overwrite
//
// A sink that stages the whole run for one swap (connector.Overwriter,
// write_mode: overwrite) gets no bookmark saved while its rows sit in
// staging. After the last page of a complete run it is flushed, then
// CommitOverwrite swaps the contents in, then the bookmark is saved. A
// failed, cancelled or --limit run calls AbortOverwrite instead: the
// destination keeps its previous contents and the bookmark does not move.
//
// # Failures
//
// A record that cannot be decoded or transformed is a connector.RecordError.
// With a DLQ it is written there as an envelope (stage, connector, error,
// original record or raw text, row id, timestamp) and the run goes on until
// max_failures_total is exceeded, or one page dead-lettered more than
// max_failures_per_page (the run then stops after committing that page);
// without a DLQ the run fails naming the record. A sink may report
// records it refused (an HTTP endpoint's 400 for them) in Page.Failed
// during Write, with their PageIndex: they are dead-lettered the same way
// right after the write, named by their source location, and not counted
// as written. Errors a connector marks connector.Retryable are retried
// with exponential backoff and jitter (RetryPolicy); others fail the run,
// unless the DLQ says on_batch_error: dlq_all: then every record of the
// page the sink failed goes to the DLQ (reason "dlq_all") and the run goes
// on. A database sink's transaction usually spans the pages written since
// the last checkpoint, and its failure rolls them all back, so in that
// mode the writer flushes the sink after every page: a failure then takes
// only its own page. Exactly-once pages are never dead-lettered this way
// (the page and its commit token fail together and the run stops).
//
// # Cancellation
//
// When ctx is cancelled (SIGINT/SIGTERM in the CLI) the writer finishes the
// page it is writing, drops pages not yet written, flushes, saves the
// bookmark of the last written page and returns a Result with Cancelled set
// together with ctx's error. A rerun then resumes exactly after that page.
//
// # Limits and dry runs
//
// Limit stops after that many records reached the sink (the last page is cut
// and re-encoded). DryRun replaces nothing here: the CLI hands the engine a
// counting sink and a read-only state store.
package engine
