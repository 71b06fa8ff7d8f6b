package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/historytest"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

const defaultPG = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

func pgBaseURL() string {
	if u := os.Getenv("FAUCET_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return defaultPG
}

// pgSchema creates a fresh schema and returns a URL whose connections use it;
// the schema is dropped at cleanup. Postgres missing: skip, or fail under CI.
func pgSchema(t testing.TB) string {
	t.Helper()
	base := pgBaseURL()
	db, err := sql.Open("pgx", base)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres unreachable at %s under CI=true: %v", base, err)
		}
		t.Skipf("Postgres unreachable at %s (set FAUCET_TEST_POSTGRES_URL): %v", base, err)
	}
	schema := "hist_" + strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
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

func sqliteURL(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "history.db")
}

// factory opens stores on one URL per test, closing them at cleanup.
func factory(newURL func(t testing.TB) string) historytest.Factory {
	return func(t *testing.T) historytest.Backend {
		u := newURL(t)
		var mu sync.Mutex
		return historytest.Backend{Open: func(t *testing.T, opts history.Options) history.RunHistory {
			mu.Lock()
			defer mu.Unlock()
			s, err := sqlstore.OpenOptions(context.Background(), u, opts)
			if err != nil {
				t.Fatalf("open %s: %v", u, err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}}
	}
}

func TestSQLiteConformance(t *testing.T) { historytest.Run(t, factory(sqliteURL)) }

func TestPostgresConformance(t *testing.T) {
	pgSchema(t) // skip/fail early, once
	historytest.Run(t, factory(pgSchema))
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	_, err := sqlstore.Open(context.Background(), "mysql://x", "")
	if err == nil || history.TransienceOf(err) != history.Permanent {
		t.Fatalf("want a permanent error, got %v", err)
	}
	_, err = sqlstore.Open(context.Background(), "sqlite:", "")
	if err == nil {
		t.Fatal("empty sqlite path must fail")
	}
}

func TestSQLiteMemoryURL(t *testing.T) {
	h, err := sqlstore.Open(context.Background(), "sqlite::memory:", "me")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if err := h.Upsert(ctx, history.NewQueuedRun("r", nil, nil, nil, time.Now())); err != nil {
		t.Fatal(err)
	}
	got, err := h.Get(ctx, "r")
	if err != nil || got == nil {
		t.Fatalf("get: %v %v", got, err)
	}
}

func TestPostgresDownIsClassifiedWithinBudget(t *testing.T) {
	start := time.Now()
	_, err := sqlstore.Open(context.Background(), "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=1", "")
	if err == nil {
		t.Fatal("expected a connect error")
	}
	if !history.IsUnreachable(err) || history.TransienceOf(err) != history.Transient {
		t.Fatalf("want a transient unreachable error, got %v (%T)", err, err)
	}
	if !strings.Contains(err.Error(), "Postgres connection failed") {
		t.Fatalf("message should name the phase: %v", err)
	}
	// 8 attempts: 100+200+400+800+1000+1000+1000 ms of backoff plus the tries.
	if el := time.Since(start); el > 15*time.Second || el < 4*time.Second {
		t.Fatalf("retry budget not respected: %v", el)
	}
	fmt.Println("down-at-start error:", err)
}

func TestSQLiteUnopenableIsPermanentAndFast(t *testing.T) {
	start := time.Now()
	_, err := sqlstore.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "missing-dir", "x.db"), "")
	if err == nil {
		t.Fatal("expected an error")
	}
	if history.TransienceOf(err) != history.Permanent || !strings.Contains(err.Error(), "SQLite connection failed") {
		t.Fatalf("want a permanent, named error: %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatal("a permanent failure must not be retried")
	}
}

// Transactions begin IMMEDIATE on SQLite (#666): a transaction holds the
// write lock from BEGIN, so a concurrent writer waits on busy_timeout instead
// of both proceeding and one failing at its first write or at COMMIT.
func TestSQLiteTransactionsBeginImmediate(t *testing.T) {
	ctx := context.Background()
	s, err := sqlstore.OpenOptions(ctx, sqliteURL(t), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Upsert(ctx, history.NewQueuedRun("w", nil, nil, nil, time.Now())) }()
	select {
	case err := <-done:
		t.Fatalf("a write went through while another transaction held BEGIN IMMEDIATE (err=%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the waiting writer must succeed once the lock is released: %v", err)
	}
}
