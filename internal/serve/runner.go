package serve

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/faucet-hq/faucet/internal/cluster"
	"github.com/faucet-hq/faucet/internal/history"
)

// Causes of a run's context ending, told apart with context.Cause.
var (
	errCancelled = errors.New("run cancelled")
	errTimeout   = errors.New("run timed out")
	errShutdown  = errors.New("server shutdown")
	// errLeaseLost: cluster mode, the run was reclaimed by another
	// instance; the local execution is a zombie (its result is discarded).
	errLeaseLost = cluster.ErrLeaseLost
)

// Runner owns the bounded queue, the execution slots and the cancel tokens
// of the runs this process executes. See doc.go for the protocol.
type Runner struct {
	s         *Server
	maxQueued int
	slots     *slotQueue

	mu       sync.Mutex
	queued   int
	inFlight int
	closing  bool
	active   map[string]*job
	// clusterJobs counts the claimed runs this process holds (executing,
	// waiting for a slot, or draining after a lost lease); finishing, those
	// of them whose pipeline has ended and that only write their result.
	clusterJobs int
	finishing   int
	// preps: the loaded submissions of the runs this process stored
	// pending, reused when it claims them itself (cluster mode).
	preps prepCache

	base     context.Context
	stopAll  context.CancelCauseFunc
	wg       sync.WaitGroup
	stopOnce sync.Once
	// hard ends when shutdown stops waiting for runs; cluster terminal
	// writes retry until then.
	hard     context.Context
	hardStop context.CancelFunc
}

// job is one run this process executes.
type job struct {
	id        string
	prep      *prepared
	submitted time.Time
	timeout   time.Duration
	ctx       context.Context
	cancel    context.CancelCauseFunc
	// done is closed when the job has finished: its terminal record is
	// written and it has left active.
	done chan struct{}

	// Cluster mode: the claim the run executes under and the job it
	// replaced in active (a zombie of the same run still draining).
	claim *cluster.Claim
	prev  *job
	// shard: cluster mode B, the shard of a sharded run this job executes
	// (claim is nil then).
	shard *cluster.ShardClaim
	// started is the started_at a run claimed at submission was stored
	// with (cluster mode; zero otherwise): no separate start write.
	started time.Time
	// finishing: the pipeline has ended; the slot is offered to the next
	// claim while the result is written (cluster mode).
	finishing bool
	// ticket is the job's place in line for an execution slot, taken when
	// the run is accepted (a local run) or when acquireSlot first asks.
	ticket *slotTicket
}

func newRunner(s *Server) *Runner {
	r := &Runner{s: s, maxQueued: s.cfg.MaxQueuedRuns, slots: newSlotQueue(s.cfg.MaxConcurrentRuns),
		active: map[string]*job{}}
	r.base, r.stopAll = context.WithCancelCause(context.Background())
	r.hard, r.hardStop = context.WithCancel(context.Background())
	return r
}

// Queued is the number of runs waiting for an execution slot.
func (r *Runner) Queued() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queued
}

// InFlight is the number of runs executing.
func (r *Runner) InFlight() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inFlight
}

// Closing reports a shutdown in progress.
func (r *Runner) Closing() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closing
}

// reserve takes a queue slot (429 when full, 503 while shutting down).
func (r *Runner) reserve() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return errUnavailable("server is shutting down")
	}
	if r.queued >= r.maxQueued {
		return errQueueFull()
	}
	r.queued++
	return nil
}

func (r *Runner) unreserve() {
	r.mu.Lock()
	r.queued--
	r.mu.Unlock()
}

// submitResult is the 202 body.
type submitResult struct {
	RunID       string            `json:"run_id"`
	Status      history.RunStatus `json:"status"`
	SubmittedAt time.Time         `json:"submitted_at"`
}

