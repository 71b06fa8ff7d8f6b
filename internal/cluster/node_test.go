package cluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// The protocol tests run real nodes against one shared SQLite file (each
// node's store stamps its own instance id); every store has its own clock so
// a test can let a lease lapse without sleeping. Loops are not started: the
// tests drive poll, renew and reclaim themselves.

const ttl = 30 * time.Second

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeExec records what the node asks of the server.
type fakeExec struct {
	mu       sync.Mutex
	capacity int
	started  []*Claim
	stopped  map[*Claim]error

	shards        []*ShardClaim
	stoppedShards map[*ShardClaim]error
	finished      []history.RunRecord
}

func newExec(capacity int) *fakeExec {
	return &fakeExec{capacity: capacity, stopped: map[*Claim]error{}, stoppedShards: map[*ShardClaim]error{}}
}

func (e *fakeExec) Free() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.capacity - len(e.started) - len(e.shards)
}

func (e *fakeExec) InFlight() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.started)
}

func (e *fakeExec) Start(c *Claim) {
	e.mu.Lock()
	e.started = append(e.started, c)
	e.mu.Unlock()
}

func (e *fakeExec) Stop(c *Claim, cause error) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopped[c] = cause
	return true
}

func (e *fakeExec) StartShard(s *ShardClaim) {
	e.mu.Lock()
	e.shards = append(e.shards, s)
	e.mu.Unlock()
}

func (e *fakeExec) StopShard(s *ShardClaim, cause error) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stoppedShards[s] = cause
	return true
}

func (e *fakeExec) ParentFinished(rec history.RunRecord) {
	e.mu.Lock()
	e.finished = append(e.finished, rec)
	e.mu.Unlock()
}

func (e *fakeExec) claims() []*Claim {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*Claim(nil), e.started...)
}

func (e *fakeExec) stopCause(c *Claim) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopped[c]
}

type env struct {
	t    *testing.T
	ctx  context.Context
	path string
}

func newEnv(t *testing.T) *env {
	return &env{t: t, ctx: context.Background(), path: "sqlite:" + filepath.Join(t.TempDir(), "history.db")}
}

type member struct {
	id    string
	store *sqlstore.Store
	clock *clock
	exec  *fakeExec
	node  *Node
}

func (e *env) member(id string, capacity int, maxAttempts uint32) *member {
	e.t.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st, err := sqlstore.OpenOptions(e.ctx, e.path, history.Options{InstanceID: id, LeaseTTL: ttl, Now: c.now})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	ex := newExec(capacity)
	n, err := New(Config{Store: st, Runs: st, InstanceID: id, Listen: id + ":8080", Capacity: capacity,
		PollInterval: 10 * time.Millisecond, LeaseTTL: ttl, MaxAttempts: maxAttempts}, ex)
	if err != nil {
		e.t.Fatal(err)
	}
	return &member{id: id, store: st, clock: c, exec: ex, node: n}
}

func (e *env) submit(m *member, n int) []string {
	e.t.Helper()
	var ids []string
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("run-%03d", i)
		body := "version: 1\n"
		rec := history.NewQueuedRun(id, nil, nil, nil, m.clock.now().Add(time.Duration(i)*time.Millisecond))
		rec.Status = history.StatusPending
		rec.ConfigBody = &body
		if err := m.store.Upsert(e.ctx, rec); err != nil {
			e.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func (e *env) get(m *member, id string) *history.RunRecord {
	e.t.Helper()
	rec, err := m.store.Get(e.ctx, id)
	if err != nil || rec == nil {
		e.t.Fatalf("get %s: %v %v", id, rec, err)
	}
	return rec
}

func complete(rec *history.RunRecord) {
	rec.Status = history.StatusCompleted
	rec.RecordsWritten = 3
}

func TestClaimsAreExclusiveUnderConcurrentPolls(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.member("a", 40, 3), e.member("b", 40, 3), e.member("c", 40, 3)
	ids := e.submit(a, 60)
	var wg sync.WaitGroup
	for _, m := range []*member{a, b, c} {
		wg.Add(1)
		go func(m *member) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				m.node.poll(e.ctx, true)
			}
		}(m)
	}
	wg.Wait()
	seen := map[string]string{}
	for _, m := range []*member{a, b, c} {
		for _, cl := range m.exec.claims() {
			if prev, dup := seen[cl.RunID]; dup {
				t.Fatalf("run %s claimed by %s and %s", cl.RunID, prev, m.id)
			}
			seen[cl.RunID] = m.id
		}
	}
	if len(seen) != len(ids) {
		t.Fatalf("claimed %d of %d runs", len(seen), len(ids))
	}
	for _, id := range ids {
		if st := e.get(a, id).Status; st != history.StatusRunning {
			t.Fatalf("%s: status %s after the claim, want running", id, st)
		}
	}
}

