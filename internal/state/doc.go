package state

// Protocol
//
// A state key names one pipeline row: `{pipeline}::{row_id}` (the anonymous
// single row is `row-0`). Its value is the bookmark the source emitted with
// the last committed page, as JSON text exactly as faucet-cli 1.x stores it
// (a scalar such as "2024-05-01T00:00:00Z" or 1234 for incremental sources).
//
// The engine is the only writer during a run and keeps this order for every
// checkpoint:
//
//  1. write the page (and every earlier page) to the sink;
//  2. flush the sink (its data is durable);
//  3. Put the page's bookmark.
//
// So state is never ahead of the sink: a crash between 2 and 3 replays at
// most the pages since the last checkpoint (at-least-once), never skips one.
//
// The file store writes each key to `<dir>/<key with ':' as %3A>.json`
// through a temporary file in the same directory that is fsynced, renamed
// over the old file and followed by an fsync of the directory. A failed
// write (a full disk) leaves the previous file untouched. A file that exists
// but is not valid JSON is reported as corrupt, with its path: the run stops
// instead of silently starting again from zero.
//
// `--dry-run` and `--limit` wrap the store with ReadOnly: bookmarks are read
// so the preview resumes where a real run would, but never saved.
