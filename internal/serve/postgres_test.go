package serve

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// pgURL returns a URL on a fresh schema (dropped at cleanup). Postgres
// missing: skip, or fail under CI=true.
func pgURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("FAUCET_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	db, err := sql.Open("pgx", base)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres unreachable at %s under CI=true: %v", base, err)
		}
		t.Skipf("Postgres unreachable at %s (set FAUCET_TEST_POSTGRES_URL): %v", base, err)
	}
	schema := "serve_" + strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		db.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

func TestIdempotencyUnderLoadPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	h, err := sqlstore.OpenOptions(context.Background(), pgURL(t), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hn := newHarness(t, func(c *Config) {
		c.History = h
		c.MaxConcurrentRuns = 4
		c.MaxQueuedRuns = 2000
	})
	runIdemLoad(t, hn, 400, 200)
}
