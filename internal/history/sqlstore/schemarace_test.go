package sqlstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// TestConcurrentOpensCreateTheSchemaOnce: cluster members start together
// against an empty database; each must open, none may fail on the racing
// CREATE TABLE IF NOT EXISTS (SQLSTATE 23505 on pg_type without the lock).
func TestConcurrentOpensCreateTheSchemaOnce(t *testing.T) {
	url := pgSchema(t)
	const members = 6
	var wg sync.WaitGroup
	errs := make([]error, members)
	stores := make([]*sqlstore.Store, members)
	start := make(chan struct{})
	for i := 0; i < members; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			stores[i], errs[i] = sqlstore.OpenOptions(context.Background(), url, history.Options{})
		}(i)
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("member %d: %v", i, err)
			continue
		}
		stores[i].Close()
	}
}