func TestClaimTakesOldestFirstUpToFreeCapacity(t *testing.T) {
	e := newEnv(t)
	a := e.member("a", 2, 3)
	e.submit(a, 5)
	a.node.poll(e.ctx, true)
	got := a.exec.claims()
	if len(got) != 2 || got[0].RunID != "run-000" || got[1].RunID != "run-001" {
		t.Fatalf("claimed %v, want run-000 and run-001", claimIDs(got))
	}
	a.node.StopClaiming()
	a.exec.capacity = 10
	a.node.poll(e.ctx, true)
	if n := len(a.exec.claims()); n != 2 {
		t.Fatalf("a stopped member claimed %d runs", n-2)
	}
}

func claimIDs(cs []*Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.RunID
	}
	return out
}

func TestRenewalKeepsAPeerFromReclaiming(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 4, 3), e.member("b", 4, 3)
	e.submit(a, 1)
	a.node.poll(e.ctx, true)
	// Two thirds of the ttl later the owner renews; a peer a little past the
	// original lease must not reclaim it.
	a.clock.advance(20 * time.Second)
	a.node.renew(e.ctx)
	b.clock.advance(ttl + time.Second)
	b.node.reclaim(e.ctx)
	if st := e.get(a, "run-000").Status; st != history.StatusRunning {
		t.Fatalf("a renewed run was reclaimed: %s", st)
	}
	if got := counterValue(a.node.metrics.renewals); got != 1 {
		t.Fatalf("renewals = %v", got)
	}
}

// TestZombieResultIsFenced is the pause scenario: the owner stops renewing,
// a peer requeues and re-runs the run; the old owner's late result is
// refused by the fenced terminal write and only the new owner's is kept.
func TestZombieResultIsFenced(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 4, 3), e.member("b", 4, 3)
	e.submit(a, 1)
	a.node.poll(e.ctx, true)
	ca := a.exec.claims()[0]
	if err := ca.MarkRunning(e.ctx, a.clock.now()); err != nil {
		t.Fatal(err)
	}
	b.clock.advance(ttl + time.Second)
	b.node.reclaim(e.ctx)
	rec := e.get(b, "run-000")
	if rec.Status != history.StatusPending || rec.Attempt != 1 {
		t.Fatalf("after the reclaim: %s attempt %d, want pending attempt 1", rec.Status, rec.Attempt)
	}
	b.node.poll(e.ctx, true)
	cb := b.exec.claims()[0]

	_, won, err := ca.Finalize(e.ctx, complete)
	if err != nil || won {
		t.Fatalf("the zombie's terminal write must lose: won=%v err=%v", won, err)
	}
	if got := counterValue(a.node.metrics.fenced.WithLabelValues("database")); got != 1 {
		t.Fatalf("fenced writes (database) = %v", got)
	}
	if st := e.get(a, "run-000").Status; st != history.StatusRunning {
		t.Fatalf("the zombie's result reached the row: %s", st)
	}
	final, won, err := cb.Finalize(e.ctx, complete)
	if err != nil || !won {
		t.Fatalf("the owner's terminal write must win: won=%v err=%v", won, err)
	}
	got := e.get(a, "run-000")
	if got.Status != history.StatusCompleted || got.Attempt != 1 || !got.FinishedAt.Equal(*final.FinishedAt) {
		t.Fatalf("stored %+v", got)
	}
	if _, won, _ := cb.Finalize(e.ctx, complete); won {
		t.Fatal("a second finalize of the same claim must not win")
	}
}

