package cluster

import (
	"encoding/json"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func u64(v uint64) *uint64 { return &v }

// fourShards are the shards of the mode B tests: estimates 10, 40, 20 and
// unknown, so the claim order is s2, s3, s1, s4.
func fourShards() []history.ShardInsert {
	return []history.ShardInsert{
		{ShardID: "s1", Descriptor: json.RawMessage(`{"lo":0}`), SizeEstimate: u64(10)},
		{ShardID: "s2", Descriptor: json.RawMessage(`{"lo":10}`), SizeEstimate: u64(40)},
		{ShardID: "s3", Descriptor: json.RawMessage(`{"lo":50}`), SizeEstimate: u64(20)},
		{ShardID: "s4", Descriptor: json.RawMessage(`{"lo":70}`)},
	}
}

// expand submits one run, lets m claim it and expands it into fourShards.
func (e *env) expand(m *member) string {
	e.t.Helper()
	id := e.submit(m, 1)[0]
	m.node.poll(e.ctx, true)
	cs := m.exec.claims()
	if len(cs) != 1 {
		e.t.Fatalf("%s claimed %d runs, want 1", m.id, len(cs))
	}
	ok, err := cs[0].Expand(e.ctx, fourShards())
	if err != nil || !ok {
		e.t.Fatalf("expand: %v %v", ok, err)
	}
	return id
}

func (f *fakeExec) shardClaims() []*ShardClaim {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*ShardClaim(nil), f.shards...)
}

func (f *fakeExec) finishedRuns() []history.RunRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]history.RunRecord(nil), f.finished...)
}

func shardIDs(ss []*ShardClaim) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ShardID
	}
	return out
}

func TestShardedRunIsClaimedLargestFirstAndFinalizedOnce(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.member("a", 1, 3), e.member("b", 3, 3), e.member("c", 3, 3)
	id := e.expand(a)
	rec := e.get(a, id)
	if rec.Status != history.StatusSharded {
		t.Fatalf("parent status %s, want sharded", rec.Status)
	}
	if a.node.Held() != 0 {
		t.Fatal("the coordinator still holds the sharded parent (its renewal would write it back as running)")
	}
	a.node.renew(e.ctx) // nothing held: the parent stays sharded
	if st := e.get(a, id).Status; st != history.StatusSharded {
		t.Fatalf("parent after a renewal: %s", st)
	}
	b.node.poll(e.ctx, true)
	c.node.poll(e.ctx, true)
	a.node.poll(e.ctx, true) // a is full (its slot holds the parent's claim in the fake)
	if got := shardIDs(b.exec.shardClaims()); len(got) != 3 || got[0] != "s2" || got[1] != "s3" || got[2] != "s1" {
		t.Fatalf("b claimed %v, want [s2 s3 s1] (largest estimate first)", got)
	}
	if got := shardIDs(c.exec.shardClaims()); len(got) != 1 || got[0] != "s4" {
		t.Fatalf("c claimed %v, want [s4]", got)
	}
	if n := len(a.exec.shardClaims()); n != 0 {
		t.Fatalf("a full member claimed %d shards", n)
	}
	for _, s := range b.exec.shardClaims() {
		if s.RunID != id || s.Parent().RunID != id || len(s.Descriptor) == 0 {
			t.Fatalf("shard claim %+v", s)
		}
		if won, err := s.Finalize(e.ctx, true); !won || err != nil {
			t.Fatalf("finalize %s: %v %v", s.ShardID, won, err)
		}
	}
	if st := e.get(a, id).Status; st != history.StatusSharded {
		t.Fatalf("parent with a shard left: %s", st)
	}
	if won, err := c.exec.shardClaims()[0].Finalize(e.ctx, true); !won || err != nil {
		t.Fatalf("finalize s4: %v %v", won, err)
	}
	for _, m := range []*member{a, b, c} {
		m.node.sweepParents(e.ctx)
	}
	rec = e.get(a, id)
	if rec.Status != history.StatusCompleted || rec.FinishedAt == nil || rec.Error != nil {
		t.Fatalf("parent: %s finished=%v error=%v", rec.Status, rec.FinishedAt, rec.Error)
	}
	fin := len(a.exec.finishedRuns()) + len(b.exec.finishedRuns()) + len(c.exec.finishedRuns())
	if fin != 1 || len(c.exec.finishedRuns()) != 1 {
		t.Fatalf("parent finished %d times (c: %d); want once, by the last shard's owner", fin, len(c.exec.finishedRuns()))
	}
	if got := counterValue(b.node.metrics.shardsClaimed); got != 3 {
		t.Fatalf("b shards claimed metric %v", got)
	}
}

