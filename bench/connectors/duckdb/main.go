// Command duckdb-convert is the DuckDB peer of the parquet benchmarks in
// bench/connectors: it converts one file with DuckDB's own COPY, in one
// process, as faucet converts it.
//
//	duckdb-convert -mode csv-parquet -in bench_1m.csv -out out.parquet [-threads N]
//	duckdb-convert -mode parquet-jsonl -in in.parquet -out out.jsonl
//
// csv-parquet: COPY (SELECT * FROM read_csv(IN)) TO OUT (FORMAT PARQUET,
// COMPRESSION SNAPPY), DuckDB's type-inferring reader and its default row
// groups. parquet-jsonl: COPY (SELECT * FROM read_parquet(IN)) TO OUT
// (FORMAT JSON), one object per line.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	mode := flag.String("mode", "", "csv-parquet or parquet-jsonl")
	in := flag.String("in", "", "input file")
	out := flag.String("out", "", "output file")
	threads := flag.Int("threads", 0, "DuckDB threads (0 = DuckDB default, all cores)")
	flag.Parse()
	var q string
	switch *mode {
	case "csv-parquet":
		q = fmt.Sprintf("COPY (SELECT * FROM read_csv(%s)) TO %s (FORMAT PARQUET, COMPRESSION SNAPPY)", lit(*in), lit(*out))
	case "parquet-jsonl":
		q = fmt.Sprintf("COPY (SELECT * FROM read_parquet(%s)) TO %s (FORMAT JSON)", lit(*in), lit(*out))
	case "count":
		// count prints the rows of a Parquet file: the output check.
		q = fmt.Sprintf("SELECT count(*) FROM read_parquet(%s)", lit(*in))
	default:
		fmt.Fprintln(os.Stderr, "usage: duckdb-convert -mode csv-parquet|parquet-jsonl|count -in FILE [-out FILE]")
		os.Exit(2)
	}
	if *in == "" || (*out == "" && *mode != "count") {
		fmt.Fprintln(os.Stderr, "-in and -out are required")
		os.Exit(2)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	if *threads > 0 {
		if _, err := db.Exec(fmt.Sprintf("SET threads = %d", *threads)); err != nil {
			fail(err)
		}
	}
	if *mode == "count" {
		var n int64
		if err := db.QueryRow(q).Scan(&n); err != nil {
			fail(err)
		}
		fmt.Println(n)
		return
	}
	if _, err := db.Exec(q); err != nil {
		fail(err)
	}
}

func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
