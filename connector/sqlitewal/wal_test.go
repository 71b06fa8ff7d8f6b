package sqlitewal

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	_ "modernc.org/sqlite"
)

// TestConcurrentOpens opens one new file from many connections at once,
// the case where the DSN pragma failed with SQLITE_BUSY (it did within a
// few dozen rounds of three openers).
func TestConcurrentOpens(t *testing.T) {
	const rounds, openers = 100, 6
	for i := range rounds {
		path := filepath.Join(t.TempDir(), "x.db")
		var wg sync.WaitGroup
		errs := make(chan error, openers)
		for range openers {
			wg.Go(func() {
				db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
				if err != nil {
					errs <- err
					return
				}
				defer db.Close()
				if err := Enable(context.Background(), db); err != nil {
					errs <- err
					return
				}
				if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS t (x INTEGER)`); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", i, err)
		}
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		var mode string
		if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("round %d: journal_mode %q, %v", i, mode, err)
		}
		db.Close()
	}
}

func TestMemoryIsLeftAlone(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := Enable(context.Background(), db); err != nil {
		t.Fatal(err)
	}
}
