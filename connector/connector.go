// Package connector is faucet's public SDK: the record model (Value, Record,
// Page), the interfaces every source, sink and transform implements, the
// registry that maps a config `type` to an implementation, strict config
// decoding with JSON Schema generation, and the error classes the engine
// acts on (retryable, fatal, per-record).
//
// A connector package registers itself from an init function:
//
//	func init() {
//		connector.RegisterSource(connector.SourceSpec{
//			Name: "csv", Summary: "...", Config: &Config{},
//			New: newSource,
//		})
//	}
//
// and the binary links it with a blank import (see connectors/all).
package connector

import (
	"context"
	"io"
	"log/slog"
)

// Source streams pages of records in order.
//
// The engine calls Open once, then Next until it returns io.EOF (or an
// error, or the run is cancelled), then Close. Open must fail, before any
// output exists, when the input is missing or unreachable.
type Source interface {
	Open(ctx context.Context, opts SourceOptions) error
	// Next returns the next page, or io.EOF after the last one. A page may
	// carry a Decode function so that parsing happens on a worker goroutine.
	Next(ctx context.Context) (*Page, error)
	Close() error
}

// SourceOptions are handed to Source.Open.
type SourceOptions struct {
	// StartBookmark is the bookmark saved after the last committed page of
	// an earlier run, or nil on a first run. Incremental sources emit only
	// records beyond it.
	StartBookmark *Value
	Logger        *slog.Logger
}

// Sink writes pages in order and makes them durable on Flush.
type Sink interface {
	// Open prepares the destination (create parent directories, connect).
	Open(ctx context.Context, opts SinkOptions) error
	// Write writes the page's records, in order.
	Write(ctx context.Context, p *Page) error
	// Flush makes everything written so far durable. The engine saves a
	// bookmark only after Flush returned nil.
	Flush(ctx context.Context) error
	Close() error
}

// SinkOptions are handed to Sink.Open.
type SinkOptions struct {
	Logger *slog.Logger
	// Stdout is where console sinks write (the process stdout in the CLI,
	// a buffer in tests).
	Stdout io.Writer
}

// BookmarkMerger is implemented by sources whose page bookmarks are not
// cumulative: each page reports only what it saw (the highest replication
// key in that page, which pages decoded concurrently cannot know of each
// other). The engine folds page bookmarks in page order with
// MergeBookmark(committed, page) and saves the result. Without it, the
// engine keeps the latest page bookmark.
type BookmarkMerger interface {
	MergeBookmark(committed, page Value) Value
}

// Committer is implemented by sources that hold their input until the sink
// has it: a broker that redelivers what is not acknowledged (a JetStream
// consumer). The engine calls Committed(ctx, seq), on the writer goroutine,
// once every page whose Page.Seq is at most seq was written, the sink (and
// the DLQ sink) flushed and the bookmark, if any, saved; the source may
// then acknowledge those pages' messages. Pages emitted without records
// count too, so a source waiting for acknowledgements can emit empty pages
// to give the engine a chance to commit. The engine checkpoints at least
// once per checkpoint interval while such pages flow. Pages are numbered in
// the order Next returned them, from 0, so a source knows the number of
// each page it emits by counting (it must not read Page.Seq of a page in
// flight: the engine sets it on another goroutine).
//
// Committed is never called for pages that did not reach the sink for
// good: not after a sink failure, not for staged overwrite rows before the
// swap, and not at all in a dry run, a --limit run or with a read-only
// state store (those runs keep nothing, so they must not consume input).
// An error fails the run (a Retryable one is retried first); the pages
// stay unacknowledged and are redelivered on a later run.
type Committer interface {
	Committed(ctx context.Context, seq uint64) error
}

// PageEncoder is implemented by sinks that serialize records to bytes. The
// engine then encodes pages on worker goroutines and hands the bytes to
// WriteEncoded in page order. EncodePage is first called for the stream's
// first page alone; once that returned, later pages may be encoded
// concurrently, so per-stream facts (a CSV header) can be fixed by it.
type PageEncoder interface {
	EncodePage(p *Page, dst []byte) ([]byte, error)
	WriteEncoded(ctx context.Context, p *Page, data []byte) error
}

// EncodedOnlyWriter is implemented by PageEncoder sinks whose WriteEncoded
// reads only the encoded bytes (and the Bookmark), never the page's
// Records, and refuses no single record (Page.Failed). The engine may then
// trim a page as soon as it is encoded (see Page.Trim), so a page that
// waits for the writer holds its bytes but not the source's memory.
type EncodedOnlyWriter interface {
	PageEncoder
	WritesEncodedOnly()
}

// DurableFlusher is implemented by sinks whose Flush, beyond handing what
// they buffer to the destination, makes it durable at a cost of its own
// (a file sink's fsync). The engine calls FlushBuffers instead when
// nothing it saves after the flush depends on durability: no bookmark,
// commit token or acknowledgement of the source, no overwrite swap. Like
// Flush, FlushBuffers hands everything written so far to the
// destination, where a reader sees it.
type DurableFlusher interface {
	FlushBuffers(ctx context.Context) error
}

// Overwriter is implemented by sinks that can stage a whole run and swap
// it in at the end (write_mode: overwrite). When Overwriting reports true
// after Open, the engine saves no bookmark during the run, calls
// CommitOverwrite once after the last page of a complete, uncancelled,
// unlimited run was written and flushed (then saves the bookmark), and
// AbortOverwrite in every other case, so readers see either the old or the
// new contents, never a part.
type Overwriter interface {
	Overwriting() bool
	CommitOverwrite(ctx context.Context) error
	AbortOverwrite(ctx context.Context) error
}

// IdempotentSink is implemented by sinks that commit a page's rows together
// with a commit token in one transaction (delivery: exactly_once). The
// token is "<20-digit sequence>#<bookmark JSON>" and scope is the row's
// state key; LastCommittedToken returns the newest token of scope.
type IdempotentSink interface {
	WriteIdempotent(ctx context.Context, p *Page, scope, token string) error
	LastCommittedToken(ctx context.Context, scope string) (token string, ok bool, err error)
}

// Transform changes records one at a time. Apply edits r in place and
// returns keep=false to drop it. It must be safe for concurrent use: pages
// are transformed on several goroutines at once.
type Transform interface {
	Apply(r *Record) (keep bool, err error)
}

// Validator is implemented by config structs that check themselves after
// decoding (cross-field rules the struct tags cannot say).
type Validator interface {
	Validate() error
}
