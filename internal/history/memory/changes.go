package memory

import (
	"context"
	"sort"

	"github.com/faucet-hq/faucet/internal/history"
)

// ChangeUpsert replaces a change request by id.
func (s *Store) ChangeUpsert(_ context.Context, c history.ChangeRequest) error {
	c, err := roundTrip(c, "change request")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes[c.ID] = c
	return nil
}

// ChangeGet returns a change request.
func (s *Store) ChangeGet(_ context.Context, id string) (*history.ChangeRequest, error) {
	s.mu.Lock()
	c, ok := s.changes[id]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	out, err := roundTrip(c, "change request")
	return &out, err
}

// ChangeList filters, orders (created_at DESC, id ASC) and caps.
func (s *Store) ChangeList(_ context.Context, f history.ChangeListFilter) ([]history.ChangeRequest, error) {
	s.mu.Lock()
	out := []history.ChangeRequest{}
	for _, c := range s.changes {
		if f.Matches(c) {
			out = append(out, c)
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	if l := f.EffectiveLimit(); len(out) > l {
		out = out[:l]
	}
	return roundTrip(out, "change request")
}

// ChangeDelete deletes a change request.
func (s *Store) ChangeDelete(_ context.Context, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.changes[id]
	delete(s.changes, id)
	return ok, nil
}

// UsageRecord appends a usage row, ignoring a repeated (run_id, row) like the
// SQL primary key; the oldest rows go past UsageMemoryCap.
func (s *Store) UsageRecord(_ context.Context, r history.UsageRecord) error {
	r, err := roundTrip(r, "usage record")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.usage {
		if u.RunID == r.RunID && u.Row == r.Row {
			return nil
		}
	}
	s.usage = append(s.usage, r)
	if len(s.usage) > history.UsageMemoryCap {
		s.usage = append([]history.UsageRecord(nil), s.usage[len(s.usage)-history.UsageMemoryCap:]...)
	}
	return nil
}

// UsageList filters, orders (recorded_at DESC, run_id, row) and caps.
func (s *Store) UsageList(_ context.Context, f history.UsageFilter) ([]history.UsageRecord, error) {
	s.mu.Lock()
	out := []history.UsageRecord{}
	for _, u := range s.usage {
		if f.Matches(u) {
			out = append(out, u)
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.RecordedAt.Equal(b.RecordedAt) {
			return a.RecordedAt.After(b.RecordedAt)
		}
		if a.RunID != b.RunID {
			return a.RunID < b.RunID
		}
		return a.Row < b.Row
	})
	if l := f.EffectiveLimit(); len(out) > l {
		out = out[:l]
	}
	return out, nil
}

// UsageDeleteRuns deletes the usage rows of the given run ids.
func (s *Store) UsageDeleteRuns(_ context.Context, runIDs []string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	del := map[string]bool{}
	for _, id := range runIDs {
		del[id] = true
	}
	kept := s.usage[:0]
	n := 0
	for _, u := range s.usage {
		if del[u.RunID] {
			n++
			continue
		}
		kept = append(kept, u)
	}
	s.usage = kept
	return n, nil
}
