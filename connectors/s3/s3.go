package s3

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "s3",
		Summary: "Read the objects of an S3 (or S3-compatible) bucket under a prefix or glob, in key order: jsonl, csv, json or parquet, gzip/zstd; shardable by key hash.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "s3",
		Summary: "Write records as jsonl, csv, json or parquet objects to an S3 (or S3-compatible) bucket; objects appear whole, rolled by max_records_per_file and at every flush.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}