func TestOneFailedShardFailsTheParent(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 1, 3), e.member("b", 4, 3)
	id := e.expand(a)
	b.node.poll(e.ctx, true)
	for _, s := range b.exec.shardClaims() {
		if _, err := s.Finalize(e.ctx, s.ShardID != "s3"); err != nil {
			t.Fatal(err)
		}
	}
	rec := e.get(a, id)
	if rec.Status != history.StatusFailed || rec.Error == nil || *rec.Error != "1/4 shard(s) failed" {
		t.Fatalf("parent: %s %v", rec.Status, rec.Error)
	}
	if fin := b.exec.finishedRuns(); len(fin) != 1 || fin[0].Status != history.StatusFailed {
		t.Fatalf("finished: %+v", fin)
	}
}

func TestSweepFinalizesAParentWhoseLastShardOwnerDidNot(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 1, 3), e.member("b", 4, 3)
	id := e.expand(a)
	b.node.poll(e.ctx, true)
	// b writes the outcomes and dies before finalizing the parent.
	for _, s := range b.exec.shardClaims() {
		if won, err := b.store.FinalizeShard(e.ctx, id, s.ShardID, true); !won || err != nil {
			t.Fatal(won, err)
		}
	}
	a.node.sweepParents(e.ctx)
	a.node.sweepParents(e.ctx)
	if st := e.get(a, id).Status; st != history.StatusCompleted {
		t.Fatalf("parent after the sweep: %s", st)
	}
	if n := len(a.exec.finishedRuns()); n != 1 {
		t.Fatalf("sweeps finished the parent %d times", n)
	}
}

