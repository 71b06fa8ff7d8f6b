package cluster

import "context"

// cancelShards stops the shards this instance executes whose parent run
// carries the cross-instance cancel flag.
func (n *Node) cancelShards(ctx context.Context) {
	if n.HeldShards() == 0 {
		return
	}
	ids, err := n.store.PendingShardCancellations(ctx)
	n.warn.report(n.log, "listing cross-instance shard cancellations", err)
	for _, id := range ids {
		for _, s := range n.shardsOf(id) {
			// The execution stops at a page boundary; later polls still
			// list the shard until its result is written.
			if s.stopOnce() && n.exec.StopShard(s, ErrCancelRequested) {
				n.log.Info("stopping shard: its run was cancelled", "run_id", id, "shard_id", s.ShardID)
			}
		}
	}
}

// claimShards takes up to free pending shards, largest estimate first, and
// reports whether more may be pending (it took all it asked for, or failed).
func (n *Node) claimShards(ctx context.Context, free int) (more bool) {
	if free <= 0 {
		return true
	}
	got, err := n.store.ClaimShards(ctx, free)
	n.warn.report(n.log, "claiming pending shards", err)
	for _, cs := range got {
		n.metrics.shardsClaimed.Inc()
		s, fresh := n.holdShard(cs)
		if !fresh {
			n.log.Info("re-claimed a shard that is still executing here; the execution continues", "run_id", cs.RunID, "shard_id", cs.ShardID)
			continue
		}
		n.log.Info("claimed shard", "run_id", cs.RunID, "shard_id", cs.ShardID)
		n.exec.StartShard(s)
	}
	return err != nil || len(got) >= free
}

// renewShards pushes the lease of each shard this instance executes to
// now+ttl, fenced on owner and running (RenewShardLease, one statement per
// shard, not the seed's blanket RenewShardLeases, so a shard owned here but
// not executed lapses and a peer reclaims it). A renewal that matches
// nothing means the shard was reclaimed: its execution here is stopped and
// its result will be discarded.
func (n *Node) renewShards(ctx context.Context) {
	n.mu.Lock()
	held := make([]*ShardClaim, 0, len(n.shards))
	for _, s := range n.shards {
		held = append(held, s)
	}
	n.mu.Unlock()
	var firstErr error
	for _, s := range held {
		if !s.mu.TryLock() { // busy with its result write
			continue
		}
		if s.done || s.lost || s.finalizing {
			s.mu.Unlock()
			continue
		}
		won, err := n.store.RenewShardLease(ctx, s.RunID, s.ShardID)
		lostNow := err == nil && !won
		if lostNow {
			s.lost = true
		}
		s.mu.Unlock()
		switch {
		case err != nil:
			if firstErr == nil {
				firstErr = err
			}
		case won:
			n.metrics.renewals.Inc()
		case lostNow:
			n.metrics.leasesLost.Inc()
			n.log.Warn("shard lease lost: it was reclaimed by another instance; stopping the local execution", "run_id", s.RunID, "shard_id", s.ShardID)
			n.exec.StopShard(s, ErrLeaseLost)
			n.releaseShard(s)
		}
	}
	n.warn.report(n.log, "renewing shard leases", firstErr)
}

// reclaimShards requeues (or, past MaxAttempts, fails) running shards whose
// lease lapsed.
func (n *Node) reclaimShards(ctx context.Context) {
	rep, err := n.store.ReclaimShards(ctx, n.cfg.MaxAttempts)
	n.warn.report(n.log, "reclaiming orphaned shards", err)
	if rep.Requeued > 0 {
		n.metrics.shardsReclaimed.WithLabelValues("requeued").Add(float64(rep.Requeued))
		n.log.Warn("requeued shards whose owning instance's lease expired", "shards", rep.Requeued)
		n.NotePending()
	}
	if rep.Failed > 0 {
		n.metrics.shardsReclaimed.WithLabelValues("failed").Add(float64(rep.Failed))
		n.log.Error("failed poison shards reclaimed too many times", "shards", rep.Failed, "max_attempts", n.cfg.MaxAttempts)
	}
}
