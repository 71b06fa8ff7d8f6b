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
	return max(cap(r.slots)-r.clusterJobs, 0)
}

// InFlight is the runs executing here.
func (e clusterExecutor) InFlight() int { return e.r.InFlight() }

// Start executes a claimed run.
func (e clusterExecutor) Start(c *cluster.Claim) { e.r.startClaimed(c) }

// Stop cancels the execution holding c.
func (e clusterExecutor) Stop(c *cluster.Claim, cause error) bool { return e.r.stopClaimed(c, cause) }

// submitPending is step 10 of the submit protocol in cluster mode: the
// record is stored pending with the raw config text (directives unresolved),
// its format, timeout, clock, params and callback, so any member can re-load
// it; the local claim loop is kicked.
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
	if err := s.history.Upsert(ctx, rec); err != nil {
		if claimed {
			if rerr := s.history.ReleaseIdempotency(context.WithoutCancel(ctx), runID); rerr != nil {
				s.logger.Warn("releasing idempotency claim failed", "run_id", runID, "err", rerr)
			}
		}
		return submitResult{}, err
	}
	s.node.Kick()
	s.metrics.runsSubmitted.Inc()
	s.audit(ctx, c, "run.submit", &runID, &p.configFP, "ok")
	return submitResult{RunID: runID, Status: history.StatusPending, SubmittedAt: rec.SubmittedAt}, nil
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

// startClaimed registers a claimed run and executes it. A job of the same
// run still draining here (a zombie whose lease was lost) is finished first.
func (r *Runner) startClaimed(c *cluster.Claim) {
	rec := c.Record()
	j := &job{id: rec.RunID, claim: c, submitted: rec.SubmittedAt, done: make(chan struct{})}
	if rec.TimeoutSecs != nil && *rec.TimeoutSecs > 0 {
		j.timeout = time.Duration(*rec.TimeoutSecs) * time.Second
	}
	j.ctx, j.cancel = context.WithCancelCause(r.base)
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		j.cancel(nil)
		c.Abandon()
		return
	}
	j.prev = r.active[j.id]
	r.active[j.id] = j
	r.clusterJobs++
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
	p, err := s.prepareClaimed(rec)
	if err != nil {
		s.logger.Error("re-loading a claimed run's config failed", "run_id", j.id, "err", err)
		r.finalize(j, nil, outcome{status: history.StatusFailed, reason: "error", err: "re-loading claimed config: " + err.Error()})
		return
	}
	j.prep = p
	if r.expandSharded(j) {
		return
	}
	acquired := false
	select {
	case r.slots <- struct{}{}:
		acquired = true
	case <-j.ctx.Done():
	}
	if acquired && j.ctx.Err() != nil {
		<-r.slots
		acquired = false
	}
	if !acquired {
		r.finalize(j, nil, classify(context.Cause(j.ctx), nil, j))
		return
	}
	r.mu.Lock()
	r.inFlight++
	r.mu.Unlock()
	defer func() {
		<-r.slots
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	s.logs.begin(j.id, uint64(rec.Attempt)<<40)
	started := s.now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err = j.claim.MarkRunning(ctx, started)
	cancel()
	switch {
	case errors.Is(err, cluster.ErrLeaseLost):
		r.finalize(j, &started, classify(errLeaseLost, nil, j))
		return
	case err != nil:
		s.logger.Warn("recording the run's start failed; the next lease renewal writes it", "run_id", j.id, "err", err)
	}
	o := r.run(j)
	r.finalize(j, &started, o)
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
