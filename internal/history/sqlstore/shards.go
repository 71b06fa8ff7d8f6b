package sqlstore

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/faucet-hq/faucet/internal/history"
)

// InsertShards inserts pending shards, ignoring existing ones; returns how
// many were new (so concurrent coordinators converge).
func (s *Store) InsertShards(ctx context.Context, runID string, shards []history.ShardInsert) (int, error) {
	total := 0
	for _, sh := range shards {
		desc := string(sh.Descriptor)
		if len(sh.Descriptor) == 0 {
			desc = "null"
		}
		var size any
		if sh.SizeEstimate != nil {
			size = strconv.FormatUint(*sh.SizeEstimate, 10)
		}
		n, err := s.exec(ctx, s.st.insertShard, runID, sh.ShardID, desc, size)
		if err != nil {
			return total, err
		}
		total += int(n)
	}
	return total, nil
}

// ClaimShards claims up to limit pending shards, largest estimate first, one
// guarded UPDATE each.
func (s *Store) ClaimShards(ctx context.Context, limit int) ([]history.ClaimedShard, error) {
	out := []history.ClaimedShard{}
	if limit <= 0 {
		return out, nil
	}
	lease := s.lease(s.now())
	rows, err := s.queryStrings(ctx, s.st.claimShardsSelect, int64(limit))
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		runID, shardID := r[0].String, r[1].String
		won, err := s.exec(ctx, s.st.claimShardOne, s.opts.InstanceID, lease, runID, shardID)
		if err != nil {
			return out, err
		}
		if won != 1 {
			continue
		}
		if !json.Valid([]byte(r[2].String)) {
			return out, history.Backend("decode shard descriptor %s/%s: invalid JSON", runID, shardID)
		}
		rec, err := history.DecodeJSON[history.RunRecord](r[3].String, "run record "+runID)
		if err != nil {
			return out, err
		}
		out = append(out, history.ClaimedShard{RunID: runID, ShardID: shardID, Descriptor: json.RawMessage(r[2].String), Run: rec})
	}
	return out, nil
}

// RenewShardLeases extends this instance's running shard leases.
func (s *Store) RenewShardLeases(ctx context.Context) (int, error) {
	n, err := s.exec(ctx, s.st.renewShardLeases, s.lease(s.now()), s.opts.InstanceID)
	return int(n), err
}

// RenewShardLease extends one shard's lease, fenced on owner = me and
// running (the write is idempotent: a retried renewal that committed still
// matches).
func (s *Store) RenewShardLease(ctx context.Context, runID, shardID string) (bool, error) {
	n, err := s.exec(ctx, s.st.renewShardLease, s.lease(s.now()), runID, shardID, s.opts.InstanceID)
	return n == 1, err
}

// ReclaimShards requeues expired running shards until maxAttempts, then fails
// them; guarded on still-running and still-expired.
func (s *Store) ReclaimShards(ctx context.Context, maxAttempts uint32) (history.ReclaimReport, error) {
	var rep history.ReclaimReport
	nowS := history.FormatTS(s.now())
	rows, err := s.queryStrings(ctx, s.st.reclaimShardsSelect, nowS)
	if err != nil {
		return rep, err
	}
	for _, r := range rows {
		attempt, perr := strconv.ParseUint(r[2].String, 10, 32)
		if perr != nil {
			attempt = 0
		}
		if uint32(attempt) < maxAttempts {
			n, err := s.exec(ctx, s.st.reclaimShardRequeue, strconv.FormatUint(attempt+1, 10), r[0].String, r[1].String, nowS)
			if err != nil {
				return rep, err
			}
			rep.Requeued += int(n)
			continue
		}
		n, err := s.exec(ctx, s.st.reclaimShardFail, nowS, r[0].String, r[1].String, nowS)
		if err != nil {
			return rep, err
		}
		rep.Failed += int(n)
	}
	return rep, nil
}

// FinalizeShard records an outcome, fenced on owner = me and running.
func (s *Store) FinalizeShard(ctx context.Context, runID, shardID string, success bool) (bool, error) {
	st := history.ShardFailed
	if success {
		st = history.ShardCompleted
	}
	n, err := s.exec(ctx, s.st.finalizeShard, st, history.FormatTS(s.now()), runID, shardID, s.opts.InstanceID)
	return n == 1, err
}

// ShardProgress counts shards by status (unknown statuses count as pending).
func (s *Store) ShardProgress(ctx context.Context, runID string) (history.ShardProgress, error) {
	var p history.ShardProgress
	rows, err := s.db.QueryContext(ctx, s.st.shardProgress, runID)
	if err != nil {
		return p, classify("", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return p, classify("", err)
		}
		if n < 0 {
			n = 0
		}
		p.Total += int(n)
		switch st {
		case history.ShardCompleted:
			p.Completed += int(n)
		case history.ShardFailed:
			p.Failed += int(n)
		case history.ShardRunning:
			p.Running += int(n)
		default:
			p.Pending += int(n)
		}
	}
	return p, classify("", rows.Err())
}

// PendingShardCancellations lists runs with a cancel request for which this
// instance runs a shard (F10).
func (s *Store) PendingShardCancellations(ctx context.Context) ([]string, error) {
	out, err := s.bodies(ctx, s.st.pendingShardCancellations, s.opts.InstanceID)
	if out == nil && err == nil {
		out = []string{}
	}
	return out, err
}

// FinalizeCompletedShardedParents finalizes every sharded parent whose shards
// are all terminal; the status-fenced write makes racing sweeps a no-op (F11).
func (s *Store) FinalizeCompletedShardedParents(ctx context.Context) (int, error) {
	ids, err := s.bodies(ctx, s.st.selectShardedParents)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		p, err := s.ShardProgress(ctx, id)
		if err != nil {
			return n, err
		}
		if !p.AllTerminal() {
			continue
		}
		rec, err := s.Get(ctx, id)
		if err != nil {
			return n, err
		}
		if rec == nil || rec.Status != history.StatusSharded {
			continue
		}
		status, errMsg := history.StatusCompleted, rec.Error
		if p.Failed > 0 {
			status, errMsg = history.StatusFailed, history.Ptr(history.ShardFailureError(p.Failed, p.Total))
		}
		won, err := s.FinalizeShardedParent(ctx, id, status, s.now(), errMsg)
		if err != nil {
			return n, err
		}
		if won {
			n++
		}
	}
	return n, nil
}
