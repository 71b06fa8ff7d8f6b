package serve

import (
	"context"
	"errors"
	"time"

	"github.com/faucet-hq/faucet/internal/cluster"
	"github.com/faucet-hq/faucet/internal/history"
)

// Cluster mode (internal/cluster, doc.go there): a submission is stored
// pending with its raw config; whichever member claims it re-loads and
// executes it here, through the claim's fenced writes.

// clusterExecutor is the Runner as the cluster node's Executor.
type clusterExecutor struct{ r *Runner }

// Free is the slots not taken by claimed runs (0 while shutting down).
func (e clusterExecutor) Free() int {
	r := e.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return 0
	}
	// A run that only writes its result gives its slot away as soon as the
	// write is done: claiming its successor now overlaps the claim's round
	// trips with that write (the successor waits for the slot).
	return max(r.slots.size-r.clusterJobs+r.finishing, 0)
}

// InFlight is the runs executing here.
func (e clusterExecutor) InFlight() int { return e.r.InFlight() }

// Start executes a claimed run.
func (e clusterExecutor) Start(c *cluster.Claim) { e.r.launchClaimed(c, nil, time.Time{}, false) }

// Stop cancels the execution holding c.
func (e clusterExecutor) Stop(c *cluster.Claim, cause error) bool { return e.r.stopClaimed(c, cause) }

// submitPending is step 10 of the submit protocol in cluster mode. With a
// free execution slot here (and no pending run known to be waiting) the run
// is stored already claimed by this instance and started at once with the
// submission as loaded (submitClaimed). Otherwise the record is stored
// pending with the raw config text (directives unresolved), its format,
// timeout, clock, params and callback, so any member can re-load it, and the
// local claim loop is kicked.
func (r *Runner) submitPending(ctx context.Context, p *prepared, c caller, runID string, key *string, claimed bool, submitted time.Time) (submitResult, error) {
	s := r.s
	req := p.req
	rec := history.NewQueuedRun(runID, req.Name, req.Labels, key, submitted)
	rec.Status = history.StatusPending
	body, format := req.Config, p.format
	rec.ConfigBody, rec.ConfigFormat = &body, &format
	rec.TimeoutSecs, rec.Clock, rec.Callback = req.TimeoutSecs, req.Clock, req.Callback
	rec.DoctorReport = p.doctorReport
	if ps := paramStrings(req.Params); len(ps) > 0 {
		rec.Params = ps
	}
	if r.takeSlot() {
		res, ok, err := r.submitClaimed(ctx, p, c, rec, claimed)
		if ok || err != nil {
			return res, err
		}
	}
	if err := s.history.Upsert(ctx, rec); err != nil {
		r.releaseIdem(ctx, claimed, runID)
		return submitResult{}, err
	}
	r.preps.put(runID, p, s.defaults.Load())
	s.node.NotePending()
	s.metrics.runsSubmitted.Inc()
	s.audit(ctx, c, "run.submit", &runID, &p.configFP, "ok")
	return submitResult{RunID: runID, Status: history.StatusPending, SubmittedAt: rec.SubmittedAt}, nil
}

// takeSlot reserves an execution slot for a run claimed at submission: only
// a slot free now (no claimed run waits for one), not one being released.
func (r *Runner) takeSlot() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing || r.clusterJobs >= r.slots.size {
		return false
	}
	r.clusterJobs++
	return true
}

// giveSlot returns a slot takeSlot reserved and that was not used.
func (r *Runner) giveSlot() {
	r.mu.Lock()
	r.clusterJobs--
	r.mu.Unlock()
	r.s.node.Kick()
}

// releaseIdem releases the idempotency claim of a submission whose record
// could not be stored.
func (r *Runner) releaseIdem(ctx context.Context, claimed bool, runID string) {
	if !claimed {
		return
	}
	if err := r.s.history.ReleaseIdempotency(context.WithoutCancel(ctx), runID); err != nil {
		r.s.logger.Warn("releasing idempotency claim failed", "run_id", runID, "err", err)
	}
}

