package state

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/jackc/pgx/v5"
)

func TestSQLiteStore(t *testing.T) {
	storeSuite(t, func(t *testing.T) Store {
		s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "state.db"), "faucet_state")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestSQLiteStoreSharedFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	a, err := Open("sqlite", cfgOf(t, map[string]any{"path": path}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenSQLite(ctx, path, "faucet_state")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Put(ctx, "p::row-0", []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.Get(ctx, "p::row-0")
	if err != nil || !ok || string(got) != `{"x":1}` {
		t.Fatalf("second handle read %s %v %v", got, ok, err)
	}
	if _, err := Open("sqlite", cfgOf(t, map[string]any{"path": path, "table": "bad name"})); err == nil {
		t.Error("bad table name accepted")
	}
}

// TestSQLiteStoreConcurrentOpens opens one new state file from several
// matrix rows at once; the WAL switch used to fail one of them with
// SQLITE_BUSY.
func TestSQLiteStoreConcurrentOpens(t *testing.T) {
	ctx := context.Background()
	for round := range 40 {
		path := filepath.Join(t.TempDir(), "state.db")
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for i := range 4 {
			wg.Go(func() {
				s, err := OpenSQLite(ctx, path, "faucet_state")
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				errs <- s.Put(ctx, fmt.Sprintf("p::row-%d", i), []byte(`{"n":1}`))
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

func cfgOf(t *testing.T, m map[string]any) connector.Config {
	v, err := connector.FromAny(m)
	if err != nil {
		t.Fatal(err)
	}
	return connector.Config{Path: "state.config", Value: v}
}

// postgresURL returns the test server or skips (fails under CI=true).
func postgresURL(t *testing.T) string {
	url := os.Getenv("FAUCET_TEST_POSTGRES_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		msg := fmt.Sprintf("postgres not reachable (set FAUCET_TEST_POSTGRES_URL): %v", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c.Close(context.Background())
	return url
}

func TestPostgresStore(t *testing.T) {
	url := postgresURL(t)
	storeSuite(t, func(t *testing.T) Store {
		table := fmt.Sprintf("faucet_state_t%d", rand.Uint64()%1e12)
		s, err := Open("postgres", cfgOf(t, map[string]any{"url": url, "table": table}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			s.(*Postgres).pool.Exec(context.Background(), "DROP TABLE "+table)
			s.Close()
		})
		return s
	})
}

func TestPostgresStoreMissingTable(t *testing.T) {
	url := postgresURL(t)
	_, err := Open("postgres", cfgOf(t, map[string]any{"url": url, "table": "faucet_no_such_state", "ensure_table": false}))
	if err == nil {
		t.Fatal("missing table accepted with ensure_table: false")
	}
}

// TestPostgresStoreConcurrentCreate opens one new state table from several
// shards at once: Postgres's CREATE TABLE IF NOT EXISTS fails one of two
// concurrent creates with a unique violation (pg_type), which must not
// fail the open.
func TestPostgresStoreConcurrentCreate(t *testing.T) {
	url := postgresURL(t)
	ctx := context.Background()
	for round := range 15 {
		table := fmt.Sprintf("faucet_state_c%d", rand.Uint64()%1e12)
		var wg sync.WaitGroup
		errs := make(chan error, 6)
		for range 6 {
			wg.Go(func() {
				s, err := Open("postgres", cfgOf(t, map[string]any{"url": url, "table": table}))
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				errs <- s.Put(ctx, "p::row-0", []byte(`1`))
			})
		}
		wg.Wait()
		close(errs)
		conn, err := pgx.Connect(ctx, url)
		if err == nil {
			conn.Exec(ctx, "DROP TABLE IF EXISTS "+table)
			conn.Close(ctx)
		}
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
