package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The sharded phase (-sharded): mode B runs of -sharded-rows rows, split
// into -shard-count shards, on 1 and 3 cluster instances.
var (
	sharded          = flag.Bool("sharded", false, "run only the sharded phase (mode B: big runs split into shards) instead of the trivial-run phase")
	shardedRows      = flag.Int("sharded-rows", 1_000_000, "sharded phase: rows of the source (CSV set and Postgres table)")
	shardedFiles     = flag.Int("sharded-files", 8, "sharded phase: files of the CSV set")
	shardCount       = flag.Int("shard-count", 4, "sharded phase: shard: {count: N} of the pipelines")
	shardedInstances = flag.String("sharded-instances", "1,3", "sharded phase: comma list of cluster sizes")
	shardedTimeout   = flag.Duration("sharded-timeout", 10*time.Minute, "sharded phase: upper bound on one run")
)

// workload is one sharded pipeline: its config for a given sink table.
type workload struct {
	name   string
	config func(d shardData, dst string) string
}

func shardWorkloads() []workload {
	sink := func(d shardData, dst string) string {
		return fmt.Sprintf("  sink:\n    type: postgres\n    config: {url: %q, table_name: %s, column_mapping: auto_map, write_method: copy}\n", d.url, dst)
	}
	head := func(name string) string {
		return fmt.Sprintf("version: 1\nname: %s\nshard: {count: %d}\npipeline:\n", name, *shardCount)
	}
	return []workload{
		{name: fmt.Sprintf("CSV set (%d files) → Postgres", *shardedFiles), config: func(d shardData, dst string) string {
			return head("bench_sharded_csv") + fmt.Sprintf("  source:\n    type: csv\n    config: {path: %q}\n", d.glob) + sink(d, dst)
		}},
		{name: "Postgres table (key range) → Postgres", config: func(d shardData, dst string) string {
			return head("bench_sharded_pg") + fmt.Sprintf("  source:\n    type: postgres\n    config: {url: %q, table: %s, shard: {key: id}}\n", d.url, d.source) + sink(d, dst)
		}},
	}
}

// shardResult is one sharded run, measured and checked.
type shardResult struct {
	wall        time.Duration // client: POST sent → the parent's terminal status read
	rate        float64       // source rows / wall
	shards      int           // rows in faucet_serve_shards for the run
	sizes       []float64     // each shard's size_estimate, % of their sum (by shard id)
	perInstance []int         // increase of faucet_serve_shards_claimed_total per instance
	load        float64       // 1-minute load average after the run
}

// shardedMain prepares the data once, then measures every workload on every
// cluster size, -reps times, interleaved, and prints the tables.
func shardedMain(bin, dir string, p *pg) {
	var sizes []int
	for _, s := range strings.Split(*shardedInstances, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		check(err)
		must(n >= 1, "-sharded-instances values must be ≥ 1")
		sizes = append(sizes, n)
	}
	must(*shardedRows >= 1 && *shardedFiles >= 1 && *shardCount >= 2, "-sharded-rows and -sharded-files must be ≥ 1, -shard-count ≥ 2")
	t0 := time.Now()
	d := prepareShardData(dir, p)
	fmt.Fprintf(os.Stderr, "data: %d rows, %d CSV files and table %s, ready in %v\n", d.want.n, *shardedFiles, d.source, time.Since(t0).Round(time.Second))
	ws := shardWorkloads()
	results := make([][][]shardResult, len(ws)) // [workload][size][rep]
	for wi := range ws {
		results[wi] = make([][]shardResult, len(sizes))
	}
	for rep := 0; rep < *reps; rep++ {
		for wi, w := range ws {
			for si, n := range sizes {
				tag := fmt.Sprintf("r%d-w%d-c%d", rep, wi, n)
				r := measureSharded(bin, dir, p, d, w, n, tag)
				results[wi][si] = append(results[wi][si], r)
				fmt.Fprintf(os.Stderr, "rep %d %-40s × %d  %7.2f s  %8.0f rows/s  %d shards (%s), per instance %v  load %.1f\n",
					rep+1, w.name, n, r.wall.Seconds(), r.rate, r.shards, percents(r.sizes), r.perInstance, r.load)
			}
		}
	}
	reportSharded(ws, sizes, results, d.want.n)
}

