// Command cluster benchmarks `faucet serve --cluster` (issue 6): 1, 2 and 3
// real instances on 127.0.0.1 sharing one fresh Postgres database, and one
// plain (non-cluster) instance on its own fresh database as the baseline.
// Trivial runs (a 3-row CSV copied to JSON Lines) are submitted round-robin
// over the instances from a fixed number of client goroutines; it reports
// completed runs/s, the server-side submit→start latency (submitted_at to
// started_at, p50/p95) and how the runs spread over the instances. Every
// configuration is repeated and the medians and ranges are printed as
// Markdown tables. See README.md for the method and the figures.
//
// With -sharded it measures mode B instead (sharded.go): a 1M-row CSV set
// and a 1M-row Postgres table, each split into 4 shards, copied into a
// Postgres table by 1 and by 3 instances.
//
//	go run ./bench/cluster [-runs 400] [-reps 5] [-instances 1,2,3] [-postgres URL]
//	go run ./bench/cluster -sharded [-sharded-rows 1000000] [-reps 3]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

var (
	nRuns      = flag.Int("runs", 400, "runs submitted per configuration and repetition")
	clients    = flag.Int("clients", 8, "client goroutines; each submits a run, polls it to a terminal status, then submits the next")
	instances  = flag.String("instances", "1,2,3", "comma list of cluster sizes")
	reps       = flag.Int("reps", 5, "repetitions of every configuration (medians and ranges reported)")
	slots      = flag.Int("max-concurrent-runs", 2, "--max-concurrent-runs of every instance")
	pollSecs   = flag.Int("cluster-poll-secs", 2, "--cluster-poll-secs of the cluster instances")
	poll       = flag.Duration("poll", 10*time.Millisecond, "client poll interval of GET /v1/runs/{id}")
	phaseLimit = flag.Duration("phase-timeout", 120*time.Second, "upper bound on one measured phase")
	binPath    = flag.String("bin", "", "a prebuilt faucet binary to benchmark (default: go build ./cmd/faucet into a temp dir)")
	pgURL      = flag.String("postgres", envOr("FAUCET_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "Postgres URL of an existing database; the bench creates and drops its own databases on that server")
)

// config is one measured setup: n instances, clustered or not.
type config struct {
	name    string
	n       int
	cluster bool
}

func main() {
	flag.Parse()
	var cfgs []config
	cfgs = append(cfgs, config{name: "single (no --cluster)", n: 1})
	for _, s := range strings.Split(*instances, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		check(err)
		must(n >= 1, "-instances values must be ≥ 1")
		cfgs = append(cfgs, config{name: fmt.Sprintf("cluster × %d", n), n: n, cluster: true})
	}
	must(*nRuns >= 1 && *clients >= 1 && *reps >= 1 && *slots >= 1 && *pollSecs >= 1, "-runs, -clients, -reps, -max-concurrent-runs and -cluster-poll-secs must be ≥ 1")

	dir, err := os.MkdirTemp("", "faucet-cluster-bench")
	check(err)
	atExit(func() { os.RemoveAll(dir) })
	defer runCleanups()
	bin := *binPath
	if bin == "" {
		bin = filepath.Join(dir, "faucet")
		build := exec.Command("go", "build", "-o", bin, "github.com/faucet-hq/faucet/cmd/faucet")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		check(build.Run())
	}

	if *sharded {
		pg, err := newPG(*pgURL)
		check(err)
		atExit(pg.dropAll)
		shardedMain(bin, dir, pg)
		return
	}

	in := filepath.Join(dir, "in.csv")
	check(os.WriteFile(in, []byte("id,name\n1,a\n2,b\n3,c\n"), 0o644))
	check(os.MkdirAll(filepath.Join(dir, "out"), 0o755))

	pg, err := newPG(*pgURL)
	check(err)
	atExit(pg.dropAll)

	results := make([][]result, len(cfgs))
	for rep := 0; rep < *reps; rep++ {
		// Interleaved: every repetition measures every configuration, so a
		// burst of load from elsewhere on the machine hits all of them.
		for ci, c := range cfgs {
			tag := fmt.Sprintf("r%d-%s%d", rep, map[bool]string{true: "c", false: "s"}[c.cluster], c.n)
			r := measure(bin, dir, in, pg, c, tag)
			results[ci] = append(results[ci], r)
			fmt.Fprintf(os.Stderr, "rep %d %-22s %6.1f runs/s  submit→start p50 %-9v p95 %-9v spread %v failed %d\n",
				rep+1, c.name, r.rate, r.start50.Round(100*time.Microsecond), r.start95.Round(100*time.Microsecond), r.perInstance, r.failed)
		}
	}
	report(cfgs, results)
}

// measure runs one configuration on a fresh database and stops it.
func measure(bin, dir, in string, pg *pg, c config, tag string) result {
	db := pg.fresh()
	var ss []*server
	for i := 0; i < c.n; i++ {
		ss = append(ss, start(bin, dir, db, c.cluster, fmt.Sprintf("%s-%d", tag, i)))
	}
	if c.cluster {
		waitMembers(ss)
	}
	r := throughput(ss, dir, in, tag)
	if !c.cluster {
		r.perInstance = []int{r.done} // no claim metric without --cluster
	}
	for _, s := range ss {
		s.Stop()
	}
	pg.drop(db)
	return r
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
