package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// Effectively-once support (reference engine §2.6). The engine side is not
// wired yet: it is to call LastCommittedToken(scope) on start and, for
// each bookmarked page, WriteIdempotent(page, scope, token) instead of
// Write, with token = fmt.Sprintf("%020d#%s", seq, bookmarkJSON).

const tokenDDL = `CREATE TABLE IF NOT EXISTS "` + sqlutil.TokenTable + `" (scope TEXT PRIMARY KEY, token TEXT NOT NULL, updated_at TEXT NOT NULL)`

// WriteIdempotent writes the page and records token for scope in the same
// transaction: after a crash either both are there or neither is. A page
// with no records only records the token.
func (s *Sink) WriteIdempotent(ctx context.Context, p *connector.Page, scope, token string) error {
	if _, err := s.db.ExecContext(ctx, tokenDDL); err != nil {
		return fmt.Errorf("sqlite: %s: create %s: %w", s.path, sqlutil.TokenTable, err)
	}
	return s.write(ctx, p, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO "`+sqlutil.TokenTable+`" (scope, token, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (scope) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at`,
			scope, token, time.Now().UTC().Format(time.RFC3339Nano))
		if err != nil {
			return fmt.Errorf("sqlite: %s: record commit token for %q: %w", s.path, scope, err)
		}
		return nil
	})
}

// LastCommittedToken returns the token last committed for scope.
func (s *Sink) LastCommittedToken(ctx context.Context, scope string) (string, bool, error) {
	if _, err := s.db.ExecContext(ctx, tokenDDL); err != nil {
		return "", false, fmt.Errorf("sqlite: %s: create %s: %w", s.path, sqlutil.TokenTable, err)
	}
	var tok string
	err := s.db.QueryRowContext(ctx, `SELECT token FROM "`+sqlutil.TokenTable+`" WHERE scope = ?`, scope).Scan(&tok)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sqlite: %s: read commit token for %q: %w", s.path, scope, err)
	}
	return tok, true, nil
}
