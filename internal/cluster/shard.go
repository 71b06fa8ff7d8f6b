package cluster

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/faucet-hq/faucet/internal/history"
)

// Store is the shared history a node works on: run leases and shards.
type Store interface {
	history.Leases
	history.Shards
}

// ShardClaim is a shard of a sharded run that this instance claimed and
// executes (mode B). Its writes (RenewShardLease, FinalizeShard) are fenced
// on ownership.
type ShardClaim struct {
	node *Node
	// RunID and ShardID name the shard; Descriptor is the source's own
	// description of its part (connector.ShardSpec.Descriptor).
	RunID      string
	ShardID    string
	Descriptor json.RawMessage

	parent history.RunRecord

	mu       sync.Mutex
	done     bool // written (won or lost) or given up; no more writes
	lost     bool // a renewal matched nothing: the shard was reclaimed
	stopping bool // a cancel already stopped the execution
	// finalizing: the result write has started; renewals leave the shard
	// alone (a committed result makes a renewal match nothing).
	finalizing bool
}

// stopOnce reports whether this is the first cancel of the shard.
func (s *ShardClaim) stopOnce() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.stopping && !s.done
	s.stopping = true
	return first
}

// Key is "<run_id>::<shard_id>", the shard's key among held shards and its
// state-key suffix.
func (s *ShardClaim) Key() string { return s.RunID + "::" + s.ShardID }

// Parent returns a copy of the parent run's record as claimed (its stored
// config, timeout, clock and params).
func (s *ShardClaim) Parent() history.RunRecord { return s.parent.Clone() }

// holdShard registers a claimed shard; fresh is false when this instance
// still executes the same shard (reclaimed and claimed again here).
func (n *Node) holdShard(cs history.ClaimedShard) (s *ShardClaim, fresh bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	key := cs.RunID + "::" + cs.ShardID
	if old := n.shards[key]; old != nil {
		return old, false
	}
	s = &ShardClaim{node: n, RunID: cs.RunID, ShardID: cs.ShardID, Descriptor: cs.Descriptor, parent: cs.Run}
	n.shards[key] = s
	return s, true
}

func (n *Node) releaseShard(s *ShardClaim) {
	n.mu.Lock()
	if n.shards[s.Key()] == s {
		delete(n.shards, s.Key())
	}
	n.mu.Unlock()
}

// HeldShards is the number of shards this instance executes.
func (n *Node) HeldShards() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.shards)
}

// shardsOf lists the held shards of run runID.
func (n *Node) shardsOf(runID string) []*ShardClaim {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []*ShardClaim
	for _, s := range n.shards {
		if s.RunID == runID {
			out = append(out, s)
		}
	}
	return out
}

// Abandon gives the shard up without writing (the execution never started
// here); once this instance stops renewing, a peer reclaims it.
func (s *ShardClaim) Abandon() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	s.node.releaseShard(s)
	s.node.log.Warn("giving up a claimed shard without running it; its lease will lapse and another instance runs it", "run_id", s.RunID, "shard_id", s.ShardID)
}

// Finalize writes the shard's outcome with the owner-fenced FinalizeShard
// (completed when success, else failed), retrying a failed write until it
// succeeds or ctx ends, then finalizes the parent when this was its last
// shard. won is false when the shard was reclaimed meanwhile (the result is
// discarded). A retry after a write whose reply was lost also reports false;
// the row then holds this instance's outcome all the same, and the parent
// is finalized from the rows, so nothing but this report depends on it.
func (s *ShardClaim) Finalize(ctx context.Context, success bool) (won bool, err error) {
	n := s.node
	s.mu.Lock()
	if s.done || s.lost {
		lost := s.lost
		s.done = true
		s.mu.Unlock()
		n.releaseShard(s)
		if lost {
			n.metrics.fenced.WithLabelValues("lease_lost").Inc()
			n.log.Warn("shard was reclaimed by another instance; discarding result", "run_id", s.RunID, "shard_id", s.ShardID)
		}
		return false, nil
	}
	s.finalizing = true
	s.mu.Unlock()
	failedBefore := false
	for attempt := 1; ; attempt++ {
		won, err = n.store.FinalizeShard(ctx, s.RunID, s.ShardID, success)
		if err == nil {
			break
		}
		failedBefore = true
		n.warn.report(n.log, "writing shard results", err)
		if werr := wait(ctx, backoff(attempt, n.cfg.PollInterval)); werr != nil {
			s.mu.Lock()
			s.done = true
			s.mu.Unlock()
			n.releaseShard(s)
			return false, err
		}
	}
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	n.releaseShard(s)
	switch {
	case won:
		n.metrics.shardsFinished.WithLabelValues(shardOutcome(success)).Inc()
	case failedBefore:
		n.log.Warn("shard result not confirmed: an earlier write may have committed (its reply was lost) or the shard was reclaimed", "run_id", s.RunID, "shard_id", s.ShardID)
	default:
		n.metrics.fenced.WithLabelValues("database").Inc()
		n.log.Warn("shard was reclaimed by another instance; discarding result", "run_id", s.RunID, "shard_id", s.ShardID)
	}
	n.finalizeParent(ctx, s.RunID)
	return won, nil
}

func shardOutcome(success bool) string {
	if success {
		return history.ShardCompleted
	}
	return history.ShardFailed
}

// Expand turns the claimed run into a sharded parent: it inserts the shard
// rows (idempotent: a coordinator that re-expands after a crash inserts
// nothing new), then flips the run to sharded with the owner-fenced write,
// and gives the claim up (a sharded parent has no lease; its shards do).
// Renewals of the claim stop first, since a renewal would write the run
// back as running. expanded is false when the run was no longer ours (its
// lease was lost); err is set when ctx ended before the database answered:
// the lease then lapses and a peer re-expands the run.
func (c *Claim) Expand(ctx context.Context, shards []history.ShardInsert) (expanded bool, err error) {
	n := c.node
	c.mu.Lock()
	if c.lost || c.done {
		c.done = true
		c.mu.Unlock()
		n.release(c)
		return false, nil
	}
	c.finalizing = true
	rec := c.rec.Clone()
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.done = true
		c.mu.Unlock()
		n.release(c)
	}()
	for attempt := 1; ; attempt++ {
		_, err = n.store.InsertShards(ctx, c.RunID, shards)
		if err == nil {
			break
		}
		n.warn.report(n.log, "inserting shards", err)
		if werr := wait(ctx, backoff(attempt, n.cfg.PollInterval)); werr != nil {
			return false, err
		}
	}
	rec.Status = history.StatusSharded
	for attempt := 1; ; attempt++ {
		expanded, err = n.store.FinalizeOwned(ctx, rec)
		if err == nil {
			break
		}
		n.warn.report(n.log, "marking runs sharded", err)
		if werr := wait(ctx, backoff(attempt, n.cfg.PollInterval)); werr != nil {
			return false, err
		}
	}
	if !expanded {
		n.metrics.fenced.WithLabelValues("database").Inc()
		n.log.Warn("run was reclaimed by another instance before it was marked sharded; its new owner expands it", "run_id", c.RunID)
		return false, nil
	}
	n.log.Info("run sharded", "run_id", c.RunID, "shards", len(shards))
	n.NotePending()
	return true, nil
}