// TestLostRenewalStopsTheZombie: the old owner's renewal matches nothing,
// so it stops its execution and discards the result without writing.
func TestLostRenewalStopsTheZombie(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 4, 3), e.member("b", 4, 3)
	e.submit(a, 1)
	a.node.poll(e.ctx, true)
	ca := a.exec.claims()[0]
	b.clock.advance(ttl + time.Second)
	b.node.reclaim(e.ctx)
	b.node.poll(e.ctx, true)

	a.node.renew(e.ctx)
	if !errors.Is(a.exec.stopCause(ca), ErrLeaseLost) || !ca.Lost() {
		t.Fatalf("the zombie must be stopped with ErrLeaseLost (got %v)", a.exec.stopCause(ca))
	}
	if a.node.Held() != 0 {
		t.Fatal("a lost claim is no longer held")
	}
	if _, won, err := ca.Finalize(e.ctx, complete); won || err != nil {
		t.Fatalf("lost claim finalize: won=%v err=%v", won, err)
	}
	if got := counterValue(a.node.metrics.fenced.WithLabelValues("lease_lost")); got != 1 {
		t.Fatalf("fenced writes (lease_lost) = %v", got)
	}
	if err := ca.MarkRunning(e.ctx, a.clock.now()); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("MarkRunning on a lost claim: %v", err)
	}
}

// TestReclaimOfARunStillExecutingHereIsAdopted: a member that claims again a
// run it still executes keeps the execution (one execution, one terminal
// write) instead of starting a second one.
func TestReclaimOfARunStillExecutingHereIsAdopted(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 4, 3), e.member("b", 0, 3)
	e.submit(a, 1)
	a.node.poll(e.ctx, true)
	b.clock.advance(ttl + time.Second)
	b.node.reclaim(e.ctx)
	a.node.poll(e.ctx, true)
	if n := len(a.exec.claims()); n != 1 {
		t.Fatalf("started %d executions, want 1", n)
	}
	c := a.exec.claims()[0]
	if c.Record().Attempt != 1 {
		t.Fatalf("the adopted claim carries attempt %d, want 1", c.Record().Attempt)
	}
	if _, won, err := c.Finalize(e.ctx, complete); !won || err != nil {
		t.Fatalf("won=%v err=%v", won, err)
	}
	if rec := e.get(a, "run-000"); rec.Status != history.StatusCompleted || rec.Attempt != 1 {
		t.Fatalf("stored %s attempt %d", rec.Status, rec.Attempt)
	}
}

func TestPoisonRunIsFailedAfterMaxAttempts(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 4, 2), e.member("b", 4, 2)
	e.submit(a, 1)
	for attempt := 0; attempt <= 2; attempt++ {
		a.node.poll(e.ctx, true)
		if n := len(a.exec.claims()); n != 1 {
			t.Fatalf("attempt %d: claimed %d", attempt, n)
		}
		// The owner dies: its lease lapses, the peer reclaims.
		a.exec.started = nil
		a.node.held = map[string]*Claim{}
		b.clock.advance(ttl + time.Second)
		a.clock.advance(ttl + time.Second)
		b.node.reclaim(e.ctx)
	}
	rec := e.get(a, "run-000")
	if rec.Status != history.StatusFailed || rec.Error == nil || *rec.Error != history.PoisonError(3) || rec.FinishedAt == nil {
		t.Fatalf("poison run: %+v", rec)
	}
	if got := counterValue(b.node.metrics.reclaimed.WithLabelValues("failed")); got != 1 {
		t.Fatalf("reclaimed{failed} = %v", got)
	}
	if got := counterValue(b.node.metrics.reclaimed.WithLabelValues("requeued")); got != 2 {
		t.Fatalf("reclaimed{requeued} = %v", got)
	}
}

func TestCrossInstanceCancel(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 1, 3), e.member("b", 0, 3)
	e.submit(a, 2)
	a.node.poll(e.ctx, true)
	running := a.exec.claims()[0]
	out, _, err := b.node.Cancel(e.ctx, running.RunID)
	if err != nil || out != CancelRequested {
		t.Fatalf("cancel of a running run: %v %v", out, err)
	}
	a.node.poll(e.ctx, true)
	if !errors.Is(a.exec.stopCause(running), ErrCancelRequested) {
		t.Fatalf("the owner must stop the run on its next poll (got %v)", a.exec.stopCause(running))
	}
	out, rec, err := b.node.Cancel(e.ctx, "run-001")
	if err != nil || out != CancelledPending || rec == nil || rec.Status != history.StatusCancelled {
		t.Fatalf("cancel of a pending run: %v %+v %v", out, rec, err)
	}
	if _, won, err := running.Finalize(e.ctx, func(r *history.RunRecord) { r.Status = history.StatusCancelled }); !won || err != nil {
		t.Fatalf("the owner writes the cancelled state: won=%v err=%v", won, err)
	}
}