func TestCancelOfAShardedRunStopsItsShardsEverywhere(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.member("a", 1, 3), e.member("b", 2, 3), e.member("c", 5, 3)
	id := e.expand(a)
	b.node.poll(e.ctx, true)
	out, _, err := a.node.Cancel(e.ctx, id)
	if err != nil || out != CancelRequested {
		t.Fatalf("cancel: %v %v", out, err)
	}
	b.node.poll(e.ctx, true)
	c.node.poll(e.ctx, true) // claims the two pending shards and stops them in the same poll
	for _, m := range []*member{b, c} {
		ss := m.exec.shardClaims()
		if len(ss) != 2 {
			t.Fatalf("%s holds %d shards, want 2", m.id, len(ss))
		}
		for _, s := range ss {
			m.exec.mu.Lock()
			cause := m.exec.stoppedShards[s]
			m.exec.mu.Unlock()
			if !errors.Is(cause, ErrCancelRequested) {
				t.Fatalf("%s shard %s: stop cause %v", m.id, s.ShardID, cause)
			}
			if _, err := s.Finalize(e.ctx, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	rec := e.get(a, id)
	if rec.Status != history.StatusFailed || *rec.Error != "4/4 shard(s) failed" {
		t.Fatalf("cancelled parent: %s %v", rec.Status, rec.Error)
	}
}

func TestShardsTakeTheCapacityLeftAfterRuns(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 1, 3), e.member("b", 2, 3)
	e.expand(a)
	// A run submitted later is claimed before the older shards.
	later := history.NewQueuedRun("later", nil, nil, nil, a.clock.now().Add(time.Hour))
	later.Status = history.StatusPending
	body := "version: 1\n"
	later.ConfigBody = &body
	if err := a.store.Upsert(e.ctx, later); err != nil {
		t.Fatal(err)
	}
	b.node.poll(e.ctx, true)
	if cs := b.exec.claims(); len(cs) != 1 || cs[0].RunID != "later" {
		t.Fatalf("b claimed runs %v", claimIDs(cs))
	}
	if got := shardIDs(b.exec.shardClaims()); len(got) != 1 || got[0] != "s2" {
		t.Fatalf("b claimed shards %v, want [s2]", got)
	}
}

func TestResultOfAReclaimedShardIsFenced(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.member("a", 1, 3), e.member("b", 1, 3), e.member("c", 4, 3)
	id := e.expand(a)
	b.node.poll(e.ctx, true)
	zombie := b.exec.shardClaims()[0]
	c.clock.advance(ttl + time.Second)
	c.node.reclaimShards(e.ctx)
	c.node.poll(e.ctx, true)
	got := shardIDs(c.exec.shardClaims())
	sort.Strings(got)
	if len(got) != 4 {
		t.Fatalf("c claimed %v after the reclaim, want all four", got)
	}
	if won, err := zombie.Finalize(e.ctx, true); won || err != nil {
		t.Fatalf("the reclaimed shard's old owner won its write: %v %v", won, err)
	}
	for _, s := range c.exec.shardClaims() {
		if won, err := s.Finalize(e.ctx, s.ShardID != zombie.ShardID); !won || err != nil {
			t.Fatal(won, err)
		}
	}
	rec := e.get(a, id)
	if rec.Status != history.StatusFailed || *rec.Error != "1/4 shard(s) failed" {
		t.Fatalf("parent: %s %v (the new owner's failure must count, not the zombie's success)", rec.Status, rec.Error)
	}
	if got := counterValue(c.node.metrics.shardsReclaimed.WithLabelValues("requeued")); got != 1 {
		t.Fatalf("requeued metric %v", got)
	}
}

func TestShardRenewalKeepsItAndALostRenewalStopsTheZombie(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.member("a", 1, 3), e.member("b", 2, 3), e.member("c", 4, 3)
	id := e.expand(a)
	b.node.poll(e.ctx, true)
	held := b.exec.shardClaims()
	if len(held) != 2 {
		t.Fatalf("b holds %d shards", len(held))
	}
	// b gives one shard up (shutdown race): it is no longer renewed.
	abandoned, kept := held[0], held[1]
	abandoned.Abandon()
	b.clock.advance(ttl / 2)
	b.node.renewShards(e.ctx)
	c.clock.advance(ttl + time.Second) // past the claim-time leases, not the renewed one
	c.node.reclaimShards(e.ctx)
	if got := counterValue(c.node.metrics.shardsReclaimed.WithLabelValues("requeued")); got != 1 {
		t.Fatalf("requeued %v shards; want only the abandoned one", got)
	}
	// Now b pauses past its renewed lease: c reclaims the kept shard too,
	// and b's next renewal stops it.
	c.clock.advance(ttl)
	c.node.reclaimShards(e.ctx)
	b.node.renewShards(e.ctx)
	b.exec.mu.Lock()
	cause := b.exec.stoppedShards[kept]
	b.exec.mu.Unlock()
	if !errors.Is(cause, ErrLeaseLost) {
		t.Fatalf("zombie shard stop cause %v, want ErrLeaseLost", cause)
	}
	if b.node.HeldShards() != 0 {
		t.Fatalf("b still holds %d shards", b.node.HeldShards())
	}
	if won, err := kept.Finalize(e.ctx, true); won || err != nil {
		t.Fatalf("zombie result written: %v %v", won, err)
	}
	if got := counterValue(b.node.metrics.fenced.WithLabelValues("lease_lost")); got != 1 {
		t.Fatalf("lease_lost fenced %v", got)
	}
	if p, err := c.store.ShardProgress(e.ctx, id); err != nil || p.Completed != 0 || p.Pending+p.Running != 4 {
		t.Fatalf("progress after the zombie's write: %+v %v", p, err)
	}
}
