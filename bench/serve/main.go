// Command serve benchmarks `faucet serve` end to end (issue 4): the
// submit-to-completion throughput of a trivial pipeline (a 3-row CSV copied to
// JSON Lines) from 8 client goroutines, with SQLite and with Postgres history
// and a few --max-concurrent-runs settings; and the latency of GET /v1/runs
// (first page and a page 90% deep, by cursor) with 100k runs stored. It builds
// the real binary into a temp dir, runs it as a subprocess on 127.0.0.1 with
// --no-auth, and prints Markdown tables.
//
//	go run ./bench/serve [-runs 300] [-concurrency 2,4] [-list-runs 100000] [-postgres URL]
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/faucet-hq/faucet/bench/internal/serveproc"
	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

var (
	nRuns       = flag.Int("runs", 300, "runs submitted per throughput configuration")
	clients     = flag.Int("clients", 8, "client goroutines submitting and polling")
	concurrency = flag.String("concurrency", "2,4", "comma list of --max-concurrent-runs values")
	listRuns    = flag.Int("list-runs", 100000, "runs stored for the listing benchmark (0 skips it)")
	reps        = flag.Int("reps", 50, "GET /v1/runs requests per page (median reported)")
	poll        = flag.Duration("poll", 10*time.Millisecond, "GET /v1/runs/{id} poll interval")
	phaseLimit  = flag.Duration("phase-timeout", 90*time.Second, "upper bound on one throughput phase")
	pgURL       = flag.String("postgres", envOr("FAUCET_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "Postgres URL (empty to skip)")
)

// The fatal-exit cleanups and the HTTP helper are serveproc's.
var (
	atExit      = serveproc.AtExit
	runCleanups = serveproc.RunCleanups
	check       = serveproc.Check
	must        = serveproc.Must
	do          = serveproc.Do
	client      = serveproc.Client
)

type backend struct {
	name string
	url  func(tag string) string // a fresh, empty history per server
}

func main() {
	flag.Parse()
	ctx := context.Background()
	var levels []int
	for _, s := range strings.Split(*concurrency, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		check(err)
		must(n >= 1, "-concurrency values must be ≥ 1")
		levels = append(levels, n)
	}

	dir, err := os.MkdirTemp("", "faucet-serve-bench")
	check(err)
	atExit(func() { os.RemoveAll(dir) })
	defer runCleanups()
	bin := filepath.Join(dir, "faucet")
	build := exec.Command("go", "build", "-o", bin, "github.com/faucet-hq/faucet/cmd/faucet")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	check(build.Run())

	// The trivial pipeline's input: 3 rows.
	in := filepath.Join(dir, "in.csv")
	check(os.WriteFile(in, []byte("id,name\n1,a\n2,b\n3,c\n"), 0o644))
	check(os.MkdirAll(filepath.Join(dir, "out"), 0o755))

	backends := []backend{{"sqlite (WAL file)", func(tag string) string { return "sqlite:" + filepath.Join(dir, "h-"+tag+".db") }}}
	if *pgURL != "" {
		if pg, err := newPG(*pgURL); err != nil {
			fmt.Fprintf(os.Stderr, "postgres skipped: %v\n", err)
		} else {
			atExit(pg.dropAll)
			backends = append(backends, backend{"postgres", pg.fresh})
		}
	}

	var thr, lst []string
	for _, b := range backends {
		for _, c := range levels {
			tag := fmt.Sprintf("thr-%d", c)
			srv := start(bin, dir, b.url(tag), c, tag)
			r := throughput(srv.Base, dir, in, tag)
			srv.Stop()
			thr = append(thr, fmt.Sprintf("| %s | %d | %d | %d | %.1f | %v | %v | %v | %d |", b.name, c, r.done, *clients,
				r.rate, r.p50.Round(100*time.Microsecond), r.p95.Round(100*time.Microsecond),
				r.exec50.Round(100*time.Microsecond), r.failed))
			fmt.Fprintln(os.Stderr, thr[len(thr)-1])
		}
		if *listRuns > 0 {
			u := b.url("list")
			t := time.Now()
			seed(ctx, u, *listRuns)
			seedDur := time.Since(t)
			srv := start(bin, dir, u, levels[0], "list")
			first, deep, depth := listing(srv.Base, *listRuns)
			srv.Stop()
			lst = append(lst, fmt.Sprintf("| %s | %d | %v | %v (at %d) | %.2f× | %v |", b.name, *listRuns,
				first.Round(10*time.Microsecond), deep.Round(10*time.Microsecond), depth, float64(deep)/float64(first),
				seedDur.Round(100*time.Millisecond)))
			fmt.Fprintln(os.Stderr, lst[len(lst)-1])
		}
	}
	fmt.Printf("Submit-to-completion (csv→jsonl, 3 rows; POST /v1/runs then poll GET /v1/runs/{id} every %v):\n\n", *poll)
	fmt.Println("| history | max-concurrent-runs | runs | clients | runs/s | p50 | p95 | p50 started→finished | failed |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	fmt.Println(strings.Join(thr, "\n"))
	if len(lst) > 0 {
		fmt.Printf("\nGET /v1/runs?limit=50, median of %d requests:\n\n", *reps)
		fmt.Println("| history | runs stored | first page | deep page (cursor) | ratio | seed time |")
		fmt.Println("|---|---|---|---|---|---|")
		fmt.Println(strings.Join(lst, "\n"))
	}
}

// start launches `faucet serve` with history historyURL and maxConc slots
// and returns once it answers /readyz 200.
func start(bin, dir, historyURL string, maxConc int, tag string) *serveproc.Server {
	return serveproc.Start(bin, dir, tag, "--history", historyURL,
		"--max-concurrent-runs", strconv.Itoa(maxConc), "--retain-terminal-runs-secs", "31536000")
}

type result struct {
	done, failed     int
	rate             float64
	p50, p95, exec50 time.Duration
}

// sorted returns the non-zero durations in ascending order.
func sorted(in []time.Duration) []time.Duration {
	var ds []time.Duration
	for _, d := range in {
		if d > 0 {
			ds = append(ds, d)
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds
}

// throughput submits -runs runs from -clients goroutines, each polling its
// run to a terminal status before submitting the next.
func throughput(base, dir, in, tag string) result {
	cfg := func(i int) string {
		out := filepath.Join(dir, "out", fmt.Sprintf("%s-%d.jsonl", tag, i))
		return fmt.Sprintf("version: 1\nname: bench_serve\npipeline:\n  source:\n    type: csv\n    config: {path: %q}\n  sink:\n    type: jsonl\n    config: {path: %q}\n", in, out)
	}
	// Warm-up (not timed): one run, which also checks the pipeline completes.
	if st, _, _, err := submitAndWait(base, cfg(-1), time.Now().Add(30*time.Second)); err != nil || st != history.StatusCompleted {
		check(fmt.Errorf("warm-up run: status %q, %v", st, err))
	}
	var next, failed atomic.Int64
	lat := make([]time.Duration, *nRuns)
	execs := make([]time.Duration, *nRuns)
	var done atomic.Int64
	deadline := time.Now().Add(*phaseLimit)
	var wg sync.WaitGroup
	t0 := time.Now()
	for g := 0; g < *clients; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= *nRuns || time.Now().After(deadline) {
					return
				}
				st, d, ex, err := submitAndWait(base, cfg(i), deadline)
				if err != nil {
					fmt.Fprintf(os.Stderr, "run %d: %v\n", i, err)
					failed.Add(1)
					continue
				}
				if st != history.StatusCompleted {
					failed.Add(1)
				}
				lat[i], execs[i] = d, ex
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	r := result{done: int(done.Load()), failed: int(failed.Load()), rate: float64(done.Load()) / el.Seconds()}
	ds := sorted(lat)
	if len(ds) > 0 {
		r.p50, r.p95 = ds[len(ds)/2], ds[(len(ds)*95)/100]
	}
	if es := sorted(execs); len(es) > 0 {
		r.exec50 = es[len(es)/2]
	}
	return r
}

// submitAndWait posts one run and polls it until terminal or the deadline;
// it returns the terminal status, the submit-to-completion time seen by the
// client and the server's own started_at→finished_at.
func submitAndWait(base, config string, deadline time.Time) (st history.RunStatus, total, exec time.Duration, err error) {
	body, _ := json.Marshal(map[string]string{"config": config})
	t0 := time.Now()
	var sub struct {
		RunID string `json:"run_id"`
	}
	for attempt := 0; ; attempt++ {
		code, data, err := do("POST", base+"/v1/runs", body)
		if err != nil {
			return "", 0, 0, err
		}
		if code == http.StatusTooManyRequests && attempt < 100 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if code != http.StatusAccepted {
			return "", 0, 0, fmt.Errorf("submit: HTTP %d: %s", code, data)
		}
		if err := json.Unmarshal(data, &sub); err != nil {
			return "", 0, 0, err
		}
		break
	}
	for time.Now().Before(deadline) {
		code, data, err := do("GET", base+"/v1/runs/"+sub.RunID, nil)
		if err != nil {
			return "", 0, 0, err
		}
		if code != http.StatusOK {
			return "", 0, 0, fmt.Errorf("get %s: HTTP %d: %s", sub.RunID, code, data)
		}
		var rec struct {
			Status     history.RunStatus `json:"status"`
			Error      *string           `json:"error"`
			StartedAt  *time.Time        `json:"started_at"`
			FinishedAt *time.Time        `json:"finished_at"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			return "", 0, 0, err
		}
		if rec.Status.IsTerminal() {
			d := time.Since(t0)
			if rec.Status != history.StatusCompleted && rec.Error != nil {
				fmt.Fprintf(os.Stderr, "run %s %s: %s\n", sub.RunID, rec.Status, *rec.Error)
			}
			var exec time.Duration
			if rec.StartedAt != nil && rec.FinishedAt != nil {
				exec = rec.FinishedAt.Sub(*rec.StartedAt)
			}
			return rec.Status, d, exec, nil
		}
		time.Sleep(*poll)
	}
	return "", 0, 0, fmt.Errorf("run %s not terminal by the deadline", sub.RunID)
}

// seed fills an empty history with n completed runs, three per second of
// submitted_at ending a minute ago (inside the server's retention).
func seed(ctx context.Context, u string, n int) {
	s, err := sqlstore.OpenOptions(ctx, u, history.Options{InstanceID: "bench-seed"})
	check(err)
	defer s.Close()
	end := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	base := end.Add(-time.Duration(n/3) * time.Second)
	const batch = 2000
	for i := 0; i < n; i += batch {
		recs := make([]history.RunRecord, 0, batch)
		for j := i; j < i+batch && j < n; j++ {
			r := history.NewQueuedRun(fmt.Sprintf("seed-%07d", j), history.Ptr("bench_serve"), map[string]string{"env": "bench"}, nil,
				base.Add(time.Duration(j/3)*time.Second))
			st := r.SubmittedAt.Add(100 * time.Millisecond)
			fin := r.SubmittedAt.Add(2 * time.Second)
			r.Status, r.StartedAt, r.FinishedAt, r.RecordsWritten = history.StatusCompleted, &st, &fin, 3
			recs = append(recs, r)
		}
		check(s.UpsertBatch(ctx, recs))
	}
}

type page struct {
	Runs       []json.RawMessage `json:"runs"`
	NextCursor *string           `json:"next_cursor"`
}

func getPage(u string) (page, time.Duration) {
	t := time.Now()
	code, data, err := do("GET", u, nil)
	d := time.Since(t)
	check(err)
	if code != http.StatusOK {
		check(fmt.Errorf("GET %s: HTTP %d: %s", u, code, data))
	}
	var p page
	check(json.Unmarshal(data, &p))
	return p, d
}

// listing times GET /v1/runs?limit=50 for the first page and for the page
// after the first 90% of the runs (cursor found by walking next_cursor with
// limit=500, untimed). Returns medians and the depth reached.
func listing(base string, n int) (first, deep time.Duration, depth int) {
	target := n * 9 / 10
	var cursor string
	for i := 0; depth < target && i < n/500+10; i++ {
		u := base + "/v1/runs?limit=500"
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		p, _ := getPage(u)
		depth += len(p.Runs)
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	must(cursor != "" && depth >= target, fmt.Sprintf("walk reached %d runs, want %d", depth, target))
	median := func(u string) time.Duration {
		d := make([]time.Duration, *reps)
		for i := range d {
			p, t := getPage(u)
			must(len(p.Runs) == 50, "page of 50")
			d[i] = t
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	first = median(base + "/v1/runs?limit=50")
	deep = median(base + "/v1/runs?limit=50&cursor=" + url.QueryEscape(cursor))
	return first, deep, depth
}

// pg hands out throwaway schemas and drops them all at the end.
type pg struct {
	db      *sql.DB
	base    string
	schemas []string
}

func newPG(base string) (*pg, error) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return &pg{db: db, base: base}, nil
}

func (p *pg) fresh(string) string {
	schema := "bench_serve_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	_, err := p.db.Exec("CREATE SCHEMA " + schema)
	check(err)
	p.schemas = append(p.schemas, schema)
	sep := "?"
	if strings.Contains(p.base, "?") {
		sep = "&"
	}
	return p.base + sep + "search_path=" + schema
}

func (p *pg) dropAll() {
	for _, s := range p.schemas {
		if _, err := p.db.Exec("DROP SCHEMA " + s + " CASCADE"); err != nil {
			fmt.Fprintf(os.Stderr, "drop schema %s: %v\n", s, err)
		}
	}
	p.db.Close()
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
