package cluster

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// Defaults of the cluster flags.
const (
	DefaultPollInterval = 2 * time.Second
	DefaultMaxAttempts  = 3
	DefaultLeaseTTL     = 30 * time.Second
)

// StateFormat is the newest state (bookmark) format this build reads and
// heartbeats (#736): 1 = a bare bookmark or the exactly-once envelope
// {"__faucet_eo":1,"bookmark":...,"seq":N}. Members that predate the
// capability read as 0.
const StateFormat uint32 = 1

// Causes passed to Executor.Stop.
var (
	// ErrCancelRequested: a cancel for the run was requested on another
	// instance (cancel_requested is set on its row).
	ErrCancelRequested = errors.New("cancel requested on another instance")
	// ErrLeaseLost: the run's lease was taken over (it was reclaimed); the
	// local execution is a zombie and its result will be discarded.
	ErrLeaseLost = errors.New("run lease lost: reclaimed by another instance")
)

// Executor runs the runs this instance claims (implemented by the server).
type Executor interface {
	// Free is how many more runs this instance can start now (0 while it
	// is shutting down).
	Free() int
	// InFlight is how many runs are executing here (heartbeated).
	InFlight() int
	// Start executes a run this instance has just claimed. The execution
	// reports back through c (MarkRunning, Finalize); it must not block.
	Start(c *Claim)
	// Stop cancels the execution of claim c with cause (ErrCancelRequested
	// or ErrLeaseLost); false when no execution holds c.
	Stop(c *Claim, cause error) bool
	// StartShard executes a shard this instance has just claimed (mode B);
	// it reports back through s.Finalize and must not block.
	StartShard(s *ShardClaim)
	// StopShard cancels the execution of shard s with cause
	// (ErrCancelRequested); false when no execution holds s.
	StopShard(s *ShardClaim, cause error) bool
	// ParentFinished is called once per sharded run, on the instance whose
	// status-fenced write finalized it, with the terminal record (metrics,
	// completion callback).
	ParentFinished(rec history.RunRecord)
}

// Config configures a Node.
type Config struct {
	// Store is the shared run history. It must never serve these calls
	// from memory (use fallback.Store.Strict): every call reaches the
	// database or fails.
	Store Store
	// Runs reads records back (verification of a terminal write whose
	// reply was lost, the sharded runs to sweep). Usually the same store.
	Runs interface {
		Get(ctx context.Context, runID string) (*history.RunRecord, error)
		List(ctx context.Context, f history.ListFilter) (history.ListPage, error)
		// Upsert inserts a run submitted here already claimed
		// (InsertClaimed); the store stamps owner and lease.
		Upsert(ctx context.Context, rec history.RunRecord) error
	}
	// InstanceID is the id the store stamps as owner (for display).
	InstanceID string
	// Listen is the address heartbeated into the membership table.
	Listen string
	// Capacity is --max-concurrent-runs (heartbeated).
	Capacity int
	// PollInterval is --cluster-poll-secs (default 2 s).
	PollInterval time.Duration
	// LeaseTTL is --lease-ttl-secs (default 30 s); runs are renewed every
	// LeaseTTL/3.
	LeaseTTL time.Duration
	// MaxAttempts is --cluster-max-attempts (default 3): how many times a
	// run may be reclaimed before it is failed as poison.
	MaxAttempts uint32
	// StateFormat is heartbeated (default StateFormat).
	StateFormat uint32
	Logger      *slog.Logger
	Metrics     *Metrics
}

// Node is one cluster member: its claim loop, its lease loop and the table
// of runs it holds. See doc.go for the protocol.
type Node struct {
	cfg     Config
	store   Store
	exec    Executor
	log     *slog.Logger
	metrics *Metrics
	started time.Time

	mu       sync.Mutex
	held     map[string]*Claim
	shards   map[string]*ShardClaim // by ShardClaim.Key
	claiming bool
	// backlog: pending runs may be waiting (this instance stored one, a
	// reclaim requeued some, or its last claim took all it asked for);
	// while set, local submissions are stored pending, not claimed at once,
	// so they do not overtake older runs.
	backlog bool
	noted   uint64 // NotePending calls, so a claim does not clear a newer note
	// cancels: list the cross-instance cancellations at the next poll
	// even if it is a kick (a cancel was requested through this instance).
	cancels  bool
	members  []history.InstanceRecord
	memberAt time.Time

	kick    chan struct{}
	stop    chan struct{}
	stopped sync.Once
	loops   sync.WaitGroup

	warn warnings
}