// submitClaimed stores rec already claimed by this instance
// (cluster.Node.InsertClaimed: status running, owner, lease and started_at
// in one INSERT) and executes it in the slot takeSlot reserved, with the
// submission p as loaded here (this member's environment, secrets and
// --default-config, as a claim would re-load it). ok is false when the node
// declined (nothing was written; the slot is given back) so the caller
// stores the run pending.
func (r *Runner) submitClaimed(ctx context.Context, p *prepared, c caller, rec history.RunRecord, claimed bool) (submitResult, bool, error) {
	s := r.s
	started := s.now()
	rec.StartedAt = &started
	cl, err := s.node.InsertClaimed(ctx, rec)
	if err != nil || cl == nil {
		r.giveSlot()
		if err != nil {
			r.releaseIdem(ctx, claimed, rec.RunID)
		}
		return submitResult{}, false, err
	}
	r.launchClaimed(cl, p, started, true)
	s.metrics.runsSubmitted.Inc()
	s.audit(ctx, c, "run.submit", &rec.RunID, &p.configFP, "ok")
	return submitResult{RunID: rec.RunID, Status: history.StatusRunning, SubmittedAt: rec.SubmittedAt}, true, nil
}

// validateClusterSubmit refuses what a cluster cannot run safely (422):
// secret param values and callback headers would be stored in the shared
// database in clear text for the claiming member to use.
func (s *Server) validateClusterSubmit(p *prepared) error {
	if s.node == nil {
		return nil
	}
	for _, spec := range p.doc.Params {
		if _, given := p.req.Params[spec.Name]; given && spec.Secret {
			return errUnprocessable(map[string]string{"field": "params." + spec.Name},
				"param %q is secret: a cluster stores submissions in the shared history for the member that runs them; pass it through ${env:...} or ${file:...} in the config instead", spec.Name)
		}
	}
	if cb := p.req.Callback; cb != nil && len(cb.Headers) > 0 {
		return errUnprocessable(map[string]string{"field": "callback.headers"},
			"callback: headers are refused in cluster mode (they would be stored in the shared history in clear text)")
	}
	return nil
}

// prepareClaimed re-loads a claimed run's stored config on this member, as a
// local submission is loaded: its own environment, secrets and
// --default-config, the run's params and clock.
func (s *Server) prepareClaimed(rec history.RunRecord) (*prepared, error) {
	if rec.ConfigBody == nil || *rec.ConfigBody == "" {
		return nil, errors.New("the run record has no stored config (config_body)")
	}
	format := string(history.FormatYAML)
	if rec.ConfigFormat != nil {
		format = string(*rec.ConfigFormat)
	}
	req := SubmitRequest{Config: *rec.ConfigBody, ConfigFormat: format, Name: rec.Name, Labels: rec.Labels,
		TimeoutSecs: rec.TimeoutSecs, IdempotencyKey: rec.IdempotencyKey, Clock: rec.Clock, Callback: rec.Callback}
	if len(rec.Params) > 0 {
		req.Params = make(map[string]any, len(rec.Params))
		for k, v := range rec.Params {
			req.Params[k] = v
		}
	}
	return s.prepare(req, rec.SubmittedAt)
}