// TestCancelFlagSurvivesARequeue (#321 M7): a cancel requested before the
// owner died is honoured by the next owner.
func TestCancelFlagSurvivesARequeue(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 1, 3), e.member("b", 1, 3)
	e.submit(a, 1)
	a.node.poll(e.ctx, true)
	if _, _, err := b.node.Cancel(e.ctx, "run-000"); err != nil {
		t.Fatal(err)
	}
	b.clock.advance(ttl + time.Second)
	b.node.reclaim(e.ctx)
	b.node.poll(e.ctx, true) // claims
	b.node.poll(e.ctx, true) // sees the flag
	c := b.exec.claims()[0]
	if !errors.Is(b.exec.stopCause(c), ErrCancelRequested) {
		t.Fatalf("the new owner must honour the cancel: %v", b.exec.stopCause(c))
	}
}

// lostReply commits FinalizeOwned and then answers as a retry after a lost
// reply would: the second, identical write matches nothing.
type lostReply struct{ Store }

func (l lostReply) FinalizeOwned(ctx context.Context, rec history.RunRecord) (bool, error) {
	if _, err := l.Store.FinalizeOwned(ctx, rec); err != nil {
		return false, err
	}
	return l.Store.FinalizeOwned(ctx, rec)
}

func TestTerminalWriteWhoseReplyWasLostCountsAsWon(t *testing.T) {
	e := newEnv(t)
	a := e.member("a", 1, 3)
	e.submit(a, 1)
	a.node.poll(e.ctx, true)
	c := a.exec.claims()[0]
	a.node.store = lostReply{a.store}
	_, won, err := c.Finalize(e.ctx, complete)
	if err != nil || !won {
		t.Fatalf("a committed terminal write is ours even when its reply was lost: won=%v err=%v", won, err)
	}
	if got := counterValue(a.node.metrics.fenced.WithLabelValues("database")); got != 0 {
		t.Fatalf("fenced = %v", got)
	}
}

func TestMembershipAndEffectiveStateFormat(t *testing.T) {
	e := newEnv(t)
	a, b := e.member("a", 3, 3), e.member("b", 5, 3)
	b.node.heartbeat(e.ctx)
	a.node.heartbeat(e.ctx)
	st := a.node.Status()
	if len(st.Instances) != 2 || st.InstanceID != "a" {
		t.Fatalf("members: %+v", st)
	}
	byID := map[string]Member{}
	for _, m := range st.Instances {
		byID[m.InstanceID] = m
	}
	if !byID["a"].Self || byID["b"].Self || byID["b"].MaxConcurrent != 5 || *byID["b"].Listen != "b:8080" {
		t.Fatalf("members: %+v", byID)
	}
	if a.node.EffectiveStateFormat() != StateFormat || a.node.LegacyStateWrites() {
		t.Fatal("same-build members agree on this build's state format")
	}
	// A member that predates the capability (no caps row) reads format 0.
	old := e.member("old", 1, 3)
	if err := old.store.HeartbeatInstance(e.ctx, history.InstanceHeartbeat{StartedAt: old.clock.now(), StateFormat: 0}); err != nil {
		t.Fatal(err)
	}
	a.node.heartbeat(e.ctx)
	if a.node.EffectiveStateFormat() != 0 || !a.node.LegacyStateWrites() {
		t.Fatalf("effective state format %d with an older member", a.node.EffectiveStateFormat())
	}
	// A member that stopped heartbeating leaves the live set.
	a.clock.advance(a.node.MemberWindow() + time.Second)
	a.node.heartbeat(e.ctx)
	ids := []string{}
	for _, m := range a.node.Members() {
		ids = append(ids, m.InstanceID)
	}
	sort.Strings(ids)
	if len(ids) != 1 || ids[0] != "a" {
		t.Fatalf("live set after the others went quiet: %v", ids)
	}
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}