// New builds a node; Start begins its loops.
func New(cfg Config, exec Executor) (*Node, error) {
	if cfg.Store == nil || cfg.Runs == nil {
		return nil, errors.New("cluster: no run history")
	}
	if exec == nil {
		return nil, errors.New("cluster: no executor")
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.StateFormat == 0 {
		cfg.StateFormat = StateFormat
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	n := &Node{cfg: cfg, store: cfg.Store, exec: exec, log: cfg.Logger, metrics: cfg.Metrics,
		started: time.Now().UTC(), held: map[string]*Claim{}, shards: map[string]*ShardClaim{}, claiming: true, backlog: true,
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
	n.metrics.bind(n)
	return n, nil
}

// RenewInterval is how often held runs are renewed and orphans reclaimed:
// LeaseTTL/3 (at least 100 ms).
func (n *Node) RenewInterval() time.Duration {
	if d := n.cfg.LeaseTTL / 3; d > 100*time.Millisecond {
		return d
	}
	return 100 * time.Millisecond
}

// MemberWindow is how recent a heartbeat must be for a member to count as
// live: max(LeaseTTL, 3 polls).
func (n *Node) MemberWindow() time.Duration {
	if w := 3 * n.cfg.PollInterval; w > n.cfg.LeaseTTL {
		return w
	}
	return n.cfg.LeaseTTL
}

// Start heartbeats and refreshes membership once (so the first claimed run
// already knows the effective state format), requeues or fails the runs
// whose owner died while nobody was reclaiming, and starts the claim and
// lease loops. Failures here are logged, not fatal: the loops retry.
func (n *Node) Start(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.PollInterval+5*time.Second)
	n.heartbeat(ctx)
	n.reclaim(ctx)
	cancel()
	n.loops.Add(2)
	go n.claimLoop()
	go n.leaseLoop()
}

// Kick wakes the claim loop now (after a local submit or a finished run).
func (n *Node) Kick() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// StopClaiming stops taking new runs (the first step of a shutdown); the
// loops keep renewing and cancelling what is held.
func (n *Node) StopClaiming() {
	n.mu.Lock()
	n.claiming = false
	n.mu.Unlock()
}

// Close stops the loops. Runs still held keep their rows; their leases lapse
// and peers reclaim them.
func (n *Node) Close() {
	n.StopClaiming()
	n.stopped.Do(func() { close(n.stop) })
	n.loops.Wait()
}

func (n *Node) claimLoop() {
	defer n.loops.Done()
	t := time.NewTicker(n.cfg.PollInterval)
	defer t.Stop()
	for {
		beat := false
		select {
		case <-n.stop:
			return
		case <-t.C:
			beat = true
		case <-n.kick:
		}
		ctx, cancel := context.WithTimeout(context.Background(), n.cfg.PollInterval+5*time.Second)
		n.poll(ctx, beat)
		cancel()
	}
}

func (n *Node) leaseLoop() {
	defer n.loops.Done()
	t := time.NewTicker(n.RenewInterval())
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), n.RenewInterval()+5*time.Second)
		n.renew(ctx)
		n.reclaim(ctx)
		n.renewShards(ctx)
		n.reclaimShards(ctx)
		n.sweepParents(ctx)
		cancel()
	}
}

// poll is one claim-loop tick: heartbeat, membership and cross-instance
// cancellations of the runs held here (on the poll interval, or after a
// cancel requested through this instance; a kick otherwise only claims),
// claims up to free capacity (runs, then shards), then cancellations of the
// shards held here.
func (n *Node) poll(ctx context.Context, beat bool) {
	if beat {
		n.heartbeat(ctx)
	}
	n.mu.Lock()
	cancels := beat || n.cancels
	n.cancels = false
	claim := beat || n.backlog
	n.mu.Unlock()
	if cancels {
		n.cancelRuns(ctx)
	}
	if claim {
		n.claim(ctx)
	}
	// After the claim, so that shards just claimed for a cancelled run
	// are stopped at once instead of running for a poll interval.
	n.cancelShards(ctx)
}

