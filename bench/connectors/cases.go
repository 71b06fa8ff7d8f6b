package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// allCases is every case, in the order they run: a case's input may be an
// earlier case's output (the Parquet files).
var allCases = []string{
	"faucet-version",
	"duckdb-csv-parquet", "faucet-csv-parquet", "faucet-csv-parquet-1rg",
	"duckdb-parquet-jsonl", "faucet-parquet-jsonl",
	"duckdb-parquet-jsonl-own", "faucet-parquet-jsonl-own",
	"faucet-jsonl-s3", "faucet-s3-jsonl",
	"faucet-jsonl-kafka", "faucet-kafka-jsonl",
}

type bench struct {
	config
	s3    *fakeS3
	kafka *fakeKafka
}

func (b *bench) close() {
	b.kafka.close()
}

func (b *bench) csv() string   { return filepath.Join(b.data, "bench_1m.csv") }
func (b *bench) jsonl() string { return filepath.Join(b.data, "bench_1m.jsonl") }
func (b *bench) o(name string) string {
	return filepath.Join(b.out, name)
}
func rm(path string) func() error {
	return func() error {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
}

// extraConfig is ", " and the flow-style config keys in the environment
// variable env ("max_buffered_bytes: 1048576, linger: 0.01"), to try a
// setting against a case without editing it; "" when unset.
func extraConfig(env string) string {
	if v := strings.TrimSpace(os.Getenv(env)); v != "" {
		return ", " + v
	}
	return ""
}

// faucetRun is the argv of `faucet run cfg`; BENCH_FAUCET_ARGS adds
// arguments (e.g. "--memprofile /tmp/x.prof" to look into one case), and
// BENCH_WRAP puts a command in front (e.g. "/tmp/rss --", bench/rss built,
// to see where one case's resident memory is at its end).
func (b *bench) faucetRun(cfg string) []string {
	argv := append(strings.Fields(os.Getenv("BENCH_WRAP")), b.faucet, "run", cfg, "--quiet")
	return append(argv, strings.Fields(os.Getenv("BENCH_FAUCET_ARGS"))...)
}

// writeConfig writes a generated pipeline file into the output folder.
func (b *bench) writeConfig(name, body string) (string, error) {
	p := b.o(name)
	return p, os.WriteFile(p, []byte(body), 0o644)
}

func (b *bench) cases() map[string]func() *result {
	duckPQ, faucetPQ := b.o("duckdb.parquet"), b.o("faucet.parquet")
	return map[string]func() *result{
		"duckdb-csv-parquet": func() *result {
			return run("duckdb-csv-parquet", "DuckDB COPY read_csv -> PARQUET (snappy, typed, 2 threads)", b.rows, b.runs, rm(duckPQ), nil,
				[]string{b.duckdb, "-mode", "csv-parquet", "-in", b.csv(), "-out", duckPQ}, func() string { return b.checkParquet(duckPQ) })
		},
		"faucet-csv-parquet": func() *result {
			return run("faucet-csv-parquet", "faucet run: csv -> parquet (snappy, all STRING), default config", b.rows, b.runs, rm(faucetPQ),
				[]string{"IN=" + b.csv(), "OUT=" + faucetPQ}, b.faucetRun(filepath.Join(b.pipelines, "csv_parquet.yaml")),
				func() string { return b.checkParquet(faucetPQ) })
		},
		"faucet-version": func() *result {
			return run("faucet-version", "faucet version: the binary's fixed RSS, no pipeline", 0, b.runs, nil, nil, []string{b.faucet, "version"}, nil)
		},
		"faucet-csv-parquet-1rg": func() *result {
			const name = "faucet-csv-parquet-1rg"
			out := b.o(name + ".parquet")
			r := &result{name: name, what: "as faucet-csv-parquet with row_group_bytes: 1 TiB: one 1M-row row group (held whole before the pages spilled to files)"}
			cfg, err := b.writeConfig(name+".yaml", fmt.Sprintf(`version: 1
name: bench_csv_parquet_1rg
pipeline:
  source: {type: csv, config: {path: %q}}
  sink: {type: parquet, config: {path: %q, row_group_bytes: 1099511627776}}
`, b.csv(), out))
			if err != nil {
				r.err = err.Error()
				return r
			}
			return run(name, r.what, b.rows, b.runs, rm(out), nil, b.faucetRun(cfg), func() string { return b.checkParquet(out) })
		},
		"duckdb-parquet-jsonl":     func() *result { return b.duckPJ("duckdb-parquet-jsonl", duckPQ, "DuckDB's") },
		"faucet-parquet-jsonl":     func() *result { return b.faucetPJ("faucet-parquet-jsonl", duckPQ, "DuckDB's") },
		"duckdb-parquet-jsonl-own": func() *result { return b.duckPJ("duckdb-parquet-jsonl-own", faucetPQ, "faucet's") },
		"faucet-parquet-jsonl-own": func() *result { return b.faucetPJ("faucet-parquet-jsonl-own", faucetPQ, "faucet's") },
		"faucet-jsonl-s3":          b.jsonlS3,
		"faucet-s3-jsonl":          b.s3JSONL,
		"faucet-jsonl-kafka":       b.jsonlKafka,
		"faucet-kafka-jsonl":       b.kafkaJSONL,
	}
}

func (b *bench) duckPJ(name, in, whose string) *result {
	out := b.o(name + ".jsonl")
	return run(name, "DuckDB COPY read_parquet -> FORMAT JSON, "+whose+" Parquet file", b.rows, b.runs, rm(out), nil,
		[]string{b.duckdb, "-mode", "parquet-jsonl", "-in", in, "-out", out}, func() string { return b.checkJSONL(out) })
}

func (b *bench) faucetPJ(name, in, whose string) *result {
	out := b.o(name + ".jsonl")
	return run(name, "faucet run: parquet -> jsonl, default config, "+whose+" Parquet file", b.rows, b.runs, rm(out),
		[]string{"IN=" + in, "OUT=" + out}, b.faucetRun(filepath.Join(b.pipelines, "parquet_jsonl.yaml")),
		func() string { return b.checkJSONL(out) })
}

func (b *bench) ensureS3() error {
	if b.s3 != nil {
		return nil
	}
	s, err := startS3()
	b.s3 = s
	return err
}

// jsonlS3 uploads the JSON Lines file to a bucket emptied before each run.
func (b *bench) jsonlS3() *result {
	const name, bucket = "faucet-jsonl-s3", "bench-put"
	r := &result{name: name, what: "faucet run: jsonl file -> s3 (gofakes3), jsonl objects, default config"}
	if err := b.ensureS3(); err != nil {
		r.err = err.Error()
		return r
	}
	cfg, err := b.writeConfig(name+".yaml", fmt.Sprintf(`version: 1
name: bench_jsonl_s3
pipeline:
  source: {type: jsonl, config: {path: %q}}
  sink: {type: s3, config: {%s, prefix: out/, format: jsonl, compression: none}}
`, b.jsonl(), b.s3.conn(bucket)))
	if err != nil {
		r.err = err.Error()
		return r
	}
	return run(name, r.what, b.rows, b.runs, func() error { return b.s3.reset(bucket) }, nil, b.faucetRun(cfg), func() string {
		n, objs, err := b.s3.countLines(bucket)
		if err != nil {
			return err.Error()
		}
		v := fmt.Sprintf("%d lines in %d objects", n, objs)
		if n != b.rows {
			v += fmt.Sprintf(" (WANT %d)", b.rows)
		}
		return v
	})
}

// s3JSONL downloads one object holding the JSON Lines file.
func (b *bench) s3JSONL() *result {
	const name, bucket = "faucet-s3-jsonl", "bench-get"
	r := &result{name: name, what: "faucet run: s3 (gofakes3, one 208 MB jsonl object) -> jsonl file, default config"}
	out := b.o(name + ".jsonl")
	if err := b.ensureS3(); err != nil {
		r.err = err.Error()
		return r
	}
	if err := b.s3.reset(bucket); err != nil {
		r.err = err.Error()
		return r
	}
	if err := b.s3.putFile(bucket, "in/bench_1m.jsonl", b.jsonl()); err != nil {
		r.err = err.Error()
		return r
	}
	cfg, err := b.writeConfig(name+".yaml", fmt.Sprintf(`version: 1
name: bench_s3_jsonl
pipeline:
  source: {type: s3, config: {%s, prefix: in/, format: jsonl}}
  sink: {type: jsonl, config: {path: %q}}
`, b.s3.conn(bucket), out))
	if err != nil {
		r.err = err.Error()
		return r
	}
	res := run(name, r.what, b.rows, b.runs, rm(out), nil, b.faucetRun(cfg), func() string { return b.checkJSONL(out) })
	_ = b.s3.reset(bucket) // free the object
	return res
}

// jsonlKafka produces the file to a topic of a fresh kfake cluster each
// run (so runs do not pile up messages).
func (b *bench) jsonlKafka() *result {
	const name = "faucet-jsonl-kafka"
	what := fmt.Sprintf("faucet run: jsonl file -> kafka (kfake, %d partitions%s), default config (acks all, idempotent)", kafkaPartitions, rttNote())
	cfg := b.o(name + ".yaml")
	prepare := func() error {
		b.kafka.close()
		k, err := startKafka()
		if err != nil {
			return err
		}
		b.kafka = k
		_, err = b.writeConfig(name+".yaml", fmt.Sprintf(`version: 1
name: bench_jsonl_kafka
pipeline:
  source: {type: jsonl, config: {path: %q}}
  sink: {type: kafka, config: {brokers: %q, topic: {type: fixed, name: %s}%s}}
`, b.jsonl(), k.brokers, kafkaTopic, extraConfig("BENCH_KAFKA_SINK")))
		return err
	}
	res := run(name, what, b.rows, b.runs, prepare, nil, b.faucetRun(cfg), func() string {
		n, err := b.kafka.endOffsets()
		if err != nil {
			return err.Error()
		}
		v := fmt.Sprintf("%d messages in the topic", n)
		if n != b.rows {
			v += fmt.Sprintf(" (WANT %d)", b.rows)
		}
		return v
	})
	b.kafka.close()
	b.kafka = nil
	return res
}

// kafkaJSONL consumes a topic preloaded with the file's lines.
func (b *bench) kafkaJSONL() *result {
	const name = "faucet-kafka-jsonl"
	what := fmt.Sprintf("faucet run: kafka (kfake, %d partitions%s, preloaded) -> jsonl file, earliest, max_messages = rows", kafkaPartitions, rttNote())
	r := &result{name: name, what: what}
	out := b.o(name + ".jsonl")
	k, err := startKafka()
	if err != nil {
		r.err = err.Error()
		return r
	}
	defer func() { k.close(); b.kafka = nil }()
	b.kafka = k
	fmt.Fprintf(os.Stderr, "== %s: loading the topic\n", name)
	if n, err := k.load(b.jsonl()); err != nil || n != b.rows {
		r.err = fmt.Sprintf("loading the topic: %d messages, %v", n, err)
		return r
	}
	cfg, err := b.writeConfig(name+".yaml", fmt.Sprintf(`version: 1
name: bench_kafka_jsonl
pipeline:
  source: {type: kafka, config: {brokers: %q, topics: [%s], auto_offset_reset: earliest, max_messages: %d, idle_timeout: 30%s}}
  sink: {type: jsonl, config: {path: %q}}
`, k.brokers, kafkaTopic, b.rows, extraConfig("BENCH_KAFKA_SOURCE"), out))
	if err != nil {
		r.err = err.Error()
		return r
	}
	// Each line is the source's envelope ({key, value: the row, topic,
	// partition, offset, ...}), not the 7 columns: lines are counted.
	return run(name, what, b.rows, b.runs, rm(out), nil, b.faucetRun(cfg), func() string { return b.checkLines(out, false) + " (envelopes)" })
}
