package memory

import (
	"context"
	"sort"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func leaseExpired(lease *string, nowS string) bool { return lease == nil || *lease < nowS }

// RecoverOrphans fails queued/running runs whose lease lapsed (single-instance
// recovery) and rewrites them as this instance's, like the seed's upsert.
func (s *Store) RecoverOrphans(_ context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	nowS := history.FormatTS(now)
	ids := s.sortedRunIDs()
	n := 0
	for _, id := range ids {
		row := s.runs[id]
		st := row.rec.Status
		if (st != history.StatusQueued && st != history.StatusRunning) || !leaseExpired(row.lease, nowS) {
			continue
		}
		rec := copyRun(row.rec)
		rec.Status = history.StatusFailed
		rec.FinishedAt = &now
		rec.Error = strp(history.OrphanLeaseExpiredError)
		if rec.ElapsedSecs == nil {
			rec.ElapsedSecs = history.ElapsedSince(rec.StartedAt, now)
		}
		rt, err := roundTrip(rec, "run record")
		if err != nil {
			return n, err
		}
		s.upsertLocked(rt)
		n++
	}
	return n, nil
}

func (s *Store) sortedRunIDs() []string {
	ids := make([]string, 0, len(s.runs))
	for id := range s.runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// RenewLeases extends this instance's queued/running leases.
func (s *Store) RenewLeases(_ context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lease := history.FormatTS(s.now().Add(s.opts.LeaseTTL))
	n := 0
	for _, row := range s.runs {
		st := row.rec.Status
		if row.owner != nil && *row.owner == s.opts.InstanceID && (st == history.StatusQueued || st == history.StatusRunning) {
			l := lease
			row.lease = &l
			n++
		}
	}
	return n, nil
}

// ClaimPending claims up to limit of the oldest pending runs.
func (s *Store) ClaimPending(_ context.Context, limit int) ([]history.RunRecord, error) {
	out := []history.RunRecord{}
	if limit <= 0 {
		return out, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var cands []*runRow
	for _, row := range s.runs {
		if row.rec.Status == history.StatusPending {
			cands = append(cands, row)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := history.FormatTS(cands[i].rec.SubmittedAt), history.FormatTS(cands[j].rec.SubmittedAt)
		if a != b {
			return a < b
		}
		return cands[i].rec.RunID < cands[j].rec.RunID
	})
	if len(cands) > limit {
		cands = cands[:limit]
	}
	lease := history.FormatTS(s.now().Add(s.opts.LeaseTTL))
	for _, row := range cands {
		row.rec.Status = history.StatusRunning
		row.owner = strp(s.opts.InstanceID)
		l := lease
		row.lease = &l
		out = append(out, copyRun(row.rec))
	}
	return out, nil
}

// ReclaimOrphans requeues running runs whose lease lapsed until maxAttempts,
// then fails them as poison. cancel_requested survives a requeue.
func (s *Store) ReclaimOrphans(_ context.Context, maxAttempts uint32) (history.ReclaimReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rep history.ReclaimReport
	now := s.now()
	nowS := history.FormatTS(now)
	for _, id := range s.sortedRunIDs() {
		row := s.runs[id]
		if row.rec.Status != history.StatusRunning || !leaseExpired(row.lease, nowS) {
			continue
		}
		rec := copyRun(row.rec)
		next := rec.Attempt + 1
		rec.Attempt = next
		if row.rec.Attempt < maxAttempts {
			rec.Status = history.StatusPending
			rep.Requeued++
		} else {
			rec.Status = history.StatusFailed
			rec.FinishedAt = &now
			rec.Error = strp(history.PoisonError(next))
			if rec.ElapsedSecs == nil {
				rec.ElapsedSecs = history.ElapsedSince(rec.StartedAt, now)
			}
			rep.Failed++
		}
		rt, err := roundTrip(rec, "run record")
		if err != nil {
			return rep, err
		}
		row.rec = rt
		row.owner = nil
		if rec.Status == history.StatusPending {
			row.lease = nil
		}
	}
	return rep, nil
}

// FinalizeOwned writes a terminal record only if this instance owns the run
// and it is still non-terminal (first finalizer wins).
func (s *Store) FinalizeOwned(_ context.Context, rec history.RunRecord) (bool, error) {
	now := s.now()
	if rec.Status.IsTerminal() && rec.FinishedAt == nil {
		rec.FinishedAt = &now
	}
	rt, err := roundTrip(rec, "run record")
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.runs[rec.RunID]
	if !ok || row.owner == nil || *row.owner != s.opts.InstanceID || row.rec.Status.IsTerminal() {
		return false, nil
	}
	lease := history.FormatTS(now.Add(s.opts.LeaseTTL))
	row.rec = rt
	row.lease = &lease
	return true, nil
}

// FinalizeShardedParent finalizes a still-sharded parent without touching
// owner or lease; exactly one concurrent caller wins.
func (s *Store) FinalizeShardedParent(_ context.Context, runID string, status history.RunStatus, finishedAt time.Time, errMsg *string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finalizeShardedLocked(runID, status, finishedAt, errMsg)
}

func (s *Store) finalizeShardedLocked(runID string, status history.RunStatus, finishedAt time.Time, errMsg *string) (bool, error) {
	row, ok := s.runs[runID]
	if !ok || row.rec.Status != history.StatusSharded {
		return false, nil
	}
	rec := copyRun(row.rec)
	rec.Status = status
	f := finishedAt.UTC()
	rec.FinishedAt = &f
	rec.Error = errMsg
	rt, err := roundTrip(rec, "run record")
	if err != nil {
		return false, err
	}
	row.rec = rt
	return true, nil
}

// CancelPending cancels a run that is still pending (loses to a claim).
func (s *Store) CancelPending(_ context.Context, runID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.runs[runID]
	if !ok || row.rec.Status != history.StatusPending {
		return false, nil
	}
	now := s.now()
	row.rec.Status = history.StatusCancelled
	row.rec.FinishedAt = &now
	return true, nil
}

// RequestCancel flags a running or sharded run for cancellation.
func (s *Store) RequestCancel(_ context.Context, runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.runs[runID]
	if ok && (row.rec.Status == history.StatusRunning || row.rec.Status == history.StatusSharded) {
		row.cancelRequested = strp(history.FormatTS(s.now()))
	}
	return nil
}

// PendingCancellations lists this instance's running runs with a cancel
// request.
func (s *Store) PendingCancellations(_ context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{}
	for _, id := range s.sortedRunIDs() {
		row := s.runs[id]
		if row.rec.Status == history.StatusRunning && row.owner != nil && *row.owner == s.opts.InstanceID && row.cancelRequested != nil {
			out = append(out, id)
		}
	}
	return out, nil
}

// HeartbeatInstance upserts this instance's membership and capabilities.
func (s *Store) HeartbeatInstance(_ context.Context, b history.InstanceHeartbeat) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.opts.InstanceID
	row, ok := s.instances[id]
	if !ok {
		row.startedAt = history.FormatTS(b.StartedAt)
	}
	row.lastHeartbeat = history.FormatTS(s.now())
	row.listen, row.maxConcurrent, row.inFlight = b.Listen, b.MaxConcurrent, b.InFlight
	s.instances[id] = row
	s.caps[id] = b.StateFormat
	return nil
}

// LiveInstances lists members that heartbeated within ttl.
func (s *Store) LiveInstances(_ context.Context, ttl time.Duration) ([]history.InstanceRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	thr := history.Threshold(s.now(), ttl)
	out := []history.InstanceRecord{}
	for id, in := range s.instances {
		if in.lastHeartbeat < thr {
			continue
		}
		out = append(out, history.InstanceRecord{InstanceID: id, StartedAt: history.ParseTS(in.startedAt),
			LastHeartbeat: history.ParseTS(in.lastHeartbeat), Listen: in.listen,
			MaxConcurrent: in.maxConcurrent, InFlight: in.inFlight, StateFormat: s.caps[id]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].InstanceID < out[j].InstanceID })
	return out, nil
}
