package cluster

import (
	"context"

	"github.com/faucet-hq/faucet/internal/history"
)

// InsertClaimed stores a run just submitted to this instance as already
// claimed by it, when the caller holds a free execution slot for it: one
// INSERT writes the row running, owned by this instance, with its lease
// (now+ttl) and the given started_at, so the run never passes through
// pending and no peer can claim it (its id is new; only a lapsed lease
// lets anyone else touch it, as for any claim). The returned claim is held
// and renewed like one taken by ClaimPending.
//
// It declines (nil claim, nil error, nothing written) while this instance
// is not claiming (shutting down) or knows that pending runs may be waiting
// (backlog), so a local submission never overtakes older runs this
// instance would claim first; the caller then stores the run pending. An
// error means the write failed (it may still have committed: the row's
// lease then lapses and a peer re-runs it).
func (n *Node) InsertClaimed(ctx context.Context, rec history.RunRecord) (*Claim, error) {
	n.mu.Lock()
	ok := n.claiming && !n.backlog
	n.mu.Unlock()
	if !ok {
		return nil, nil
	}
	rec.Status = history.StatusRunning
	if err := n.cfg.Runs.Upsert(ctx, rec); err != nil {
		return nil, err
	}
	n.metrics.claimed.Inc()
	c, _ := n.hold(rec) // a new run id: never held already
	n.log.Info("claimed run", "run_id", rec.RunID, "attempt", rec.Attempt, "submitted_here", true)
	return c, nil
}

// NotePending records that a pending run may be waiting (this instance
// stored one, or requeued some) and wakes the claim loop: until a claim
// finds the queue drained, local submissions are stored pending too.
func (n *Node) NotePending() {
	n.mu.Lock()
	n.backlog = true
	n.noted++
	n.mu.Unlock()
	n.Kick()
}
