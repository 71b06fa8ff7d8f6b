package sqlstore

import (
	"context"
	"database/sql"

	"github.com/faucet-hq/faucet/internal/history"
)

// TenantUpsert stores a tenant by id.
func (s *Store) TenantUpsert(ctx context.Context, t history.TenantRecord) error {
	body, err := history.EncodeJSON(t, "tenant")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.tenantUpsert, t.ID, history.FormatTS(t.UpdatedAt), body)
	return err
}

// TenantGet returns a tenant.
func (s *Store) TenantGet(ctx context.Context, id string) (*history.TenantRecord, error) {
	return getJSON[history.TenantRecord](ctx, s, "tenant", s.st.tenantSelect, id)
}

// TenantList lists tenants by id.
func (s *Store) TenantList(ctx context.Context) ([]history.TenantRecord, error) {
	return listJSON[history.TenantRecord](ctx, s, "tenant", s.st.tenantList)
}

// TenantDelete deletes the tenant's connections, sessions, run links and
// state refs, then the tenant, in one write transaction.
func (s *Store) TenantDelete(ctx context.Context, id string) (bool, error) {
	var n int64
	err := s.withTxRetry(ctx, func(ex execer) error {
		for _, q := range []string{s.st.tenantDeleteConnections, s.st.tenantDeleteSessions, s.st.tenantDeleteRuns, s.st.tenantDeleteStateRefs} {
			if _, err := ex.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		res, err := ex.ExecContext(ctx, s.st.tenantDelete, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// ConnectionUpsert stores a connection by (tenant, name).
func (s *Store) ConnectionUpsert(ctx context.Context, c history.ConnectionRecord) error {
	body, err := history.EncodeJSON(c, "connection")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.connectionUpsert, c.Tenant, c.Name, string(c.StatusOrDefault()), history.FormatTS(c.UpdatedAt), body)
	return err
}

// ConnectionGet returns a connection.
func (s *Store) ConnectionGet(ctx context.Context, tenant, name string) (*history.ConnectionRecord, error) {
	return getJSON[history.ConnectionRecord](ctx, s, "connection", s.st.connectionSelect, tenant, name)
}

// ConnectionList lists a tenant's connections by name.
func (s *Store) ConnectionList(ctx context.Context, tenant string) ([]history.ConnectionRecord, error) {
	return listJSON[history.ConnectionRecord](ctx, s, "connection", s.st.connectionList, tenant)
}

// ConnectionDelete deletes a connection.
func (s *Store) ConnectionDelete(ctx context.Context, tenant, name string) (bool, error) {
	n, err := s.exec(ctx, s.st.connectionDelete, tenant, name)
	return n > 0, err
}

// ConnectSessionPut purges sessions expired before now, then inserts (a
// duplicate state is a primary-key error).
func (s *Store) ConnectSessionPut(ctx context.Context, cs history.ConnectSession) error {
	if _, err := s.exec(ctx, s.st.sessionPurge, history.FormatTS(s.now())); err != nil {
		return err
	}
	body, err := history.EncodeJSON(cs, "connect session")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.sessionInsert, cs.State, cs.Tenant, history.FormatTS(cs.ExpiresAt), body)
	return err
}

// ConnectSessionTake deletes and returns a session atomically (DELETE ...
// RETURNING), so it is handed out once.
func (s *Store) ConnectSessionTake(ctx context.Context, state string) (*history.ConnectSession, error) {
	var body sql.NullString
	err := s.withTxRetry(ctx, func(ex execer) error {
		err := ex.QueryRowContext(ctx, s.st.sessionTake, state).Scan(&body)
		if err == sql.ErrNoRows {
			body = sql.NullString{}
			return nil
		}
		return err
	})
	if err != nil || !body.Valid {
		return nil, err
	}
	cs, err := history.DecodeJSON[history.ConnectSession](body.String, "connect session")
	if err != nil {
		return nil, err
	}
	return &cs, nil
}

// TenantRunLink maps a run to its tenant.
func (s *Store) TenantRunLink(ctx context.Context, runID, tenant string) error {
	_, err := s.exec(ctx, s.st.tenantRunLink, runID, tenant)
	return err
}

// TenantStateRefAdd records a state key; the first writer wins.
func (s *Store) TenantStateRefAdd(ctx context.Context, r history.TenantStateRef) error {
	body, err := history.EncodeJSON(r, "tenant state ref")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.stateRefInsert, r.Tenant, r.Key, body)
	return err
}

// TenantStateRefs lists a tenant's state refs by key.
func (s *Store) TenantStateRefs(ctx context.Context, tenant string) ([]history.TenantStateRef, error) {
	return listJSON[history.TenantStateRef](ctx, s, "tenant state ref", s.st.stateRefSelect, tenant)
}
