// Package jsonl is the `jsonl` source and sink: JSON Lines files (one JSON
// object per line), optionally gzip-compressed. The source parses large
// chunks of lines concurrently without copying strings; the sink appends
// records as compact JSON with pre-quoted keys.
package jsonl

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "jsonl",
		Summary: "Read JSON Lines files (a path or a glob), one object per line; optional incremental replication_key.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "jsonl",
		Summary: "Write records as JSON Lines, one compact object per line, keys in record order.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}
