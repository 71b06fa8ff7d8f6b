package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5"
)

// Effectively-once support (reference engine §2.6). The engine side is not
// wired yet: it is to call LastCommittedToken(scope) on start and, for
// each bookmarked page, WriteIdempotent(page, scope, token) instead of
// Write, with token = fmt.Sprintf("%020d#%s", seq, bookmarkJSON).

func (s *Sink) tokenTable() string {
	return sqlutil.QuoteQualified(s.cfg.Schema, sqlutil.TokenTable, '"')
}

func (s *Sink) ensureTokenTable(ctx context.Context) error {
	return s.create(ctx, "create "+s.tokenTable(), "CREATE TABLE IF NOT EXISTS "+s.tokenTable()+
		" (scope TEXT PRIMARY KEY, token TEXT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())")
}

// WriteIdempotent writes the page and records token for scope in the same
// transaction (COPY included): after a crash either both are there or
// neither is. A page with no records only records the token.
func (s *Sink) WriteIdempotent(ctx context.Context, p *connector.Page, scope, token string) error {
	if err := s.settle(); err != nil {
		return s.writeFailed(ctx, err, false)
	}
	alone, err := s.ensureConn(ctx)
	if err != nil {
		return err
	}
	if done, err := s.alreadyCommitted(ctx, scope, token); done || err != nil {
		return err
	}
	if err := s.ensureTokenTable(ctx); err != nil {
		return s.writeFailed(ctx, err, alone)
	}
	return s.writeFailed(ctx, s.write(ctx, p, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO "+s.tokenTable()+" (scope, token, updated_at) VALUES ($1, $2, now())"+
			" ON CONFLICT (scope) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at", scope, token)
		if err != nil {
			return fmt.Errorf("postgres: record commit token for %q: %s", scope, pgMessage(err))
		}
		return nil
	}), alone)
}

// LastCommittedToken returns the token last committed for scope.
func (s *Sink) LastCommittedToken(ctx context.Context, scope string) (string, bool, error) {
	if err := s.settle(); err != nil {
		return "", false, err
	}
	if err := s.ensureTokenTable(ctx); err != nil {
		return "", false, err
	}
	var tok string
	err := s.conn.QueryRow(ctx, "SELECT token FROM "+s.tokenTable()+" WHERE scope = $1", scope).Scan(&tok)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("postgres: read commit token for %q: %s", scope, pgMessage(err))
	}
	return tok, true, nil
}
