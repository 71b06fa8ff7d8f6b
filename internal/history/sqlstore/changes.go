package sqlstore

import (
	"context"

	"github.com/faucet-hq/faucet/internal/history"
)

// ChangeUpsert fully replaces a change request by id.
func (s *Store) ChangeUpsert(ctx context.Context, c history.ChangeRequest) error {
	body, err := history.EncodeJSON(c, "change request")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.changeUpsert, c.ID, string(c.Kind), string(c.Status), c.Requester,
		history.FormatTS(c.CreatedAt), history.FormatTS(c.ExpiresAt), body)
	return err
}

// ChangeGet returns a change request.
func (s *Store) ChangeGet(ctx context.Context, id string) (*history.ChangeRequest, error) {
	return getJSON[history.ChangeRequest](ctx, s, "change request", s.st.changeSelect, id)
}

// ChangeList lists with the equality clauses pushed down, then the shared
// predicate and the cap.
func (s *Store) ChangeList(ctx context.Context, f history.ChangeListFilter) ([]history.ChangeRequest, error) {
	q, binds := s.changeQuery(f)
	all, err := listJSON[history.ChangeRequest](ctx, s, "change request", q, binds...)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, c := range all {
		if f.Matches(c) {
			out = append(out, c)
		}
	}
	if l := f.EffectiveLimit(); len(out) > l {
		out = out[:l]
	}
	return out, nil
}

// ChangeDelete deletes a change request.
func (s *Store) ChangeDelete(ctx context.Context, id string) (bool, error) {
	n, err := s.exec(ctx, s.st.changeDelete, id)
	return n > 0, err
}

// UsageRecord appends a usage row; a repeated (run_id, row) is ignored.
func (s *Store) UsageRecord(ctx context.Context, r history.UsageRecord) error {
	body, err := history.EncodeJSON(r, "usage record")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.usageInsert, r.RunID, r.Row, r.Pipeline, history.FormatTS(r.RecordedAt), body)
	return err
}

// UsageList lists with the window/pipeline pushed down, then the shared
// predicate and the cap.
func (s *Store) UsageList(ctx context.Context, f history.UsageFilter) ([]history.UsageRecord, error) {
	q, binds := s.usageQuery(f)
	all, err := listJSON[history.UsageRecord](ctx, s, "usage record", q, binds...)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, u := range all {
		if f.Matches(u) {
			out = append(out, u)
		}
	}
	if l := f.EffectiveLimit(); len(out) > l {
		out = out[:l]
	}
	return out, nil
}

// UsageDeleteRuns deletes the usage rows of the given runs.
func (s *Store) UsageDeleteRuns(ctx context.Context, runIDs []string) (int, error) {
	total := 0
	for _, id := range runIDs {
		n, err := s.exec(ctx, s.st.usageDeleteRun, id)
		if err != nil {
			return total, err
		}
		total += int(n)
	}
	return total, nil
}
