// Package parquet is the `parquet` source and sink: Apache Parquet files on
// the local file system, read and written with github.com/parquet-go/parquet-go.
//
// # Source
//
// The source reads a file or a glob (files in sorted order). Open reads
// every footer first and fails, before a row is emitted, when the files'
// (projected) schemas differ or a file is not Parquet; the error names the
// file. Rows are then streamed row group by row group, each leaf column
// through its own cursor, and assembled into records of at most
// batch_size rows (0: one page per row group). A page never spans two row
// groups.
//
// Memory does not grow with the file, the row group or the Parquet page
// size. A column outside lists whose codec is none, snappy, gzip or zstd
// and whose encodings are PLAIN, dictionary or RLE (what DuckDB, Arrow,
// Spark and parquet-go write by default, except parquet-go's
// delta-encoded strings) is read by a chunkStream (stream.go): a page's
// compressed bytes are decompressed and decoded a thousand values at a
// time. A page of more than 256 KiB without a checksum is not even read
// whole: its bytes go from the read buffer into the decompressor. Snappy
// keeps a 64 KiB window for back-references (the snappy library never
// reaches farther); a block that does is decompressed whole instead
// (snappystream.go). A page with a checksum is read whole and verified
// before any of its values is used. Other columns go through
// parquet-go's page reader, which holds one decompressed and decoded
// page per column: DuckDB writes one page per column chunk, so on its
// 1M-row file that was every column's whole row group, 25 MiB of heap,
// where chunkStream needs under 3 MiB. A record page's records, fields
// and string arena are reused once the engine releases it (Page.Release),
// as are each column's buffers from row group to row group, so a run
// allocates little beyond its first pages. `columns` projects
// top-level fields; the others are never read.
//
// The source is a connector.Sharder (cluster mode B), as faucet-cli 1.x's
// was: a shard is the files whose path hashes (FNV-1a) to its index modulo
// the shard count; Open still compares every file's footer. It keeps no
// bookmark (1.x had none either), so a rerun reads everything again.
//
// A damaged file (bad footer, page headers or data) is an error naming the
// file, never a panic. chunkStream allocates nothing a damaged header
// merely claims: a page must fit in its column chunk, the chunk in the
// file, and a snappy block's length in what its size can decode to. One
// limit comes from parquet-go's page reader, for the other columns: it
// allocates the page size a page header claims before reading the page,
// so a damaged header can cost a transient allocation of up to about 2
// GiB before the error. The footer length is checked against the file
// size first.
//
// Values: booleans, integers and floats keep their type (unsigned 64-bit
// integers above the int64 range keep their exact digits); STRING, ENUM
// and UTF8 byte arrays are strings; JSON byte arrays are parsed into nested
// values (a value that does not parse stays a string); other byte arrays
// are standard base64, as the SQL connectors show binary columns. DATE is
// YYYY-MM-DD; TIMESTAMP is RFC 3339 with a Z when adjusted to UTC and
// without a zone otherwise; legacy INT96 timestamps are RFC 3339 UTC; TIME
// is HH:MM:SS[.fraction]; DECIMAL is its exact decimal text; UUID is the
// hyphenated hex form. Groups become nested objects in schema order,
// LIST-annotated groups (three-level and legacy two-level) and bare
// repeated fields become arrays, MAP groups become objects keyed by the
// key's text. Nulls are nulls at any depth; an empty list is [].
//
// # Sink
//
// The sink infers one column per key of the first page that has records,
// in first-seen order, all optional: integers INT64, floats DOUBLE (an
// integer column that also holds floats in that page is DOUBLE), booleans
// BOOLEAN, strings STRING, and arrays and objects JSON (a BYTE_ARRAY with
// the JSON annotation holding the value's compact JSON; the source reads
// it back as the nested value). A key that is null throughout the first
// page becomes a STRING column; a first page without a single field is an
// error (a Parquet file needs a column). Later records may omit columns (null);
// a field the first page did not have is dropped with one warning per
// field, as faucet-cli 1.x did, or fails the run with on_unknown_field:
// error. A value its column cannot hold (a string in an INT64 column) is
// refused as a sink record error: dead-lettered with a DLQ, fatal without.
//
// Memory: each column collects page_buffer_bytes of values (default 64
// KiB) before they are encoded and compressed as one page, and the
// encoded pages of the row group being built wait in temporary files
// beside the output (one per column, unlinked at once, reused from row
// group to row group) until the row group is written: in the page cache,
// not the heap. So the sink's memory is about a page buffer per column,
// whatever the row group or file size. A row group ends after
// row_group_size rows (default 1,048,576) or, checked after every page,
// once its estimated size reaches row_group_bytes (default 4 MiB),
// whichever comes first; on the 1M-row bench data set that is 10 row
// groups of ~105k rows, near DuckDB's default of 122,880 rows. Pages of
// 64 KiB instead of parquet-go's 256 KiB make that file about 5 % larger
// (34.0 MB against 32.3 MB, snappy) for half the process's anonymous
// memory.
//
// Speed: a page is written column by column (colwrite.go). Each column
// has its own parquet-go column writer, which buffers, encodes, takes the
// min/max of and compresses that column's pages by itself, so the columns
// of a page are converted and written by up to GOMAXPROCS goroutines at
// once. Records whose fields are the columns in column order are
// converted there; any other record (keys in another order, missing or
// unknown keys, a value its column cannot hold) is first converted, or
// refused, by the goroutine that called Write. Min and max go to the
// column index and the column chunk's statistics, not again into every
// data page header. Snappy is snappy's standard speed (s2's compatible
// encoder), as Arrow, DuckDB and faucet-cli 1.x write it; zstd is the
// codec for small files. Spill files gather page writes in 32 KiB, and a
// finished row group goes from them to the output by copy_file_range.
//
// # Durability and the engine
//
// A Parquet file is readable only once its footer is written, at the end.
// A Flush in the middle therefore cannot make data durable, and the sink
// must not let the engine save a bookmark for rows that would be lost
// with an unfinished file. The sink writes to a hidden staging file next
// to the destination (".<name>.<random>.tmp") and implements
// connector.Overwriter with Overwriting always true. So the engine:
//
//   - saves no bookmark while the run writes (Flush is a no-op);
//   - after the last page of a complete run calls CommitOverwrite, which
//     writes the footer, fsyncs, renames the staging file over the
//     destination and fsyncs the directory; only then is the bookmark
//     saved;
//   - on a failed, cancelled or --limit run calls AbortOverwrite, which
//     removes the staging file: the destination keeps its previous
//     contents and the bookmark does not move. A --limit run therefore
//     writes no Parquet file.
//
// A crash leaves at worst a staging file behind, never a truncated
// destination or a bookmark ahead of the data. Every run replaces the
// whole file; a run without records leaves an existing file as it was.
// Close commits a file that was neither committed nor aborted, for
// callers outside that protocol (a dead-letter sink, library use); a
// Parquet dead-letter sink is therefore complete only at the end of the
// run, unlike a JSON Lines one.
//
// # Compatibility
//
// faucet-cli 1.x's `source: {type: local_path, path}` / `{type: glob,
// pattern}` and `destination: {type: local_path, path}` are accepted next
// to `path`; its S3 forms are refused with a pointer to the s3 connector.
// The 1.x sink keys schema, max_rows_per_file and max_bytes_per_file
// (directory and rollover mode) and the lz4 codec are not implemented and
// are rejected as unknown keys or values.
package parquet

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "parquet",
		Summary: "Read Parquet files (a path or a glob) row group by row group, with column projection.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "parquet",
		Summary: "Write records to one Parquet file, schema inferred from the first page; the file appears when the run completes.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}
