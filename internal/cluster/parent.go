package cluster

import (
	"context"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// finalizeParent finalizes sharded run runID when all its shards are
// terminal: completed when none failed, else failed with "K/N shard(s)
// failed". The write is fenced on status='sharded', so of every instance
// that tries (each finishing shard's owner, every lease-loop sweep) exactly
// one wins; the winner hands the record to the executor (metrics and the
// completion callback). A write whose reply was lost is confirmed by
// reading back its own finished_at.
func (n *Node) finalizeParent(ctx context.Context, runID string) {
	p, err := n.store.ShardProgress(ctx, runID)
	if err != nil {
		n.warn.report(n.log, "finalizing sharded runs", err)
		return
	}
	if !p.AllTerminal() {
		return
	}
	status, msg := history.StatusCompleted, (*string)(nil)
	if p.Failed > 0 {
		status, msg = history.StatusFailed, history.Ptr(history.ShardFailureError(p.Failed, p.Total))
	}
	fin := time.Now().UTC().Truncate(time.Microsecond)
	won, err := n.store.FinalizeShardedParent(ctx, runID, status, fin, msg)
	if err != nil {
		n.warn.report(n.log, "finalizing sharded runs", err)
		won = n.wroteTerminal(ctx, history.RunRecord{RunID: runID, Status: status, FinishedAt: &fin})
	}
	if !won {
		return
	}
	rec, err := n.cfg.Runs.Get(ctx, runID)
	if err != nil || rec == nil {
		n.log.Warn("finalized a sharded run but could not read it back; its callback is not sent", "run_id", runID, "err", err)
		return
	}
	n.log.Info("sharded run finished", "run_id", runID, "status", string(status), "shards", p.Total, "failed", p.Failed)
	n.exec.ParentFinished(*rec)
}

// sweepParents finalizes every sharded run whose shards are all terminal
// (the ones whose last shard's owner did not get to it: a crash, a poison
// shard failed by reclaim).
func (n *Node) sweepParents(ctx context.Context) {
	var cursor *string
	for {
		page, err := n.cfg.Runs.List(ctx, history.ListFilter{Status: []history.RunStatus{history.StatusSharded}, Limit: 100, Cursor: cursor})
		if err != nil {
			n.warn.report(n.log, "listing sharded runs", err)
			return
		}
		for _, rec := range page.Runs {
			n.finalizeParent(ctx, rec.RunID)
		}
		if page.NextCursor == nil || len(page.Runs) == 0 {
			return
		}
		cursor = page.NextCursor
	}
}
