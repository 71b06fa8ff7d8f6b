// Package csv is the `csv` source and sink: RFC 4180 files, optionally
// gzip-compressed, read in large chunks that are parsed concurrently into
// string-valued records, and written with minimal quoting.
package csv

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "csv",
		Summary: "Read CSV files (a path or a glob), every value a string; optional incremental replication_key.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "csv",
		Summary: "Write records to a CSV file with a header frozen from the first page's keys.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}
