package cluster

import (
	"context"

	"github.com/faucet-hq/faucet/internal/history"
)

// CancelOutcome is what Cancel did.
type CancelOutcome int

const (
	// CancelledPending: the run was still pending and is now cancelled by
	// this instance's guarded write; the caller is its terminal writer
	// (metrics, callback).
	CancelledPending CancelOutcome = iota + 1
	// CancelRequested: the run's row carries the cancel flag; its owner
	// stops it within one poll interval (a no-op if it is already terminal).
	CancelRequested
)

// Cancel cancels a run that this instance does not execute. A pending run is
// cancelled at once (CancelPending, guarded on status='pending', so it loses
// cleanly to a concurrent claim); otherwise the cross-instance flag is set
// on the running row.
func (n *Node) Cancel(ctx context.Context, runID string) (CancelOutcome, *history.RunRecord, error) {
	won, err := n.store.CancelPending(ctx, runID)
	if err != nil {
		return 0, nil, err
	}
	if won {
		rec, err := n.cfg.Runs.Get(ctx, runID)
		return CancelledPending, rec, err
	}
	if err := n.store.RequestCancel(ctx, runID); err != nil {
		return 0, nil, err
	}
	// This instance's own shards of the run stop at once.
	n.mu.Lock()
	n.cancels = true
	n.mu.Unlock()
	n.Kick()
	return CancelRequested, nil, nil
}
