package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// ClaimIdempotency: insert-or-nothing, else inspect; an expired claim is
// taken over by an UPDATE guarded on its old claimed_at, so exactly one
// racer wins. Bounded by ClaimAttempts; exhaustion answers Conflict.
func (s *Store) ClaimIdempotency(ctx context.Context, key, fingerprint, runID string, window time.Duration) (history.Claim, error) {
	now := s.now()
	nowS := history.FormatTS(now)
	for attempt := 1; attempt <= history.ClaimAttempts; attempt++ {
		n, err := s.exec(ctx, s.st.insertIdem, key, runID, fingerprint, nowS)
		if err != nil {
			return history.Claim{}, err
		}
		if n == 1 {
			return history.Claim{Kind: history.ClaimFresh}, nil
		}
		var existingRun, existingFP, claimedAt string
		err = s.db.QueryRowContext(ctx, s.st.selectIdem, key).Scan(&existingRun, &existingFP, &claimedAt)
		if err == sql.ErrNoRows {
			continue // vanished between insert and read
		}
		if err != nil {
			return history.Claim{}, classify("", err)
		}
		if history.IsExpired(claimedAt, now, window) {
			took, err := s.exec(ctx, s.st.takeoverIdem, runID, fingerprint, nowS, key, claimedAt)
			if err != nil {
				return history.Claim{}, err
			}
			if took == 1 {
				return history.Claim{Kind: history.ClaimFresh}, nil
			}
			continue
		}
		if existingFP == fingerprint {
			return history.Claim{Kind: history.ClaimReplay, RunID: existingRun}, nil
		}
		return history.Claim{Kind: history.ClaimConflict}, nil
	}
	// Pathological contention: a 409 is safer than a duplicate run.
	return history.Claim{Kind: history.ClaimConflict}, nil
}

// Upsert writes the record and stamps owner = this instance and a fresh
// lease; cancel_requested is never written here.
func (s *Store) Upsert(ctx context.Context, rec history.RunRecord) error {
	body, err := history.EncodeRun(&rec)
	if err != nil {
		return err
	}
	now := s.now()
	_, err = s.exec(ctx, s.st.upsert, rec.RunID, nullable(rec.Name), string(rec.Status),
		history.FormatTS(rec.SubmittedAt), nullTS(rec.FinishedAt), nullable(rec.IdempotencyKey),
		s.opts.InstanceID, s.lease(now), body)
	return err
}

// Get decodes the run's body; a corrupt body is an error naming the run.
func (s *Store) Get(ctx context.Context, runID string) (*history.RunRecord, error) {
	body, ok, err := s.oneBody(ctx, s.st.selectBody, runID)
	if err != nil || !ok {
		return nil, err
	}
	r, err := history.DecodeJSON[history.RunRecord](body, "run record "+runID)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// List pages runs with keyset pagination over (submitted_at, run_id).
func (s *Store) List(ctx context.Context, f history.ListFilter) (history.ListPage, error) {
	var curTS, curID any
	if f.Cursor != nil {
		ts, ok, err := s.oneBody(ctx, s.st.selectSubmitted, *f.Cursor)
		if err != nil {
			return history.ListPage{}, err
		}
		if ok { // an unknown cursor is ignored
			curTS, curID = ts, *f.Cursor
		}
	}
	var status, name, since, until, tenant any
	if p := history.StatusSetParam(f.Status); p != "" {
		status = p
	}
	name = nullable(f.Name)
	since, until = nullTS(f.Since), nullTS(f.Until)
	tenant = nullable(f.Tenant)
	limit := history.EffectiveLimit(f.Limit)
	q := s.st.list
	if curTS != nil {
		q = s.st.listAfter
	}
	rows, err := s.queryStrings(ctx, q, status, status, name, name, since, since, until, until,
		curTS, curTS, curTS, curID, tenant, tenant, int64(limit+1))
	if err != nil {
		return history.ListPage{}, err
	}
	page := history.ListPage{Runs: []history.RunRecord{}}
	if len(rows) > limit {
		page.NextCursor = &rows[limit-1][0].String
		rows = rows[:limit]
	}
	for _, r := range rows {
		rec, err := history.DecodeRun(r[1].String)
		if err != nil {
			page.Corrupt = append(page.Corrupt, r[0].String)
			continue
		}
		page.Runs = append(page.Runs, rec)
	}
	return page, nil
}

// Delete removes a terminal run, then its tenant link, the idempotency claims
// pointing at it (#146 M8) and its shard rows (F25), in one transaction (the
// seed used four separate statements).
func (s *Store) Delete(ctx context.Context, runID string) (history.DeleteOutcome, error) {
	st, ok, err := s.oneBody(ctx, s.st.selectStatus, runID)
	if err != nil {
		return 0, err
	}
	if !ok {
		return history.NotFound, nil
	}
	if !history.ParseStatusLenient(st).IsTerminal() {
		return history.StillRunning, nil
	}
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{s.st.deleteRun, s.st.tenantRunDelete, s.st.deleteIdemByRun, s.st.deleteShardsByRun} {
			if _, err := tx.ExecContext(ctx, q, runID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return history.Deleted, nil
}

// ReleaseIdempotency deletes the claims pointing at runID.
func (s *Store) ReleaseIdempotency(ctx context.Context, runID string) error {
	_, err := s.exec(ctx, s.st.deleteIdemByRun, runID)
	return err
}

// PurgeExpired deletes terminal runs finished before now-retain (the only
// step whose failure is reported), then best-effort: expired claims, silent
// members and orphan caps, orphan shards and tenant links, old audit rows and
// their orphan tenant rows. Catalog, templates, usage, changes and tenants are
// never touched.
func (s *Store) PurgeExpired(ctx context.Context, retain time.Duration) (int, error) {
	now := s.now()
	thr := history.Threshold(now, retain)
	n, err := s.exec(ctx, s.st.purgeRuns, thr)
	if err != nil {
		return 0, fmt.Errorf("purge runs: %w", err)
	}
	_, _ = s.exec(ctx, s.st.purgeIdem, history.Threshold(now, s.opts.IdemRetention))
	_, _ = s.exec(ctx, s.st.pruneInstances, thr)
	_, _ = s.exec(ctx, s.st.pruneInstanceCaps)
	_, _ = s.exec(ctx, s.st.purgeOrphanShards)
	_, _ = s.exec(ctx, s.st.purgeOrphanTenantRuns)
	_, _ = s.exec(ctx, s.st.purgeAudit, thr)
	_, _ = s.exec(ctx, s.st.purgeAuditTenants)
	return int(n), nil
}