// launchClaimed registers claim c as a job of its own and executes it:
// with p when the submission is loaded already (else executeClaimed loads
// it), and with started when the run's start is recorded already. reserved
// says takeSlot counted its slot already. A job of the same run still
// draining here (a zombie whose lease was lost) is finished first. While
// the runner shuts down the claim is abandoned instead (its lease lapses
// and a peer runs it).
func (r *Runner) launchClaimed(c *cluster.Claim, p *prepared, started time.Time, reserved bool) {
	rec := c.Record()
	j := &job{id: rec.RunID, prep: p, claim: c, submitted: rec.SubmittedAt, started: started, done: make(chan struct{})}
	if rec.TimeoutSecs != nil && *rec.TimeoutSecs > 0 {
		j.timeout = time.Duration(*rec.TimeoutSecs) * time.Second
	}
	j.ctx, j.cancel = context.WithCancelCause(r.base)
	r.mu.Lock()
	if r.closing {
		if reserved {
			r.clusterJobs--
		}
		r.mu.Unlock()
		j.cancel(nil)
		c.Abandon()
		return
	}
	j.prev = r.active[j.id]
	r.active[j.id] = j
	if !reserved {
		r.clusterJobs++
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go r.executeClaimed(j)
}

// stopClaimed cancels the job executing claim c.
func (r *Runner) stopClaimed(c *cluster.Claim, cause error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for j := r.active[c.RunID]; j != nil; j = j.prev {
		if j.claim == c {
			j.cancel(stopCause(cause))
			return true
		}
	}
	return false
}

// stopCause is the cancel cause of a cluster job the node stops: its
// lease was lost to another member, or the run was cancelled.
func stopCause(cause error) error {
	if errors.Is(cause, cluster.ErrLeaseLost) {
		return errLeaseLost
	}
	return errCancelled
}

// endClusterJob releases a finished cluster job (run or shard): it leaves
// the active table and frees its slot, and the node is told to claim.
func (r *Runner) endClusterJob(j *job) {
	r.forget(j)
	r.mu.Lock()
	r.clusterJobs--
	if j.finishing {
		j.finishing = false
		r.finishing--
	}
	r.mu.Unlock()
	j.cancel(nil)
	close(j.done)
	r.s.node.Kick()
	r.wg.Done()
}

// executeClaimed re-loads, runs and finalizes a claimed run.
func (r *Runner) executeClaimed(j *job) {
	s := r.s
	defer r.endClusterJob(j)
	r.mu.Lock()
	prev := j.prev
	r.mu.Unlock()
	if prev != nil {
		<-prev.done
		r.mu.Lock()
		j.prev = nil
		r.mu.Unlock()
	}
	rec := j.claim.Record()
	if j.prep == nil {
		j.prep = r.preps.take(j.id, s.defaults.Load())
	}
	if j.prep == nil {
		p, err := s.prepareClaimed(rec)
		if err != nil {
			s.logger.Error("re-loading a claimed run's config failed", "run_id", j.id, "err", err)
			r.finalize(j, nil, outcome{status: history.StatusFailed, reason: "error", err: "re-loading claimed config: " + err.Error()})
			return
		}
		j.prep = p
	}
	if r.expandSharded(j) {
		return
	}
	if !r.acquireSlot(j) {
		r.finalize(j, nil, classify(context.Cause(j.ctx), nil, j))
		return
	}
	r.mu.Lock()
	r.inFlight++
	r.mu.Unlock()
	defer func() {
		r.slots.release()
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	s.logs.begin(j.id, uint64(rec.Attempt)<<40)
	started := j.started
	if started.IsZero() { // claimed from pending: record the start
		started = s.now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := j.claim.MarkRunning(ctx, started)
		cancel()
		switch {
		case errors.Is(err, cluster.ErrLeaseLost):
			r.finalize(j, &started, classify(errLeaseLost, nil, j))
			return
		case err != nil:
			s.logger.Warn("recording the run's start failed; the next lease renewal writes it", "run_id", j.id, "err", err)
		}
	}
	o := r.run(j)
	r.offerSlot(j)
	r.finalize(j, &started, o)
}

// offerSlot counts j's slot as free for the claim loop while j writes its
// result, and wakes the loop: the next pending run is claimed during the
// write and starts as soon as the slot is released.
func (r *Runner) offerSlot(j *job) {
	r.mu.Lock()
	if !j.finishing {
		j.finishing = true
		r.finishing++
	}
	r.mu.Unlock()
	r.s.node.Kick()
}

// finalizeClaimed is the fenced terminal write of a claimed run; it retries
// until the database answers or the server stops for good.
func (r *Runner) finalizeClaimed(j *job, apply func(*history.RunRecord)) (history.RunRecord, bool) {
	rec, won, err := j.claim.Finalize(r.hard, apply)
	if err != nil {
		r.s.logger.Error("writing the terminal run record failed; the run's lease will lapse and another instance runs it again",
			"run_id", j.id, "err", err)
	}
	return rec, won
}
