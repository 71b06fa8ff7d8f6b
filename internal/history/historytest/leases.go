package historytest

import (
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func init() {
	register("finalize_owned_fencing", func(e *env) {
		a, b := e.open("a"), e.open("b")
		ok(e.t, a.Upsert(e.ctx, run("r1", history.StatusRunning, base)))
		done := run("r1", history.StatusCompleted, base)
		eq(e.t, "stale owner refused", must(b.FinalizeOwned(e.ctx, done))(e.t), false)
		eq(e.t, "owner wins", must(a.FinalizeOwned(e.ctx, done))(e.t), true)
		got := must(a.Get(e.ctx, "r1"))(e.t)
		eq(e.t, "status", got.Status, history.StatusCompleted)
		if got.FinishedAt == nil {
			e.t.Fatal("terminal finalize must stamp finished_at")
		}
		failed := run("r1", history.StatusFailed, base)
		eq(e.t, "already terminal refused", must(a.FinalizeOwned(e.ctx, failed))(e.t), false)
		eq(e.t, "first finalizer kept", must(a.Get(e.ctx, "r1"))(e.t).Status, history.StatusCompleted)
	})

	register("recover_orphans_respects_leases", func(e *env) {
		a := e.open("a")
		later := &Clock{}
		later.Advance(time.Hour)
		b := e.openClock("b", later)
		r := run("r1", history.StatusRunning, base)
		st := base
		r.StartedAt = &st
		ok(e.t, a.Upsert(e.ctx, r))
		ok(e.t, a.Upsert(e.ctx, run("q1", history.StatusQueued, base)))
		ok(e.t, a.Upsert(e.ctx, run("p1", history.StatusPending, base)))
		eq(e.t, "live leases untouched", must(a.RecoverOrphans(e.ctx))(e.t), 0)
		eq(e.t, "renewed", must(a.RenewLeases(e.ctx))(e.t), 2)
		eq(e.t, "expired recovered", must(b.RecoverOrphans(e.ctx))(e.t), 2)
		got := must(b.Get(e.ctx, "r1"))(e.t)
		eq(e.t, "failed", got.Status, history.StatusFailed)
		eq(e.t, "error", *got.Error, history.OrphanLeaseExpiredError)
		if got.FinishedAt == nil || got.ElapsedSecs == nil {
			e.t.Fatal("orphan failure must set finished_at and elapsed")
		}
		eq(e.t, "pending untouched", must(b.Get(e.ctx, "p1"))(e.t).Status, history.StatusPending)
	})

	register("claim_pending_basic", func(e *env) {
		a := e.open("a")
		eq(e.t, "limit 0", len(must(a.ClaimPending(e.ctx, 0))(e.t)), 0)
		for i := 0; i < 5; i++ {
			ok(e.t, a.Upsert(e.ctx, run(fmt.Sprintf("p%d", i), history.StatusPending, base.Add(time.Duration(5-i)*time.Second))))
		}
		got := must(a.ClaimPending(e.ctx, 2))(e.t)
		sameStrings(e.t, "oldest first", ids(got), []string{"p4", "p3"})
		eq(e.t, "returned running", got[0].Status, history.StatusRunning)
		eq(e.t, "body rewritten", must(a.Get(e.ctx, "p4"))(e.t).Status, history.StatusRunning)
		eq(e.t, "rest", len(must(a.ClaimPending(e.ctx, 10))(e.t)), 3)
		eq(e.t, "none left", len(must(a.ClaimPending(e.ctx, 10))(e.t)), 0)
	})

	register("reclaim_orphans_requeue_then_poison", func(e *env) {
		a := e.open("a")
		later := &Clock{}
		b := e.openClock("b", later)
		r := run("r1", history.StatusPending, base)
		st := base
		r.StartedAt = &st
		ok(e.t, a.Upsert(e.ctx, r))
		must(a.ClaimPending(e.ctx, 1))(e.t)
		ok(e.t, b.RequestCancel(e.ctx, "r1"))
		eq(e.t, "live lease not reclaimed", must(b.ReclaimOrphans(e.ctx, 2))(e.t), history.ReclaimReport{})
		for attempt := uint32(1); attempt <= 2; attempt++ {
			later.Advance(time.Hour)
			eq(e.t, "requeued", must(b.ReclaimOrphans(e.ctx, 2))(e.t), history.ReclaimReport{Requeued: 1})
			got := must(b.Get(e.ctx, "r1"))(e.t)
			eq(e.t, "pending", got.Status, history.StatusPending)
			eq(e.t, "attempt", got.Attempt, attempt)
			claimed := must(b.ClaimPending(e.ctx, 1))(e.t)
			eq(e.t, "reclaimed run claimable", len(claimed), 1)
			// The cancel requested before the requeue survives it (#321 M7).
			sameStrings(e.t, "cancel survives requeue", must(b.PendingCancellations(e.ctx))(e.t), []string{"r1"})
		}
		later.Advance(time.Hour)
		eq(e.t, "poisoned", must(b.ReclaimOrphans(e.ctx, 2))(e.t), history.ReclaimReport{Failed: 1})
		got := must(b.Get(e.ctx, "r1"))(e.t)
		eq(e.t, "failed", got.Status, history.StatusFailed)
		eq(e.t, "attempt", got.Attempt, uint32(3))
		eq(e.t, "reason", *got.Error, history.PoisonError(3))
		if got.FinishedAt == nil {
			e.t.Fatal("poison must set finished_at")
		}
		eq(e.t, "nothing left", must(b.ReclaimOrphans(e.ctx, 2))(e.t), history.ReclaimReport{})
	})

	register("cancel_pending_and_requests", func(e *env) {
		a, b := e.open("a"), e.open("b")
		ok(e.t, a.Upsert(e.ctx, run("p", history.StatusPending, base)))
		ok(e.t, a.Upsert(e.ctx, run("q", history.StatusQueued, base)))
		eq(e.t, "cancel pending", must(b.CancelPending(e.ctx, "p"))(e.t), true)
		got := must(a.Get(e.ctx, "p"))(e.t)
		eq(e.t, "cancelled", got.Status, history.StatusCancelled)
		if got.FinishedAt == nil {
			e.t.Fatal("cancel must stamp finished_at")
		}
		eq(e.t, "again", must(b.CancelPending(e.ctx, "p"))(e.t), false)
		eq(e.t, "not pending", must(b.CancelPending(e.ctx, "q"))(e.t), false)
		eq(e.t, "missing", must(b.CancelPending(e.ctx, "zz"))(e.t), false)
		ok(e.t, a.Upsert(e.ctx, run("r", history.StatusRunning, base)))
		ok(e.t, b.Upsert(e.ctx, run("rb", history.StatusRunning, base)))
		ok(e.t, b.RequestCancel(e.ctx, "r"))
		ok(e.t, b.RequestCancel(e.ctx, "q")) // queued: silently ignored
		sameStrings(e.t, "owner sees request", must(a.PendingCancellations(e.ctx))(e.t), []string{"r"})
		eq(e.t, "other instance sees none", len(must(b.PendingCancellations(e.ctx))(e.t)), 0)
	})

	register("membership_heartbeats", func(e *env) {
		a, b := e.open("a"), e.open("b")
		ok(e.t, a.HeartbeatInstance(e.ctx, history.InstanceHeartbeat{StartedAt: base, Listen: sp(":8080"), MaxConcurrent: 4, InFlight: 1, StateFormat: 3}))
		ok(e.t, b.HeartbeatInstance(e.ctx, history.InstanceHeartbeat{StartedAt: base, MaxConcurrent: 2, StateFormat: 2}))
		ok(e.t, a.HeartbeatInstance(e.ctx, history.InstanceHeartbeat{StartedAt: base.Add(time.Hour), Listen: sp(":8080"), MaxConcurrent: 4, InFlight: 3, StateFormat: 3}))
		live := must(a.LiveInstances(e.ctx, time.Minute))(e.t)
		eq(e.t, "members", len(live), 2)
		var ra history.InstanceRecord
		for _, m := range live {
			if m.InstanceID == "a" {
				ra = m
			}
		}
		eq(e.t, "started kept", ra.StartedAt.Equal(base), true)
		eq(e.t, "in flight", ra.InFlight, uint32(3))
		eq(e.t, "format", ra.StateFormat, uint32(3))
		eq(e.t, "cluster format", history.ClusterStateFormat(live, 9), uint32(2))
		e.clk.Advance(5 * time.Minute)
		eq(e.t, "stale members gone", len(must(a.LiveInstances(e.ctx, time.Minute))(e.t)), 0)
	})
}
