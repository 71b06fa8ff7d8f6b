package sqlstore

import (
	"context"
	"strconv"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// RecoverOrphans fails queued/running runs whose lease lapsed (or is unset),
// stamping them as this instance's like the seed's upsert did, but with a
// write guarded on still-orphaned so a lease renewed meanwhile wins.
func (s *Store) RecoverOrphans(ctx context.Context) (int, error) {
	now := s.now()
	rows, err := s.queryStrings(ctx, s.st.selectOrphans, history.FormatTS(now))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		rec, err := history.DecodeJSON[history.RunRecord](r[1].String, "run record "+r[0].String)
		if err != nil {
			return n, err
		}
		rec.Status = history.StatusFailed
		rec.FinishedAt = &now
		rec.Error = history.Ptr(history.OrphanLeaseExpiredError)
		if rec.ElapsedSecs == nil {
			rec.ElapsedSecs = history.ElapsedSince(rec.StartedAt, now)
		}
		body, err := history.EncodeRun(&rec)
		if err != nil {
			return n, err
		}
		won, err := s.exec(ctx, s.st.recoverOne, history.FormatTS(now), s.opts.InstanceID, s.lease(now), body, rec.RunID, history.FormatTS(now))
		if err != nil {
			return n, err
		}
		n += int(won)
	}
	return n, nil
}

// RenewLeases pushes this instance's queued/running leases to now+ttl.
func (s *Store) RenewLeases(ctx context.Context) (int, error) {
	n, err := s.exec(ctx, s.st.renewLeases, s.lease(s.now()), s.opts.InstanceID)
	return int(n), err
}

// ClaimPending claims up to limit of the oldest pending runs, one guarded
// UPDATE per candidate (only status='pending' rows flip), rewriting the body
// as running so a GET never shows a stale pending.
func (s *Store) ClaimPending(ctx context.Context, limit int) ([]history.RunRecord, error) {
	out := []history.RunRecord{}
	if limit <= 0 {
		return out, nil
	}
	now := s.now()
	lease := s.lease(now)
	rows, err := s.queryStrings(ctx, s.st.selectPending, int64(limit))
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		rec, err := history.DecodeJSON[history.RunRecord](r[1].String, "run record "+r[0].String)
		if err != nil {
			continue // a corrupt pending row is left for an operator; others proceed
		}
		rec.Status = history.StatusRunning
		body, err := history.EncodeRun(&rec)
		if err != nil {
			return out, err
		}
		won, err := s.exec(ctx, s.st.claimOne, s.opts.InstanceID, lease, body, rec.RunID)
		if err != nil {
			return out, err
		}
		if won == 1 {
			out = append(out, rec)
		}
	}
	return out, nil
}

// ReclaimOrphans requeues running runs whose lease lapsed (attempt+1, owner
// and lease cleared, cancel_requested kept) until maxAttempts, then fails them
// as poison. Both writes are guarded on still-running and still-expired.
func (s *Store) ReclaimOrphans(ctx context.Context, maxAttempts uint32) (history.ReclaimReport, error) {
	var rep history.ReclaimReport
	now := s.now()
	nowS := history.FormatTS(now)
	rows, err := s.queryStrings(ctx, s.st.reclaimSelect, nowS)
	if err != nil {
		return rep, err
	}
	for _, r := range rows {
		rec, err := history.DecodeJSON[history.RunRecord](r[1].String, "run record "+r[0].String)
		if err != nil {
			return rep, err
		}
		next := rec.Attempt + 1
		if rec.Attempt < maxAttempts {
			rec.Attempt, rec.Status = next, history.StatusPending
			body, err := history.EncodeRun(&rec)
			if err != nil {
				return rep, err
			}
			n, err := s.exec(ctx, s.st.reclaimRequeue, body, rec.RunID, nowS)
			if err != nil {
				return rep, err
			}
			rep.Requeued += int(n)
			continue
		}
		rec.Attempt, rec.Status = next, history.StatusFailed
		rec.FinishedAt = &now
		rec.Error = history.Ptr(history.PoisonError(next))
		if rec.ElapsedSecs == nil {
			rec.ElapsedSecs = history.ElapsedSince(rec.StartedAt, now)
		}
		body, err := history.EncodeRun(&rec)
		if err != nil {
			return rep, err
		}
		n, err := s.exec(ctx, s.st.reclaimFail, nowS, body, rec.RunID, nowS)
		if err != nil {
			return rep, err
		}
		rep.Failed += int(n)
	}
	return rep, nil
}

