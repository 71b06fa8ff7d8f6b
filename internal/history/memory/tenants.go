package memory

import (
	"context"
	"sort"

	"github.com/faucet-hq/faucet/internal/history"
)

// TenantUpsert stores a tenant by id.
func (s *Store) TenantUpsert(_ context.Context, t history.TenantRecord) error {
	t, err := roundTrip(t, "tenant")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tenants[t.ID] = t
	return nil
}

// TenantGet returns a tenant.
func (s *Store) TenantGet(_ context.Context, id string) (*history.TenantRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tenants[id]
	if !ok {
		return nil, nil
	}
	out, err := roundTrip(t, "tenant")
	return &out, err
}

// TenantList lists tenants ordered by id.
func (s *Store) TenantList(_ context.Context) ([]history.TenantRecord, error) {
	s.mu.Lock()
	out := make([]history.TenantRecord, 0, len(s.tenants))
	for _, t := range s.tenants {
		out = append(out, t)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return roundTrip(out, "tenant")
}

// TenantDelete deletes a tenant with its connections, sessions, run links and
// state refs, atomically.
func (s *Store) TenantDelete(_ context.Context, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.connections {
		if k[0] == id {
			delete(s.connections, k)
		}
	}
	for k, v := range s.sessions {
		if v.Tenant == id {
			delete(s.sessions, k)
		}
	}
	for k, v := range s.tenantRun {
		if v == id {
			delete(s.tenantRun, k)
		}
	}
	for k := range s.stateRefs {
		if k[0] == id {
			delete(s.stateRefs, k)
		}
	}
	_, ok := s.tenants[id]
	delete(s.tenants, id)
	return ok, nil
}

// ConnectionUpsert stores a connection by (tenant, name).
func (s *Store) ConnectionUpsert(_ context.Context, c history.ConnectionRecord) error {
	c, err := roundTrip(c, "connection")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.connections[[2]string{c.Tenant, c.Name}] = c
	return nil
}

// ConnectionGet returns a connection.
func (s *Store) ConnectionGet(_ context.Context, tenant, name string) (*history.ConnectionRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.connections[[2]string{tenant, name}]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// ConnectionList lists a tenant's connections by name.
func (s *Store) ConnectionList(_ context.Context, tenant string) ([]history.ConnectionRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []history.ConnectionRecord{}
	for k, c := range s.connections {
		if k[0] == tenant {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ConnectionDelete deletes a connection.
func (s *Store) ConnectionDelete(_ context.Context, tenant, name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{tenant, name}
	_, ok := s.connections[k]
	delete(s.connections, k)
	return ok, nil
}

// ConnectSessionPut drops sessions that expired before now, then inserts; a
// duplicate state is an error, as the SQL primary key makes it.
func (s *Store) ConnectSessionPut(_ context.Context, cs history.ConnectSession) error {
	cs, err := roundTrip(cs, "connect session")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	nowS := history.FormatTS(s.now())
	for k, v := range s.sessions {
		if history.FormatTS(v.ExpiresAt) < nowS {
			delete(s.sessions, k)
		}
	}
	if _, dup := s.sessions[cs.State]; dup {
		return history.Classified("insert connect session: duplicate state", history.Permanent, nil)
	}
	s.sessions[cs.State] = cs
	return nil
}

// ConnectSessionTake removes and returns a session (single use).
func (s *Store) ConnectSessionTake(_ context.Context, state string) (*history.ConnectSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.sessions[state]
	if !ok {
		return nil, nil
	}
	delete(s.sessions, state)
	return &cs, nil
}

// TenantRunLink maps a run to its tenant (the listing filter uses it).
func (s *Store) TenantRunLink(_ context.Context, runID, tenant string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tenantRun[runID] = tenant
	return nil
}

// TenantStateRefAdd records a state key; the first writer wins.
func (s *Store) TenantStateRefAdd(_ context.Context, r history.TenantStateRef) error {
	r, err := roundTrip(r, "tenant state ref")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{r.Tenant, r.Key}
	if _, ok := s.stateRefs[k]; !ok {
		s.stateRefs[k] = r
	}
	return nil
}

// TenantStateRefs lists a tenant's state refs by key.
func (s *Store) TenantStateRefs(_ context.Context, tenant string) ([]history.TenantStateRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []history.TenantStateRef{}
	for k, r := range s.stateRefs {
		if k[0] == tenant {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}
