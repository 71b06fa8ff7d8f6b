// Command history benchmarks the run-history store (issue 3): with N runs
// stored, the cost of a listing page deep in the history (cursor 90% in)
// against the first page, with the database's plan for both; and the rate of
// idempotent claims from 8 goroutines. It runs on a SQLite file and on
// Postgres (a throwaway schema), and prints a Markdown table.
//
//	go run ./bench/history [-runs 100000] [-postgres URL] [-claims 5s]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

func main() {
	runs := flag.Int("runs", 100000, "runs to store")
	pgURL := flag.String("postgres", envOr("FAUCET_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "Postgres URL (empty to skip)")
	claimFor := flag.Duration("claims", 5*time.Second, "duration of the claim benchmark")
	reps := flag.Int("reps", 200, "listing repetitions per page")
	flag.Parse()
	ctx := context.Background()

	dir, err := os.MkdirTemp("", "faucet-history-bench")
	check(err)
	defer os.RemoveAll(dir)
	targets := []struct{ name, url string }{{"sqlite (WAL file)", "sqlite:" + filepath.Join(dir, "bench.db")}}
	if *pgURL != "" {
		u, drop, err := pgSchema(*pgURL)
		if err != nil {
			fmt.Fprintf(os.Stderr, "postgres skipped: %v\n", err)
		} else {
			defer drop()
			targets = append(targets, struct{ name, url string }{"postgres", u})
		}
	}
	fmt.Printf("| backend | runs | first page (50) | page at 90%% | ratio | claims/s (8 goroutines) |\n|---|---|---|---|---|---|\n")
	var plans []string
	for _, tg := range targets {
		s, err := sqlstore.OpenOptions(ctx, tg.url, history.Options{InstanceID: "bench"})
		check(err)
		seed(ctx, s, *runs)
		first, deep, cursor := listing(ctx, s, *runs, *reps)
		fp, err := s.ExplainList(ctx, history.ListFilter{Limit: 50})
		check(err)
		dp, err := s.ExplainList(ctx, history.ListFilter{Limit: 50, Cursor: &cursor})
		check(err)
		plans = append(plans, fmt.Sprintf("%s first page:\n    %s\n%s deep page:\n    %s", tg.name,
			strings.Join(fp, "\n    "), tg.name, strings.Join(dp, "\n    ")))
		rate := claims(ctx, s, *claimFor)
		fmt.Printf("| %s | %d | %v | %v | %.2f× | %.0f |\n", tg.name, *runs, first.Round(time.Microsecond),
			deep.Round(time.Microsecond), float64(deep)/float64(first), rate)
		s.Close()
	}
	fmt.Println("\nPlans:\n\n```")
	fmt.Println(strings.Join(plans, "\n"))
	fmt.Println("```")
}

func seed(ctx context.Context, s *sqlstore.Store, n int) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const batch = 2000
	for i := 0; i < n; i += batch {
		var recs []history.RunRecord
		for j := i; j < i+batch && j < n; j++ {
			r := history.NewQueuedRun(fmt.Sprintf("run-%07d", j), history.Ptr("pipeline"), map[string]string{"env": "bench"}, nil,
				base.Add(time.Duration(j/3)*time.Second)) // ties on submitted_at exercise the run_id tiebreak
			r.Status = history.StatusCompleted
			fin := r.SubmittedAt.Add(2 * time.Second)
			r.FinishedAt, r.RecordsWritten = &fin, uint64(j)
			recs = append(recs, r)
		}
		check(s.UpsertBatch(ctx, recs))
	}
}

// listing times the first page and the page whose cursor is 90% in.
func listing(ctx context.Context, s *sqlstore.Store, n, reps int) (first, deep time.Duration, cursor string) {
	// Walk to the cursor 90% in once (not timed).
	var cur *string
	for seen := 0; seen < n*9/10; {
		p, err := s.List(ctx, history.ListFilter{Limit: 1000, Cursor: cur})
		check(err)
		seen += len(p.Runs)
		cur = p.NextCursor
	}
	cursor = *cur
	median := func(f func()) time.Duration {
		d := make([]time.Duration, reps)
		for i := range d {
			t := time.Now()
			f()
			d[i] = time.Since(t)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	first = median(func() {
		p, err := s.List(ctx, history.ListFilter{Limit: 50})
		check(err)
		must(len(p.Runs) == 50, "first page")
	})
	deep = median(func() {
		p, err := s.List(ctx, history.ListFilter{Limit: 50, Cursor: &cursor})
		check(err)
		must(len(p.Runs) == 50, "deep page")
	})
	return first, deep, cursor
}

// claims runs idempotent claims (fresh keys, a replay every 4th) from 8
// goroutines for d and returns claims per second.
func claims(ctx context.Context, s *sqlstore.Store, d time.Duration) float64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	start := time.Now()
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				key := fmt.Sprintf("k-%d-%d", g, i)
				if i%4 == 3 {
					key = fmt.Sprintf("k-%d-%d", g, i-1)
				}
				c, err := s.ClaimIdempotency(ctx, key, "fp", fmt.Sprintf("r-%d-%d", g, i), time.Hour)
				check(err)
				must(c.Kind != history.ClaimConflict, "unexpected conflict")
				n.Add(1)
			}
		}(g)
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds()
}

func pgSchema(base string) (string, func(), error) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	if err := db.Ping(); err != nil {
		return "", nil, err
	}
	schema := "bench_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		return "", nil, err
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema, func() { db.Exec("DROP SCHEMA " + schema + " CASCADE"); db.Close() }, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func must(ok bool, what string) {
	if !ok {
		fmt.Fprintln(os.Stderr, "bench: check failed:", what)
		os.Exit(1)
	}
}
