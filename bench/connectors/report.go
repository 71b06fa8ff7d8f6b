package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// printTable writes the markdown table of the results. × DuckDB divides a
// faucet case's rows/s by its DuckDB counterpart's, from this invocation.
func printTable(w io.Writer, rs []*result) {
	byName := map[string]*result{}
	for _, r := range rs {
		byName[r.name] = r
	}
	fmt.Fprintln(w, "| case | what it measures | median s | min-max s | CPU s | peak RSS MiB | anon MiB | file MiB | rows/s | × DuckDB | server CPU s | output check | other load |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
	for _, r := range rs {
		if r.err != "" || len(r.walls) == 0 {
			fmt.Fprintf(w, "| %s | %s | | | | | | | | | | FAILED: %s | |\n", r.name, r.what, strings.ReplaceAll(r.err, "|", "/"))
			continue
		}
		med := r.median()
		lo, hi := minmax(r.walls)
		rps := ""
		if r.rows > 0 {
			rps = fmt.Sprintf("%.0f", float64(r.rows)/med)
		}
		ratio := ""
		if peer := byName[strings.Replace(r.name, "faucet-", "duckdb-", 1)]; r.rows > 0 && peer != r && peer != nil && peer.err == "" && len(peer.walls) > 0 {
			ratio = fmt.Sprintf("%.2f", peer.median()/med)
		}
		server := ""
		if r.serverCPU >= 0.01 && !strings.HasPrefix(r.name, "duckdb") && (strings.Contains(r.name, "s3") || strings.Contains(r.name, "kafka")) {
			server = fmt.Sprintf("%.2f", r.serverCPU)
		}
		load := "n/a"
		if r.otherLoad >= 0 {
			load = fmt.Sprintf("%.0f%%", r.otherLoad)
		}
		fmt.Fprintf(w, "| %s | %s | %.3f | %.3f-%.3f | %.2f | %.1f | %.1f | %.1f | %s | %s | %s | %s | %s |\n",
			r.name, r.what, med, lo, hi, quantile(r.cpu, 0.5), float64(slices.Max(r.rssKB))/1024,
			float64(slices.Max(r.anonKB))/1024, float64(slices.Max(r.fileKB))/1024, rps, ratio, server, r.check, load)
	}
}
