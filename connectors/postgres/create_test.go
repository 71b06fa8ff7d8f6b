package postgres

import (
	"fmt"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// TestConcurrentCreateTable: several sinks (the shards of a run) creating
// one missing table with create_table at once all succeed and write their
// rows; Postgres fails one of two concurrent CREATE TABLE IF NOT EXISTS
// on pg_type's unique index, which the sink takes as "created by another".
func TestConcurrentCreateTable(t *testing.T) {
	url, conn, schema := testDB(t)
	for round := range 10 {
		table := fmt.Sprintf("created_%d", round)
		var wg sync.WaitGroup
		errs := make(chan error, 5)
		for i := range 5 {
			wg.Go(func() {
				errs <- write(t, cfg("url", url, "schema", schema, "table_name", table, "create_table", true),
					[]connector.Record{rec("id", i, "name", "x")})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if n := count(t, conn, "SELECT count(*) FROM "+schema+"."+table); n != 5 {
			t.Fatalf("round %d: %d rows, want 5", round, n)
		}
	}
}
