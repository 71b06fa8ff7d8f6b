package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// Claim is a run this instance claimed and holds: the handle its execution
// uses for every write to the run's row. Writes through one claim are
// serialized, and each is fenced on ownership in the database.
type Claim struct {
	node *Node
	// RunID is the claimed run.
	RunID string

	mu   sync.Mutex
	rec  history.RunRecord // the row's body as this instance last wrote it
	lost bool              // a renewal matched nothing: the run was reclaimed
	// finalizing: Finalize has started; renewals leave the claim alone (a
	// terminal write that committed but whose reply was lost would make a
	// renewal match nothing and look like a lost lease).
	finalizing bool
	done       bool // finalized (won or lost); no more writes
}

// Record returns a copy of the run's record as held (status running, the
// stored config, attempt, callback).
func (c *Claim) Record() history.RunRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rec.Clone()
}

// Lost reports whether the run's lease was lost.
func (c *Claim) Lost() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// hold registers a claimed record. When the run is already held here (it
// was reclaimed while this instance still executed it, and this instance
// claimed it again) the existing claim adopts the new body and fresh is
// false: the execution in progress continues and is the run's execution.
func (n *Node) hold(rec history.RunRecord) (c *Claim, fresh bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if old := n.held[rec.RunID]; old != nil {
		old.mu.Lock()
		if !old.lost && !old.done {
			started := old.rec.StartedAt
			old.rec = rec
			if old.rec.StartedAt == nil {
				old.rec.StartedAt = started
			}
			old.mu.Unlock()
			return old, false
		}
		old.mu.Unlock()
	}
	c = &Claim{node: n, RunID: rec.RunID, rec: rec}
	n.held[rec.RunID] = c
	return c, true
}

// release forgets c (only if it is still the held claim for its run).
func (n *Node) release(c *Claim) {
	n.mu.Lock()
	if n.held[c.RunID] == c {
		delete(n.held, c.RunID)
	}
	n.mu.Unlock()
}

// Held is the number of runs this instance holds.
func (n *Node) Held() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.held)
}

// loseLocked records (with c.mu held) that the run is no longer ours; it
// reports whether this call made it so, in which case the caller runs
// lost once c.mu is released (lock order: Node.mu before Claim.mu).
func (c *Claim) loseLocked() bool {
	if c.lost || c.done {
		return false
	}
	c.lost = true
	return true
}

// lost forgets a claim whose lease was lost and stops its execution.
func (n *Node) lost(c *Claim) {
	n.release(c)
	n.metrics.leasesLost.Inc()
	n.log.Warn("run lease lost: it was reclaimed by another instance; stopping the local execution", "run_id", c.RunID)
	n.exec.Stop(c, ErrLeaseLost)
}

// Abandon gives the run up without writing anything (the execution never
// started here, e.g. the claim raced a shutdown): renewals stop, the lease
// lapses and a peer reclaims the run.
func (c *Claim) Abandon() {
	c.mu.Lock()
	c.done = true
	c.mu.Unlock()
	c.node.release(c)
	c.node.log.Warn("giving up a claimed run without running it; its lease will lapse and another instance runs it", "run_id", c.RunID)
}

// MarkRunning records started_at with a fenced write (which also renews the
// lease). It returns ErrLeaseLost when the run is no longer ours; any other
// error is transient: the started_at is written with the next renewal.
func (c *Claim) MarkRunning(ctx context.Context, started time.Time) error {
	c.mu.Lock()
	if c.lost || c.done {
		c.mu.Unlock()
		return ErrLeaseLost
	}
	st := started.UTC()
	c.rec.Status = history.StatusRunning
	c.rec.StartedAt = &st
	won, err := c.node.store.FinalizeOwned(ctx, c.rec)
	lostNow := err == nil && !won && c.loseLocked()
	c.mu.Unlock()
	switch {
	case err != nil:
		return err
	case !won:
		if lostNow {
			c.node.lost(c)
		}
		return ErrLeaseLost
	}
	c.node.metrics.renewals.Inc()
	return nil
}

