package sqlstore

import (
	"context"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// LocalOutputRecord read-modify-writes the ledger row with the shared Observe
// merge (a racing writer can only lose a last_written_at refresh; it can
// never flip pre_existing).
func (s *Store) LocalOutputRecord(ctx context.Context, obs history.LocalOutputObservation) error {
	id := history.OutputID(obs.Path)
	existing, err := getJSON[history.LocalOutputRecord](ctx, s, "local output", s.st.localOutputSelect, id)
	if err != nil {
		return err
	}
	var rec history.LocalOutputRecord
	if existing != nil {
		rec = *existing
		rec.Observe(obs)
	} else {
		rec = history.NewLocalOutputRecord(obs)
	}
	body, err := history.EncodeJSON(rec, "local output")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.localOutputUpsert, rec.ID, rec.Path, rec.DatasetID, rec.Pipeline,
		history.FormatTS(rec.LastWrittenAt), nullTS(rec.DeletedAt), body)
	return err
}

// LocalOutputList lists ledger rows with the filter and cap pushed into SQL.
func (s *Store) LocalOutputList(ctx context.Context, f history.LocalOutputFilter) ([]history.LocalOutputRecord, error) {
	q, binds := s.localOutputQuery(f)
	all, err := listJSON[history.LocalOutputRecord](ctx, s, "local output", q, binds...)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, r := range all {
		if f.Matches(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// LocalOutputGet returns a row (deleted rows included).
func (s *Store) LocalOutputGet(ctx context.Context, id string) (*history.LocalOutputRecord, error) {
	return getJSON[history.LocalOutputRecord](ctx, s, "local output", s.st.localOutputSelect, id)
}

// LocalOutputMarkDeleted marks a row expired and keeps it.
func (s *Store) LocalOutputMarkDeleted(ctx context.Context, id string, at time.Time, bytes uint64) (bool, error) {
	rec, err := s.LocalOutputGet(ctx, id)
	if err != nil || rec == nil {
		return false, err
	}
	a := at.UTC()
	rec.DeletedAt, rec.DeletedBytes = &a, &bytes
	body, err := history.EncodeJSON(rec, "local output")
	if err != nil {
		return false, err
	}
	n, err := s.exec(ctx, s.st.localOutputMarkDeleted, id, history.FormatTS(a), body)
	return n > 0, err
}