// measureSharded starts n cluster instances on a fresh history database,
// submits one sharded run of w into a new sink table, follows it to the
// parent's terminal status, checks the sink against the source and stops
// everything again. Any failure ends the bench.
func measureSharded(bin, dir string, p *pg, d shardData, w workload, n int, tag string) shardResult {
	history := p.fresh()
	var ss []*server
	for i := 0; i < n; i++ {
		ss = append(ss, start(bin, dir, history, true, fmt.Sprintf("%s-%d", tag, i)))
	}
	waitMembers(ss)
	dst := "bench_dst_" + strings.ReplaceAll(tag, "-", "_")
	_, err := d.db.Exec("CREATE TABLE " + dst + " " + benchColumns)
	check(err)

	before := counterPerInstance(ss, "faucet_serve_shards_claimed_total")
	o, err := submitAndWait(ss[0].Base, w.config(d, dst), time.Now().Add(*shardedTimeout))
	if err == nil && o.status != "completed" {
		err = fmt.Errorf("run %s ended %s", o.id, o.status)
	}
	if err != nil {
		failAll(ss, fmt.Errorf("%s on %d instance(s): %w", w.name, n, err))
	}
	r := shardResult{wall: o.total, rate: float64(d.want.n) / o.total.Seconds(), load: loadAvg()}
	after := counterPerInstance(ss, "faucet_serve_shards_claimed_total")
	claims := 0
	for i := range after {
		r.perInstance = append(r.perInstance, after[i]-before[i])
		claims += after[i] - before[i]
	}

	shards, completed, sizes := shardsOf(history, o.id)
	r.shards, r.sizes = shards, sizes
	switch {
	case shards < 2:
		failAll(ss, fmt.Errorf("%s: run %s was not split (%d shards)", w.name, o.id, shards))
	case completed != shards:
		failAll(ss, fmt.Errorf("%s: run %s completed with %d of %d shards completed", w.name, o.id, completed, shards))
	case claims < shards:
		failAll(ss, fmt.Errorf("%s: %d shard claims for %d shards", w.name, claims, shards))
	}
	if got := d.sumsOf(dst); got != d.want {
		failAll(ss, fmt.Errorf("%s on %d instance(s): sink %s holds %d rows, sum(id) %d, sum(amount) %s; the source %d, %d, %s",
			w.name, n, dst, got.n, got.ids, got.amount, d.want.n, d.want.ids, d.want.amount))
	}
	for _, s := range ss {
		s.Stop()
	}
	_, err = d.db.Exec("DROP TABLE " + dst)
	check(err)
	p.drop(history)
	return r
}

// shardsOf counts the shard rows of run in the history database and
// returns their size estimates (bytes of files, or rows of a key range) as
// percentages of their sum.
func shardsOf(history, run string) (total, completed int, sizes []float64) {
	db, err := sql.Open("pgx", history)
	check(err)
	defer db.Close()
	rows, err := db.Query("SELECT status, COALESCE(size_estimate, '0') FROM faucet_serve_shards WHERE run_id = $1 ORDER BY shard_id", run)
	check(err)
	defer rows.Close()
	sum := 0.0
	for rows.Next() {
		var status, size string
		check(rows.Scan(&status, &size))
		total++
		if status == "completed" {
			completed++
		}
		v, _ := strconv.ParseFloat(size, 64)
		sizes = append(sizes, v)
		sum += v
	}
	check(rows.Err())
	for i := range sizes {
		if sum > 0 {
			sizes[i] = sizes[i] / sum * 100
		}
	}
	return total, completed, sizes
}

// failAll prints the tail of every instance's log and exits through the
// first instance's fail (which kills it; the cleanups stop the rest).
func failAll(ss []*server, err error) {
	for _, s := range ss[1:] {
		if b, _ := os.ReadFile(s.Log); len(b) > 0 {
			if len(b) > 2000 {
				b = b[len(b)-2000:]
			}
			fmt.Fprintf(os.Stderr, "--- server log (%s) ---\n%s\n", s.Log, b)
		}
	}
	ss[0].Fail(err)
}

// percents formats shard shares as "25/25/25/25 %".
func percents(xs []float64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%.0f", x))
	}
	return strings.Join(parts, "/") + " %"
}

// loadAvg is the 1-minute load average (0 where /proc/loadavg is missing).
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