// submit runs steps 4 and 6-11 of the submit pipeline (doc.go): reserve a
// slot, mint the id, claim the idempotency key, write the queued record,
// start the run and audit it.
func (r *Runner) submit(ctx context.Context, p *prepared, c caller, submitted time.Time) (submitResult, bool, error) {
	s := r.s
	if err := r.reserve(); err != nil {
		return submitResult{}, false, err
	}
	reserved := true
	defer func() {
		if reserved {
			r.unreserve()
		}
	}()
	if s.node != nil && s.history.Degraded() {
		return submitResult{}, false, errUnavailable("run history is degraded (database unreachable): a cluster accepts no runs until it answers; retry later")
	}
	if p.req.DoctorFirst {
		// Behind the reservation, so concurrent probing is bounded by the
		// queue (as 1.x).
		rep, err := s.doctorFirst(ctx, p)
		if err != nil {
			return submitResult{}, false, err
		}
		p.doctorReport = rep
	}
	uid, err := uuid.NewV7()
	if err != nil {
		return submitResult{}, false, err
	}
	runID := uid.String()
	req := p.req
	key := req.IdempotencyKey
	if key != nil && *key == "" {
		key = nil
	}
	claimed := false
	if key != nil && s.cfg.IdemRetention > 0 {
		claim, err := s.history.ClaimIdempotency(ctx, *key, p.fp, runID, s.cfg.IdemRetention)
		if err != nil {
			return submitResult{}, false, err
		}
		switch claim.Kind {
		case history.ClaimReplay:
			s.metrics.idemHits.Inc()
			rec, err := r.replayed(ctx, claim.RunID)
			if err != nil {
				return submitResult{}, false, err
			}
			return submitResult{RunID: rec.RunID, Status: rec.Status, SubmittedAt: rec.SubmittedAt}, true, nil
		case history.ClaimConflict:
			return submitResult{}, false, errConflict("idempotency key reused with a different payload")
		}
		claimed = true
	}
	if s.node != nil {
		res, err := r.submitPending(ctx, p, c, runID, key, claimed, submitted)
		return res, false, err
	}
	rec := history.NewQueuedRun(runID, req.Name, req.Labels, key, submitted)
	rec.TimeoutSecs = req.TimeoutSecs
	rec.Clock = req.Clock
	rec.Callback = req.Callback
	rec.DoctorReport = p.doctorReport
	if err := s.history.Upsert(ctx, rec); err != nil {
		if claimed {
			if rerr := s.history.ReleaseIdempotency(context.WithoutCancel(ctx), runID); rerr != nil {
				s.logger.Warn("releasing idempotency claim failed", "run_id", runID, "err", rerr)
			}
		}
		return submitResult{}, false, err
	}
	j := &job{id: runID, prep: p, submitted: submitted, done: make(chan struct{})}
	if req.TimeoutSecs != nil {
		j.timeout = time.Duration(*req.TimeoutSecs) * time.Second
	}
	j.ctx, j.cancel = context.WithCancelCause(r.base)
	r.mu.Lock()
	r.active[runID] = j
	r.wg.Add(1)
	r.mu.Unlock()
	reserved = false // the run owns the slot now
	j.ticket = r.slots.enqueue()
	go r.execute(j)
	s.metrics.runsSubmitted.Inc()
	s.audit(ctx, c, "run.submit", &runID, &p.configFP, "ok")
	return submitResult{RunID: runID, Status: history.StatusQueued, SubmittedAt: rec.SubmittedAt}, false, nil
}

// replayed reads the run a replayed claim points at. The winner writes its
// claim before its record, so a replay racing it may find no record yet: it
// waits for the record (bounded) before concluding that the run was deleted
// (404). The original answered 404 in that window.
func (r *Runner) replayed(ctx context.Context, runID string) (*history.RunRecord, error) {
	for attempt := 1; ; attempt++ {
		rec, err := r.s.history.Get(ctx, runID)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			return rec, nil
		}
		if attempt >= replayWaitAttempts {
			return nil, errNotFound()
		}
		if err := history.RetryBackoff(ctx, attempt+1); err != nil {
			return nil, err
		}
	}
}

// replayWaitAttempts bounds replayed's wait (about 2 s).
const replayWaitAttempts = 16

// cancel fires a local run's cancel token; false when this process does
// not hold the run.
func (r *Runner) cancel(id string) bool {
	r.mu.Lock()
	j := r.active[id]
	r.mu.Unlock()
	if j == nil {
		return false
	}
	j.cancel(errCancelled)
	return true
}

// isActive reports whether this process holds the run (queued or running).
func (r *Runner) isActive(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active[id] != nil
}

// settled reports whether this process is done with the run, so that it
// may be deleted: it does not hold it, or holds it only to finish a
// terminal record already stored. A client that saw the terminal status
// deletes at once, possibly before the job has left active; settled waits
// for that (briefly, up to settleWait) instead of answering 409.
func (r *Runner) settled(ctx context.Context, id string) bool {
	r.mu.Lock()
	j := r.active[id]
	r.mu.Unlock()
	if j == nil {
		return true
	}
	rec, err := r.s.history.Get(ctx, id)
	if err != nil || rec == nil || !rec.Status.IsTerminal() {
		return false
	}
	t := time.NewTimer(settleWait)
	defer t.Stop()
	select {
	case <-j.done:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// settleWait bounds how long a delete waits for a run whose terminal record
// is stored to leave active (it only fires its callback and metrics then).
const settleWait = 5 * time.Second

// shutdown stops accepting runs, waits up to grace for the queue and the
// running runs to drain, then cancels the rest and waits up to flushGrace
// (plus a margin) for them to finalize.
func (r *Runner) shutdown(ctx context.Context, grace, flushGrace time.Duration) error {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		r.mu.Lock()
		idle := r.queued == 0 && r.inFlight == 0 && r.clusterJobs == 0
		r.mu.Unlock()
		if idle {
			break
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	r.stopOnce.Do(func() { r.stopAll(errShutdown) })
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	t := time.NewTimer(flushGrace + 5*time.Second)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		r.hardStop()
		return errors.New("runs still running after the flush grace")
	case <-ctx.Done():
		r.hardStop()
		return ctx.Err()
	}
}
