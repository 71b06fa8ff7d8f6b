package memory

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/faucet-hq/faucet/internal/history"
)

// InsertShards inserts new shard rows (pending, attempt 0), ignoring existing
// ones, and returns how many were new.
func (s *Store) InsertShards(_ context.Context, runID string, shards []history.ShardInsert) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, sh := range shards {
		k := [2]string{runID, sh.ShardID}
		if _, ok := s.shards[k]; ok {
			continue
		}
		desc := json.RawMessage("null")
		if len(sh.Descriptor) > 0 {
			desc = append(json.RawMessage(nil), sh.Descriptor...)
		}
		s.shards[k] = &shardRow{runID: runID, shardID: sh.ShardID, descriptor: desc,
			size: sh.SizeEstimate, status: history.ShardPending}
		n++
	}
	return n, nil
}

// ClaimShards claims up to limit pending shards whose run exists, largest
// estimate first, then by run id and shard id.
func (s *Store) ClaimShards(_ context.Context, limit int) ([]history.ClaimedShard, error) {
	out := []history.ClaimedShard{}
	if limit <= 0 {
		return out, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var cands []*shardRow
	for _, sh := range s.shards {
		if _, ok := s.runs[sh.runID]; ok && sh.status == history.ShardPending {
			cands = append(cands, sh)
		}
	}
	size := func(sh *shardRow) uint64 {
		if sh.size == nil {
			return 0
		}
		return *sh.size
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if size(a) != size(b) {
			return size(a) > size(b)
		}
		if a.runID != b.runID {
			return a.runID < b.runID
		}
		return a.shardID < b.shardID
	})
	if len(cands) > limit {
		cands = cands[:limit]
	}
	lease := history.FormatTS(s.now().Add(s.opts.LeaseTTL))
	for _, sh := range cands {
		sh.status = history.ShardRunning
		sh.owner = strp(s.opts.InstanceID)
		l := lease
		sh.lease = &l
		out = append(out, history.ClaimedShard{RunID: sh.runID, ShardID: sh.shardID,
			Descriptor: append(json.RawMessage(nil), sh.descriptor...), Run: copyRun(s.runs[sh.runID].rec)})
	}
	return out, nil
}

// RenewShardLease extends one shard's lease, fenced on owner = me and
// running.
func (s *Store) RenewShardLease(_ context.Context, runID, shardID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.shards[[2]string{runID, shardID}]
	if sh == nil || sh.owner == nil || *sh.owner != s.opts.InstanceID || sh.status != history.ShardRunning {
		return false, nil
	}
	l := history.FormatTS(s.now().Add(s.opts.LeaseTTL))
	sh.lease = &l
	return true, nil
}

// RenewShardLeases extends this instance's running shard leases.
func (s *Store) RenewShardLeases(_ context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lease := history.FormatTS(s.now().Add(s.opts.LeaseTTL))
	n := 0
	for _, sh := range s.shards {
		if sh.owner != nil && *sh.owner == s.opts.InstanceID && sh.status == history.ShardRunning {
			l := lease
			sh.lease = &l
			n++
		}
	}
	return n, nil
}

// ReclaimShards requeues expired running shards until maxAttempts, then fails
// them.
func (s *Store) ReclaimShards(_ context.Context, maxAttempts uint32) (history.ReclaimReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rep history.ReclaimReport
	nowS := history.FormatTS(s.now())
	for _, sh := range s.shards {
		if sh.status != history.ShardRunning || !leaseExpired(sh.lease, nowS) {
			continue
		}
		if sh.attempt < maxAttempts {
			sh.status, sh.owner, sh.lease = history.ShardPending, nil, nil
			sh.attempt++
			rep.Requeued++
		} else {
			sh.status, sh.owner = history.ShardFailed, nil
			f := nowS
			sh.finishedAt = &f
			rep.Failed++
		}
	}
	return rep, nil
}

// FinalizeShard records a shard outcome if this instance still runs it.
func (s *Store) FinalizeShard(_ context.Context, runID, shardID string, success bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, ok := s.shards[[2]string{runID, shardID}]
	if !ok || sh.status != history.ShardRunning || sh.owner == nil || *sh.owner != s.opts.InstanceID {
		return false, nil
	}
	sh.status = history.ShardFailed
	if success {
		sh.status = history.ShardCompleted
	}
	f := history.FormatTS(s.now())
	sh.finishedAt = &f
	return true, nil
}

// ShardProgress counts a run's shards by status.
func (s *Store) ShardProgress(_ context.Context, runID string) (history.ShardProgress, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progressLocked(runID), nil
}

func (s *Store) progressLocked(runID string) history.ShardProgress {
	var p history.ShardProgress
	for k, sh := range s.shards {
		if k[0] != runID {
			continue
		}
		p.Total++
		switch sh.status {
		case history.ShardCompleted:
			p.Completed++
		case history.ShardFailed:
			p.Failed++
		case history.ShardRunning:
			p.Running++
		default:
			p.Pending++
		}
	}
	return p
}

// PendingShardCancellations lists runs with a cancel request for which this
// instance runs a shard.
func (s *Store) PendingShardCancellations(_ context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := map[string]bool{}
	for _, sh := range s.shards {
		if sh.status != history.ShardRunning || sh.owner == nil || *sh.owner != s.opts.InstanceID {
			continue
		}
		if r, ok := s.runs[sh.runID]; ok && r.cancelRequested != nil {
			set[sh.runID] = true
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, nil
}

// FinalizeCompletedShardedParents finalizes every sharded parent whose shards
// are all terminal.
func (s *Store) FinalizeCompletedShardedParents(_ context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range s.sortedRunIDs() {
		if s.runs[id].rec.Status != history.StatusSharded {
			continue
		}
		p := s.progressLocked(id)
		if !p.AllTerminal() {
			continue
		}
		status := history.StatusCompleted
		var errMsg *string
		if p.Failed > 0 {
			status = history.StatusFailed
			errMsg = strp(history.ShardFailureError(p.Failed, p.Total))
		} else {
			errMsg = s.runs[id].rec.Error
		}
		ok, err := s.finalizeShardedLocked(id, status, s.now(), errMsg)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}
