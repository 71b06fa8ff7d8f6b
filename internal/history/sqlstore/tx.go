package sqlstore

import (
	"context"
	"database/sql"

	"github.com/faucet-hq/faucet/internal/history"
)

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// withTxRetry runs fn in a write transaction, retrying begin, statement and
// commit failures that are transient (busy/locked, serialization) up to
// ClaimAttempts with RetryBackoff (#666: COMMIT itself can be refused).
func (s *Store) withTxRetry(ctx context.Context, fn func(ex execer) error) error {
	var last error
	for attempt := 1; attempt <= history.ClaimAttempts; attempt++ {
		if err := history.RetryBackoff(ctx, attempt); err != nil {
			return classify("", err)
		}
		err := s.withTx(ctx, func(tx *sql.Tx) error { return fn(tx) })
		if err == nil {
			return nil
		}
		last = err
		if history.TransienceOf(err) != history.Transient {
			return err
		}
	}
	return last
}
