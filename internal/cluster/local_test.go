package cluster

import (
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// localRun is a run as a server submits it (before InsertClaimed marks it
// running).
func localRun(m *member, id string) history.RunRecord {
	body := "version: 1\n"
	rec := history.NewQueuedRun(id, nil, nil, nil, m.clock.now())
	rec.ConfigBody = &body
	started := m.clock.now()
	rec.StartedAt = &started
	return rec
}

// TestInsertClaimedIsOwnedAndNeverClaimable: a run inserted already claimed
// is running, owned by the inserting member, with its started_at; a peer's
// claim never takes it; its owner's fenced terminal write wins once.
func TestInsertClaimedIsOwnedAndNeverClaimable(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 2, 3), e.member("b", 2, 3)
	a.node.poll(e.ctx, true) // nothing pending: the backlog is known empty
	c, err := a.node.InsertClaimed(e.ctx, localRun(a, "local-1"))
	if err != nil || c == nil {
		t.Fatalf("InsertClaimed: %v %v", c, err)
	}
	rec := e.get(a, "local-1")
	if rec.Status != history.StatusRunning || rec.StartedAt == nil || a.node.Held() != 1 {
		t.Fatalf("inserted claimed: status %s, started_at %v, held %d", rec.Status, rec.StartedAt, a.node.Held())
	}
	b.node.poll(e.ctx, true)
	if n := len(b.exec.claims()); n != 0 {
		t.Fatalf("a peer claimed %d runs; the run was never pending", n)
	}
	if got := counterValue(a.node.metrics.claimed); got != 1 {
		t.Fatalf("claimed counter = %v, want 1", got)
	}
	_, won, err := c.Finalize(e.ctx, complete)
	if err != nil || !won {
		t.Fatalf("owner's terminal write: won=%v err=%v", won, err)
	}
	if st := e.get(a, "local-1").Status; st != history.StatusCompleted {
		t.Fatalf("status %s, want completed", st)
	}
}

// TestInsertClaimedLapsesLikeAnyClaim: an inserted claim that its owner
// stops renewing is requeued by a peer after the ttl and run there; the
// first owner's result is then fenced.
func TestInsertClaimedLapsesLikeAnyClaim(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 2, 3), e.member("b", 2, 3)
	a.node.poll(e.ctx, true)
	c, err := a.node.InsertClaimed(e.ctx, localRun(a, "local-1"))
	if err != nil || c == nil {
		t.Fatalf("InsertClaimed: %v %v", c, err)
	}
	b.clock.advance(ttl + time.Second)
	b.node.reclaim(e.ctx)
	b.node.poll(e.ctx, true)
	got := b.exec.claims()
	if len(got) != 1 || got[0].RunID != "local-1" || got[0].Record().Attempt != 1 {
		t.Fatalf("peer claims after the lapse: %v", claimIDs(got))
	}
	if _, won, err := c.Finalize(e.ctx, complete); err != nil || won {
		t.Fatalf("the first owner's result must be fenced: won=%v err=%v", won, err)
	}
}

// TestInsertClaimedDeclinesBehindPendingRuns: while pending runs may be
// waiting (a claim took all it asked for, or a pending run was noted), a
// local submission is not claimed at once; once a claim drains the queue it
// is again. A member that stopped claiming always declines.
func TestInsertClaimedDeclinesBehindPendingRuns(t *testing.T) {
	e := newEnv(t)
	a := e.member("a", 2, 3)
	if c, err := a.node.InsertClaimed(e.ctx, localRun(a, "early")); c != nil || err != nil {
		t.Fatalf("before any claim the backlog is unknown: %v %v", c, err)
	}
	e.submit(a, 3)
	a.node.poll(e.ctx, true) // takes 2 of 3: more may be pending
	if c, err := a.node.InsertClaimed(e.ctx, localRun(a, "behind")); c != nil || err != nil {
		t.Fatalf("claimed at once behind pending runs: %v %v", c, err)
	}
	if rec, _ := a.store.Get(e.ctx, "behind"); rec != nil {
		t.Fatalf("a declined insert wrote %v", rec.Status)
	}
	a.exec.capacity = 10
	a.node.poll(e.ctx, false) // a kick with a backlog claims: takes the last one
	if n := len(a.exec.claims()); n != 3 {
		t.Fatalf("claimed %d of 3 pending runs", n)
	}
	if c, err := a.node.InsertClaimed(e.ctx, localRun(a, "after")); c == nil || err != nil {
		t.Fatalf("queue drained, yet declined: %v %v", c, err)
	}
	a.node.NotePending()
	if c, _ := a.node.InsertClaimed(e.ctx, localRun(a, "noted")); c != nil {
		t.Fatal("claimed at once right after a pending run was noted")
	}
	a.node.poll(e.ctx, false)
	a.node.StopClaiming()
	if c, _ := a.node.InsertClaimed(e.ctx, localRun(a, "stopped")); c != nil {
		t.Fatal("a member that stopped claiming claimed at once")
	}
}
