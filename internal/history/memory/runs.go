package memory

import (
	"context"
	"sort"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// ClaimIdempotency claims key atomically under the store lock.
func (s *Store) ClaimIdempotency(_ context.Context, key, fingerprint, runID string, window time.Duration) (history.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	row, ok := s.idem[key]
	if !ok || history.IsExpired(row.claimedAt, now, window) {
		s.idem[key] = idemRow{runID: runID, fingerprint: fingerprint, claimedAt: history.FormatTS(now)}
		return history.Claim{Kind: history.ClaimFresh}, nil
	}
	if row.fingerprint == fingerprint {
		return history.Claim{Kind: history.ClaimReplay, RunID: row.runID}, nil
	}
	return history.Claim{Kind: history.ClaimConflict}, nil
}

// Upsert inserts or replaces a record and stamps this instance's lease.
func (s *Store) Upsert(_ context.Context, rec history.RunRecord) error {
	rec, err := roundTrip(rec, "run record")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upsertLocked(rec)
	return nil
}

func (s *Store) upsertLocked(rec history.RunRecord) {
	lease := history.FormatTS(s.now().Add(s.opts.LeaseTTL))
	row, ok := s.runs[rec.RunID]
	if !ok {
		row = &runRow{}
		s.runs[rec.RunID] = row
	}
	row.rec = rec
	row.owner = strp(s.opts.InstanceID)
	row.lease = &lease
}

// Get returns a copy of the record.
func (s *Store) Get(_ context.Context, runID string) (*history.RunRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.runs[runID]
	if !ok {
		return nil, nil
	}
	c := copyRun(row.rec)
	return &c, nil
}

// List pages runs (submitted_at DESC, run_id DESC) with the SQL statement's
// exact predicates: the cursor keysets on its run's submitted_at even when
// that run is filtered out, and the tenant filter uses the run links.
func (s *Store) List(_ context.Context, f history.ListFilter) (history.ListPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var curTS, curID string
	hasCur := false
	if f.Cursor != nil {
		if row, ok := s.runs[*f.Cursor]; ok {
			curTS, curID, hasCur = history.FormatTS(row.rec.SubmittedAt), *f.Cursor, true
		}
	}
	statusSet := map[history.RunStatus]bool{}
	for _, st := range f.Status {
		statusSet[st] = true
	}
	var out []history.RunRecord
	for id, row := range s.runs {
		r := row.rec
		ts := history.FormatTS(r.SubmittedAt)
		if len(statusSet) > 0 && !statusSet[r.Status] {
			continue
		}
		if f.Name != nil && (r.Name == nil || *r.Name != *f.Name) {
			continue
		}
		if f.Since != nil && ts < history.FormatTS(*f.Since) {
			continue
		}
		if f.Until != nil && ts > history.FormatTS(*f.Until) {
			continue
		}
		if hasCur && !(ts < curTS || (ts == curTS && id < curID)) {
			continue
		}
		if f.Tenant != nil && s.tenantRun[id] != *f.Tenant {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := history.FormatTS(out[i].SubmittedAt), history.FormatTS(out[j].SubmittedAt)
		if a != b {
			return a > b
		}
		return out[i].RunID > out[j].RunID
	})
	limit := history.EffectiveLimit(f.Limit)
	page := history.ListPage{Runs: []history.RunRecord{}}
	if len(out) > limit {
		page.NextCursor = strp(out[limit-1].RunID)
		out = out[:limit]
	}
	for _, r := range out {
		page.Runs = append(page.Runs, copyRun(r))
	}
	return page, nil
}

// Delete removes a terminal run, its tenant link, the claims pointing at it
// and its shards.
func (s *Store) Delete(_ context.Context, runID string) (history.DeleteOutcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.runs[runID]
	if !ok {
		return history.NotFound, nil
	}
	if !row.rec.Status.IsTerminal() {
		return history.StillRunning, nil
	}
	delete(s.runs, runID)
	delete(s.tenantRun, runID)
	s.releaseLocked(runID)
	for k := range s.shards {
		if k[0] == runID {
			delete(s.shards, k)
		}
	}
	return history.Deleted, nil
}

func (s *Store) releaseLocked(runID string) {
	for k, c := range s.idem {
		if c.runID == runID {
			delete(s.idem, k)
		}
	}
}

// ReleaseIdempotency deletes the claims pointing at runID.
func (s *Store) ReleaseIdempotency(_ context.Context, runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked(runID)
	return nil
}

// PurgeExpired mirrors the SQL purge: terminal runs whose finished_at is
// before now-retain, then claims past the idempotency retention, silent
// members and their caps, orphan shards and tenant links, and old audit rows.
func (s *Store) PurgeExpired(_ context.Context, retain time.Duration) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	thr := history.Threshold(now, retain)
	removed := 0
	for id, row := range s.runs {
		r := row.rec
		if r.Status.IsTerminal() && r.FinishedAt != nil && history.FormatTS(*r.FinishedAt) < thr {
			delete(s.runs, id)
			removed++
		}
	}
	idemThr := history.Threshold(now, s.opts.IdemRetention)
	for k, c := range s.idem {
		if c.claimedAt < idemThr {
			delete(s.idem, k)
		}
	}
	for id, in := range s.instances {
		if in.lastHeartbeat < thr {
			delete(s.instances, id)
		}
	}
	for id := range s.caps {
		if _, ok := s.instances[id]; !ok {
			delete(s.caps, id)
		}
	}
	for k := range s.shards {
		if _, ok := s.runs[k[0]]; !ok {
			delete(s.shards, k)
		}
	}
	for id := range s.tenantRun {
		if _, ok := s.runs[id]; !ok {
			delete(s.tenantRun, id)
		}
	}
	kept := s.audit[:0]
	for _, e := range s.audit {
		if history.FormatTS(e.Timestamp) >= thr {
			kept = append(kept, e)
		}
	}
	s.audit = kept
	return removed, nil
}