// cancelRuns stops the runs held here whose row carries the cross-instance
// cancel flag.
func (n *Node) cancelRuns(ctx context.Context) {
	ids, err := n.store.PendingCancellations(ctx)
	n.warn.report(n.log, "listing cross-instance cancellations", err)
	if err != nil {
		n.mu.Lock()
		n.cancels = true // retried at the next poll, kick or tick
		n.mu.Unlock()
	}
	for _, id := range ids {
		n.mu.Lock()
		c := n.held[id]
		n.mu.Unlock()
		if c != nil && n.exec.Stop(c, ErrCancelRequested) {
			n.log.Info("stopping run: cancel requested on another instance", "run_id", id)
		}
	}
}

// claim takes up to the executor's free capacity of pending runs, then
// pending shards with the capacity left.
func (n *Node) claim(ctx context.Context) {
	n.mu.Lock()
	on := n.claiming
	n.mu.Unlock()
	if !on {
		return
	}
	free := n.exec.Free()
	if free <= 0 {
		return
	}
	n.mu.Lock()
	gen := n.noted
	n.mu.Unlock()
	recs, err := n.store.ClaimPending(ctx, free)
	n.warn.report(n.log, "claiming pending runs", err)
	more := err != nil || len(recs) >= free
	defer func() {
		if !more {
			more = n.claimShards(ctx, free-len(recs))
		}
		// Fewer runs and shards than asked for: both queues were empty a
		// moment ago; kicks stop claiming until something is pending
		// (unless NotePending ran meanwhile: its row may be newer than
		// the select).
		n.mu.Lock()
		if more || n.noted == gen {
			n.backlog = more
		}
		n.mu.Unlock()
	}()
	// Rows claimed before an error are ours too: run them.
	requeued := false
	for _, rec := range recs {
		requeued = requeued || rec.Attempt > 0
		n.metrics.claimed.Inc()
		c, fresh := n.hold(rec)
		if !fresh {
			n.log.Info("re-claimed a run that is still executing here; the execution continues", "run_id", rec.RunID, "attempt", rec.Attempt)
			continue
		}
		n.log.Info("claimed run", "run_id", rec.RunID, "attempt", rec.Attempt)
		n.exec.Start(c)
	}
	if requeued {
		// A requeued run keeps its cancel flag (#321 M7): honour it now
		// rather than at the next tick.
		n.cancelRuns(ctx)
	}
}

// reclaim requeues or fails the running runs whose lease lapsed.
func (n *Node) reclaim(ctx context.Context) {
	rep, err := n.store.ReclaimOrphans(ctx, n.cfg.MaxAttempts)
	n.warn.report(n.log, "reclaiming orphaned runs", err)
	if rep.Requeued > 0 {
		n.metrics.reclaimed.WithLabelValues("requeued").Add(float64(rep.Requeued))
		n.log.Warn("requeued runs whose owning instance's lease expired", "runs", rep.Requeued)
		n.NotePending()
	}
	if rep.Failed > 0 {
		n.metrics.reclaimed.WithLabelValues("failed").Add(float64(rep.Failed))
		n.log.Error("failed poison runs reclaimed too many times", "runs", rep.Failed, "max_attempts", n.cfg.MaxAttempts)
	}
}

// warnings logs a failing background operation once, and its recovery, so
// an outage does not log every poll.
type warnings struct {
	mu      sync.Mutex
	failing map[string]bool
}

func (w *warnings) report(log *slog.Logger, op string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failing == nil {
		w.failing = map[string]bool{}
	}
	switch {
	case err != nil && !w.failing[op]:
		w.failing[op] = true
		log.Warn("cluster: "+op+" failed; retrying", "err", err)
	case err == nil && w.failing[op]:
		delete(w.failing, op)
		log.Info("cluster: " + op + " works again")
	}
}
