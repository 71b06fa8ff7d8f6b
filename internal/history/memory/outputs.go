package memory

import (
	"context"
	"sort"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// LocalOutputRecord observes a local file onto its ledger row.
func (s *Store) LocalOutputRecord(_ context.Context, obs history.LocalOutputObservation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := history.OutputID(obs.Path)
	rec, ok := s.outputs[id]
	if ok {
		rec.Observe(obs)
	} else {
		rec = history.NewLocalOutputRecord(obs)
	}
	rec, err := roundTrip(rec, "local output")
	if err != nil {
		return err
	}
	s.outputs[id] = rec
	return nil
}

// LocalOutputList filters and orders (last_written_at DESC, path ASC).
func (s *Store) LocalOutputList(_ context.Context, f history.LocalOutputFilter) ([]history.LocalOutputRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []history.LocalOutputRecord{}
	for _, r := range s.outputs {
		if f.Matches(r) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return history.LessLocalOutput(out[i], out[j]) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// LocalOutputGet returns a row, deleted or not.
func (s *Store) LocalOutputGet(_ context.Context, id string) (*history.LocalOutputRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.outputs[id]
	if !ok {
		return nil, nil
	}
	return &r, nil
}

// LocalOutputMarkDeleted marks a row expired, keeping it.
func (s *Store) LocalOutputMarkDeleted(_ context.Context, id string, at time.Time, bytes uint64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.outputs[id]
	if !ok {
		return false, nil
	}
	a := at.UTC()
	r.DeletedAt, r.DeletedBytes = &a, &bytes
	r, err := roundTrip(r, "local output")
	if err != nil {
		return false, err
	}
	s.outputs[id] = r
	return true, nil
}