// renew rewrites every held run as running, fenced on ownership, which
// pushes its lease to now+ttl. A renewal that matches nothing means the run
// was reclaimed: its execution here is stopped.
func (n *Node) renew(ctx context.Context) {
	n.mu.Lock()
	claims := make([]*Claim, 0, len(n.held))
	for _, c := range n.held {
		claims = append(claims, c)
	}
	n.mu.Unlock()
	var firstErr error
	for _, c := range claims {
		// A claim busy with its own write (finalize) is renewed by it.
		if !c.mu.TryLock() {
			continue
		}
		if c.lost || c.done || c.finalizing {
			c.mu.Unlock()
			continue
		}
		won, err := n.store.FinalizeOwned(ctx, c.rec)
		lostNow := err == nil && !won && c.loseLocked()
		c.mu.Unlock()
		switch {
		case err != nil:
			if firstErr == nil {
				firstErr = err
			}
		case won:
			n.metrics.renewals.Inc()
		case lostNow:
			n.lost(c)
		}
	}
	n.warn.report(n.log, "renewing run leases", firstErr)
}

// Finalize writes the run's terminal record: apply sets the outcome on a
// copy of the held record, then FinalizeOwned writes it only if this
// instance still owns the run and it is not terminal. won is true for
// exactly one writer; a loser must discard its result (no metric, no
// callback). A failed write is retried (backoff up to the poll interval)
// until it succeeds or ctx ends. Meanwhile the claim is not renewed (a
// failed write may have committed, and a renewal would then look like a
// lost lease), so an outage longer than the lease lets a peer reclaim the
// run and this write then loses the fence. The record as written is
// returned.
func (c *Claim) Finalize(ctx context.Context, apply func(*history.RunRecord)) (rec history.RunRecord, won bool, err error) {
	n := c.node
	c.mu.Lock()
	rec = c.rec.Clone()
	if c.lost || c.done {
		c.done = true
		c.mu.Unlock()
		n.release(c)
		n.metrics.fenced.WithLabelValues("lease_lost").Inc()
		n.log.Warn("run was reclaimed by another instance; discarding result", "run_id", c.RunID)
		return rec, false, nil
	}
	c.finalizing = true
	c.mu.Unlock()
	apply(&rec)
	if rec.Status.IsTerminal() && rec.FinishedAt == nil {
		now := time.Now().UTC()
		rec.FinishedAt = &now
	}
	for attempt := 1; ; attempt++ {
		c.mu.Lock()
		if c.lost {
			c.done = true
			c.mu.Unlock()
			n.release(c)
			n.metrics.fenced.WithLabelValues("lease_lost").Inc()
			n.log.Warn("run was reclaimed by another instance; discarding result", "run_id", c.RunID)
			return rec, false, nil
		}
		won, err = n.store.FinalizeOwned(ctx, rec)
		if err == nil {
			c.done = true
		}
		c.mu.Unlock()
		if err == nil {
			n.release(c)
			if !won {
				// A write whose reply was lost may have committed: the
				// retry (ours, or the fallback's) then finds the row
				// terminal. Our own finished_at in the row says it was ours.
				won = n.wroteTerminal(ctx, rec)
			}
			if !won {
				n.metrics.fenced.WithLabelValues("database").Inc()
				n.log.Warn("run was reclaimed by another instance; discarding result", "run_id", c.RunID, "status", string(rec.Status))
			}
			return rec, won, nil
		}
		n.warn.report(n.log, "writing terminal run records", err)
		if werr := wait(ctx, backoff(attempt, n.cfg.PollInterval)); werr != nil {
			// Given up (the server is stopping for good): stop renewing so
			// the lease lapses and a peer re-runs it.
			c.mu.Lock()
			c.done = true
			c.mu.Unlock()
			n.release(c)
			return rec, false, err
		}
	}
}

// wroteTerminal reports whether the stored record is the terminal record
// rec (same status and the same finished_at, which this write chose). It
// reads until the store answers or ctx ends.
func (n *Node) wroteTerminal(ctx context.Context, rec history.RunRecord) bool {
	for attempt := 1; ; attempt++ {
		got, err := n.cfg.Runs.Get(ctx, rec.RunID)
		if err == nil {
			return got != nil && got.Status == rec.Status && got.FinishedAt != nil &&
				rec.FinishedAt != nil && got.FinishedAt.Equal(*rec.FinishedAt)
		}
		if wait(ctx, backoff(attempt, n.cfg.PollInterval)) != nil {
			return false
		}
	}
}

// backoff is 50 ms doubling, capped at max.
func backoff(attempt int, max time.Duration) time.Duration {
	d := 50 * time.Millisecond
	for i := 1; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
