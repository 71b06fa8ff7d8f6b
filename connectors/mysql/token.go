package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// Effectively-once support (reference engine §2.6). The engine side is not
// wired yet: it is to call LastCommittedToken(scope) on start and, for
// each bookmarked page, WriteIdempotent(page, scope, token) instead of
// Write, with token = fmt.Sprintf("%020d#%s", seq, bookmarkJSON). Scopes
// longer than the VARCHAR(255) column are shortened (sqlutil.ShortScope).

var tokenTable = quote(sqlutil.TokenTable)

func (s *Sink) ensureTokenTable(ctx context.Context) error {
	return s.exec(ctx, "create "+tokenTable, "CREATE TABLE IF NOT EXISTS "+tokenTable+
		" (scope VARCHAR(255) NOT NULL PRIMARY KEY, token TEXT NOT NULL, updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))")
}

// WriteIdempotent writes the page and records token for scope in the same
// transaction. A page with no records only records the token.
func (s *Sink) WriteIdempotent(ctx context.Context, p *connector.Page, scope, token string) error {
	if done, err := s.alreadyCommitted(ctx, scope, token); done || err != nil {
		return err
	}
	if err := s.ensureTokenTable(ctx); err != nil {
		return s.writeFailed(ctx, err)
	}
	return s.writeFailed(ctx, s.write(ctx, p, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO "+tokenTable+" (scope, token, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP(6))"+
			" ON DUPLICATE KEY UPDATE token = VALUES(token), updated_at = VALUES(updated_at)", sqlutil.ShortScope(scope, 255), token)
		if err != nil {
			return fmt.Errorf("mysql: record commit token for %q: %w", scope, redacted(s.url, err))
		}
		return nil
	}))
}

// LastCommittedToken returns the token last committed for scope.
func (s *Sink) LastCommittedToken(ctx context.Context, scope string) (string, bool, error) {
	if err := s.ensureTokenTable(ctx); err != nil {
		return "", false, err
	}
	var tok string
	err := s.db.QueryRowContext(ctx, "SELECT token FROM "+tokenTable+" WHERE scope = ?", sqlutil.ShortScope(scope, 255)).Scan(&tok)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("mysql: read commit token for %q: %w", scope, redacted(s.url, err))
	}
	return tok, true, nil
}

var _ connector.Sink = (*Sink)(nil)
