package historytest

import (
	"encoding/json"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func u64(n uint64) *uint64 { return &n }

func init() {
	register("shards_lifecycle", func(e *env) {
		a, b := e.open("a"), e.open("b")
		parent := run("par", history.StatusSharded, base)
		parent.ConfigBody = sp("version: 1")
		ok(e.t, a.Upsert(e.ctx, parent))
		ins := []history.ShardInsert{
			{ShardID: "s1", Descriptor: json.RawMessage(`{"part":1}`), SizeEstimate: u64(10)},
			{ShardID: "s2", Descriptor: json.RawMessage(`{"part":2}`), SizeEstimate: u64(500)},
			{ShardID: "s3", Descriptor: json.RawMessage(`{"part":3}`)},
		}
		eq(e.t, "inserted", must(a.InsertShards(e.ctx, "par", ins))(e.t), 3)
		eq(e.t, "idempotent", must(b.InsertShards(e.ctx, "par", ins))(e.t), 0)
		p := must(a.ShardProgress(e.ctx, "par"))(e.t)
		eq(e.t, "progress", p, history.ShardProgress{Total: 3, Pending: 3})
		eq(e.t, "limit 0", len(must(a.ClaimShards(e.ctx, 0))(e.t)), 0)
		got := must(a.ClaimShards(e.ctx, 2))(e.t)
		eq(e.t, "claimed", len(got), 2)
		eq(e.t, "largest first", got[0].ShardID, "s2")
		eq(e.t, "then", got[1].ShardID, "s1")
		eq(e.t, "descriptor", string(got[0].Descriptor), `{"part":2}`)
		eq(e.t, "parent travels", *got[0].Run.ConfigBody, "version: 1")
		gb := must(b.ClaimShards(e.ctx, 5))(e.t)
		eq(e.t, "b gets the rest", len(gb), 1)
		eq(e.t, "renew", must(a.RenewShardLeases(e.ctx))(e.t), 2)
		eq(e.t, "not owner", must(b.FinalizeShard(e.ctx, "par", "s2", true))(e.t), false)
		eq(e.t, "owner", must(a.FinalizeShard(e.ctx, "par", "s2", true))(e.t), true)
		eq(e.t, "twice", must(a.FinalizeShard(e.ctx, "par", "s2", true))(e.t), false)
		ok(e.t, a.RequestCancel(e.ctx, "par"))
		sameStrings(e.t, "shard cancels", must(b.PendingShardCancellations(e.ctx))(e.t), []string{"par"})
		eq(e.t, "not all terminal yet", must(a.FinalizeCompletedShardedParents(e.ctx))(e.t), 0)
		// a's remaining shard lease lapses: requeue once, then fail.
		later := &Clock{}
		later.Advance(time.Hour)
		c := e.openClock("c", later)
		rep := must(c.ReclaimShards(e.ctx, 1))(e.t)
		eq(e.t, "requeued", rep, history.ReclaimReport{Requeued: 2})
		again := must(c.ClaimShards(e.ctx, 5))(e.t)
		eq(e.t, "reclaimable", len(again), 2)
		later.Advance(time.Hour)
		rep = must(c.ReclaimShards(e.ctx, 1))(e.t)
		eq(e.t, "poisoned", rep, history.ReclaimReport{Failed: 2})
		p = must(a.ShardProgress(e.ctx, "par"))(e.t)
		eq(e.t, "final progress", p, history.ShardProgress{Total: 3, Completed: 1, Failed: 2})
		eq(e.t, "all terminal", p.AllTerminal(), true)
		eq(e.t, "sweep finalizes", must(b.FinalizeCompletedShardedParents(e.ctx))(e.t), 1)
		eq(e.t, "sweep once", must(a.FinalizeCompletedShardedParents(e.ctx))(e.t), 0)
		rec := must(a.Get(e.ctx, "par"))(e.t)
		eq(e.t, "parent failed", rec.Status, history.StatusFailed)
		eq(e.t, "parent error", *rec.Error, history.ShardFailureError(2, 3))
		eq(e.t, "zero shards never terminal", history.ShardProgress{}.AllTerminal(), false)
	})

	register("renew_shard_lease_fenced", func(e *env) {
		a, b := e.open("a"), e.open("b")
		ok(e.t, a.Upsert(e.ctx, run("par", history.StatusSharded, base)))
		must(a.InsertShards(e.ctx, "par", []history.ShardInsert{{ShardID: "s1"}, {ShardID: "s2"}}))(e.t)
		eq(e.t, "pending shard", must(a.RenewShardLease(e.ctx, "par", "s1"))(e.t), false)
		eq(e.t, "claimed", len(must(a.ClaimShards(e.ctx, 1))(e.t)), 1)
		eq(e.t, "owner renews", must(a.RenewShardLease(e.ctx, "par", "s1"))(e.t), true)
		eq(e.t, "renewal is idempotent", must(a.RenewShardLease(e.ctx, "par", "s1"))(e.t), true)
		eq(e.t, "not owner", must(b.RenewShardLease(e.ctx, "par", "s1"))(e.t), false)
		eq(e.t, "missing", must(a.RenewShardLease(e.ctx, "par", "zz"))(e.t), false)
		// A renewed lease is not reclaimable until it lapses.
		eq(e.t, "live lease kept", must(b.ReclaimShards(e.ctx, 3))(e.t), history.ReclaimReport{})
		later := &Clock{}
		later.Advance(time.Hour)
		c := e.openClock("c", later)
		eq(e.t, "lapsed lease requeued", must(c.ReclaimShards(e.ctx, 3))(e.t), history.ReclaimReport{Requeued: 1})
		eq(e.t, "reclaimed shard", must(a.RenewShardLease(e.ctx, "par", "s1"))(e.t), false)
		must(a.FinalizeShard(e.ctx, "par", "s1", true))(e.t)
		eq(e.t, "c claims", len(must(c.ClaimShards(e.ctx, 5))(e.t)), 2)
		eq(e.t, "new owner renews", must(c.RenewShardLease(e.ctx, "par", "s1"))(e.t), true)
		eq(e.t, "old owner still refused", must(a.RenewShardLease(e.ctx, "par", "s1"))(e.t), false)
		must(c.FinalizeShard(e.ctx, "par", "s1", true))(e.t)
		eq(e.t, "terminal shard", must(c.RenewShardLease(e.ctx, "par", "s1"))(e.t), false)
	})

	register("finalize_sharded_parent_fenced", func(e *env) {
		a := e.open("a")
		ok(e.t, a.Upsert(e.ctx, run("r", history.StatusRunning, base)))
		eq(e.t, "not sharded", must(a.FinalizeShardedParent(e.ctx, "r", history.StatusCompleted, base, nil))(e.t), false)
		eq(e.t, "missing", must(a.FinalizeShardedParent(e.ctx, "zz", history.StatusCompleted, base, nil))(e.t), false)
		ok(e.t, a.Upsert(e.ctx, run("s", history.StatusSharded, base)))
		fin := base.Add(time.Minute)
		eq(e.t, "first", must(a.FinalizeShardedParent(e.ctx, "s", history.StatusFailed, fin, sp("1/2 shard(s) failed")))(e.t), true)
		eq(e.t, "second", must(a.FinalizeShardedParent(e.ctx, "s", history.StatusCompleted, fin, nil))(e.t), false)
		got := must(a.Get(e.ctx, "s"))(e.t)
		eq(e.t, "status", got.Status, history.StatusFailed)
		eq(e.t, "finished", got.FinishedAt.Equal(fin), true)
	})
}
