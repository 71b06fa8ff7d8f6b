package pgcreate

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

func testPool(t *testing.T) *pgxpool.Pool {
	url := connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", func(ctx context.Context, url string) error {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestIfNotExistsConcurrently creates one new table from 6 sessions at
// once, 15 times: Postgres fails all but one plain CREATE TABLE IF NOT
// EXISTS of a round now and then; IfNotExists must not. A table that
// exists with another definition is still no error (IF NOT EXISTS), and
// a statement that fails for another reason fails.
func TestIfNotExistsConcurrently(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	const schema = "pgcreate_test"
	if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	for round := range 15 {
		ddl := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.t%d (id int PRIMARY KEY, v text)", schema, round)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Go(func() { errs[i] = IfNotExists(ctx, pool, ddl) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, session %d: %v", round, i, err)
			}
		}
	}
	if err := IfNotExists(ctx, pool, "CREATE TABLE IF NOT EXISTS "+schema+".t0 (other int)"); err != nil {
		t.Errorf("existing table: %v", err)
	}
	if err := IfNotExists(ctx, pool, "CREATE TABLE IF NOT EXISTS "+schema+".bad (id no_such_type)"); err == nil {
		t.Error("a bad statement did not fail")
	}
}