// FinalizeOwned writes the record only where this instance owns the run and
// it is still non-terminal (#321 L5), stamping finished_at when missing.
func (s *Store) FinalizeOwned(ctx context.Context, rec history.RunRecord) (bool, error) {
	now := s.now()
	if rec.Status.IsTerminal() && rec.FinishedAt == nil {
		rec.FinishedAt = &now
	}
	body, err := history.EncodeRun(&rec)
	if err != nil {
		return false, err
	}
	n, err := s.exec(ctx, s.st.finalizeOwned, string(rec.Status), nullTS(rec.FinishedAt), s.lease(now), body, rec.RunID, s.opts.InstanceID)
	return n == 1, err
}

// FinalizeShardedParent finalizes a still-sharded parent, fenced on
// status='sharded', without re-stamping owner or lease (F45).
func (s *Store) FinalizeShardedParent(ctx context.Context, runID string, status history.RunStatus, finishedAt time.Time, errMsg *string) (bool, error) {
	rec, err := s.Get(ctx, runID)
	if err != nil || rec == nil || rec.Status != history.StatusSharded {
		return false, err
	}
	fin := finishedAt.UTC()
	rec.Status, rec.FinishedAt, rec.Error = status, &fin, errMsg
	body, err := history.EncodeRun(rec)
	if err != nil {
		return false, err
	}
	n, err := s.exec(ctx, s.st.finalizeShardedParent, string(status), history.FormatTS(fin), body, runID)
	return n == 1, err
}

// CancelPending cancels a run still pending; it loses cleanly to a claim.
func (s *Store) CancelPending(ctx context.Context, runID string) (bool, error) {
	rec, err := s.Get(ctx, runID)
	if err != nil || rec == nil || rec.Status != history.StatusPending {
		return false, err
	}
	now := s.now()
	rec.Status, rec.FinishedAt = history.StatusCancelled, &now
	body, err := history.EncodeRun(rec)
	if err != nil {
		return false, err
	}
	n, err := s.exec(ctx, s.st.cancelPending, history.FormatTS(now), body, runID)
	return n == 1, err
}

// RequestCancel flags a running or sharded run (otherwise nothing happens).
func (s *Store) RequestCancel(ctx context.Context, runID string) error {
	_, err := s.exec(ctx, s.st.requestCancel, history.FormatTS(s.now()), runID)
	return err
}

// PendingCancellations lists this instance's running runs with a request.
func (s *Store) PendingCancellations(ctx context.Context) ([]string, error) {
	out, err := s.bodies(ctx, s.st.pendingCancellations, s.opts.InstanceID)
	if out == nil && err == nil {
		out = []string{}
	}
	return out, err
}

// HeartbeatInstance upserts the membership row (started_at kept from the
// first insert) and the capabilities row.
func (s *Store) HeartbeatInstance(ctx context.Context, b history.InstanceHeartbeat) error {
	if _, err := s.exec(ctx, s.st.heartbeatInstance, s.opts.InstanceID, history.FormatTS(b.StartedAt),
		history.FormatTS(s.now()), nullable(b.Listen), strconv.FormatUint(uint64(b.MaxConcurrent), 10),
		strconv.FormatUint(uint64(b.InFlight), 10)); err != nil {
		return err
	}
	_, err := s.exec(ctx, s.st.heartbeatCaps, s.opts.InstanceID, strconv.FormatUint(uint64(b.StateFormat), 10))
	return err
}

// LiveInstances lists members heartbeating within ttl; unparseable numbers
// read as 0 and bad timestamps as now.
func (s *Store) LiveInstances(ctx context.Context, ttl time.Duration) ([]history.InstanceRecord, error) {
	rows, err := s.queryStrings(ctx, s.st.liveInstances, history.Threshold(s.now(), ttl))
	if err != nil {
		return nil, err
	}
	u32 := func(v string) uint32 {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return 0
		}
		return uint32(n)
	}
	out := make([]history.InstanceRecord, 0, len(rows))
	for _, r := range rows {
		out = append(out, history.InstanceRecord{InstanceID: r[0].String, StartedAt: history.ParseTS(r[1].String),
			LastHeartbeat: history.ParseTS(r[2].String), Listen: nsPtr(r[3]), MaxConcurrent: u32(r[4].String),
			InFlight: u32(r[5].String), StateFormat: u32(r[6].String)})
	}
	return out, nil
}
