// Command connectors measures faucet's connector benchmarks of issue 7 on
// the deterministic 1M-row data set of bench/gen, each case a real
// `faucet run` child process timed under GNU time:
//
//   - Parquet: CSV -> Parquet and Parquet -> JSON Lines, faucet against
//     DuckDB's own COPY (bench/connectors/duckdb) in the same invocation;
//   - S3: JSON Lines file -> S3 and S3 -> JSON Lines file, against gofakes3
//     served by this process on a loopback port;
//   - Kafka: JSON Lines file -> topic (produce) and topic -> JSON Lines file
//     (consume), against kfake served by this process.
//
// The fake servers run here, so faucet's peak RSS and CPU (GNU time of the
// child) are its own; the servers' CPU per run is reported apart. See
// README.md; bench/connectors/run.sh builds the binaries and runs this.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

const rows1M = 1_000_000

type config struct {
	faucet, duckdb, data, out, pipelines, checker string
	runs                                          int
	rows                                          int64
}

func main() {
	var c config
	flag.StringVar(&c.faucet, "faucet", "bench/connectors/bin/faucet", "faucet binary")
	flag.StringVar(&c.duckdb, "duckdb", "bench/connectors/bin/duckdb-convert", "DuckDB peer binary (bench/connectors/duckdb)")
	flag.StringVar(&c.data, "data", "bench/data", "folder of bench_1m.csv and bench_1m.jsonl")
	flag.StringVar(&c.out, "out", "bench/out/connectors", "folder for outputs and generated pipeline files")
	flag.StringVar(&c.pipelines, "pipelines", "bench/pipelines", "folder of csv_parquet.yaml and parquet_jsonl.yaml")
	flag.StringVar(&c.checker, "check-jsonl", "bench/.peers/check_jsonl.py", "JSON Lines checker (skipped when missing)")
	flag.IntVar(&c.runs, "runs", 5, "timed runs per case")
	flag.Int64Var(&c.rows, "rows", rows1M, "data rows in the input files")
	cases := flag.String("cases", strings.Join(allCases, ","), "cases to run, comma-separated")
	flag.Parse()
	for _, p := range []*string{&c.faucet, &c.duckdb, &c.data, &c.out, &c.pipelines, &c.checker} {
		a, err := filepath.Abs(*p)
		if err != nil {
			fail(err)
		}
		*p = a
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		fail(err)
	}
	b := &bench{config: c}
	defer b.close()
	var results []*result
	for _, name := range strings.Split(*cases, ",") {
		fn, ok := b.cases()[name]
		if !ok {
			fail(fmt.Errorf("unknown case %q (known: %s)", name, strings.Join(allCases, ", ")))
		}
		r := fn()
		if r.err != "" {
			fmt.Fprintf(os.Stderr, "   FAILED: %s\n", r.err)
		}
		results = append(results, r)
	}
	printTable(os.Stdout, results)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "connectors bench:", err)
	os.Exit(1)
}

// checkJSONL is the output check of the JSON Lines outputs: the line
// count, and the shared checker's verdict (every line an object with the 7
// columns, ids in order) when it is there.
func (b *bench) checkJSONL(path string) string { return b.checkLines(path, true) }

// checkLines counts path's lines; with shared, also runs the checker.
func (b *bench) checkLines(path string, shared bool) string {
	f, err := os.Open(path)
	if err != nil {
		return "NO OUTPUT: " + err.Error()
	}
	n, err := countNewlines(f)
	f.Close()
	if err != nil {
		return err.Error()
	}
	v := fmt.Sprintf("%d lines", n)
	if n != b.rows {
		v += fmt.Sprintf(" (WANT %d)", b.rows)
	}
	if _, err := os.Stat(b.checker); err == nil && shared {
		out, _ := exec.Command("python3", b.checker, path).CombinedOutput()
		v += ", " + strings.TrimSpace(lastLine(string(out)))
	}
	return v
}

// checkParquet counts a Parquet file's rows with DuckDB: the file must be
// readable by another implementation.
func (b *bench) checkParquet(path string) string {
	out, err := exec.Command(b.duckdb, "-mode", "count", "-in", path).CombinedOutput()
	if err != nil {
		return "DuckDB cannot read it: " + lastLine(string(out))
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if n != b.rows {
		return fmt.Sprintf("DuckDB reads %d rows, WANT %d", n, b.rows)
	}
	return fmt.Sprintf("DuckDB reads %d rows", n)
}
