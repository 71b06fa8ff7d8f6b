// Package sqlitewal switches a SQLite database file to write-ahead
// logging safely when several connections (or processes) open a new file
// at once.
//
// `PRAGMA journal_mode=WAL` needs an exclusive lock on the file, and
// SQLite answers SQLITE_BUSY at once, without calling the busy handler,
// when another connection holds a lock at that moment. Passed as a DSN
// `_pragma`, that makes opening fail with "database is locked" whenever
// two writers create the same file together (matrix rows sharing one
// sink or state file). Enable retries the switch until a deadline
// instead. WAL is a property of the file, so one success covers every
// later connection.
package sqlitewal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Timeout is how long Enable keeps retrying a busy file.
const Timeout = 10 * time.Second

// Enable sets the database to WAL mode, retrying while the file is busy,
// for up to Timeout or until ctx ends.
func Enable(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(Timeout)
	wait := time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			// An in-memory database stays "memory": nothing to do.
			if strings.EqualFold(mode, "memory") {
				return nil
			}
			err = fmt.Errorf("journal mode is %q, not wal", mode)
		case !isBusy(err):
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("switching to WAL: %w", err)
		}
		t := time.NewTimer(wait + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // extended codes keep the primary in the low byte
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}
