package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/redact"
)

// execute waits for a slot (racing cancellation and shutdown), runs the
// pipeline and finalizes the record.
func (r *Runner) execute(j *job) {
	defer r.wg.Done()
	defer func() {
		r.forget(j)
		j.cancel(nil)
		close(j.done)
	}()
	if !r.acquireSlot(j) {
		r.unreserve()
		o := classify(context.Cause(j.ctx), nil, j)
		r.finalize(j, nil, o)
		return
	}
	r.mu.Lock()
	r.queued--
	r.inFlight++
	r.mu.Unlock()
	defer func() {
		r.slots.release()
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()

	started := r.s.now()
	r.markRunning(j, started)
	o := r.run(j)
	r.finalize(j, &started, o)
}

func (r *Runner) markRunning(j *job, started time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := r.s.history.Get(ctx, j.id)
	if err != nil || rec == nil {
		r.s.logger.Warn("reading run record failed", "run_id", j.id, "err", err)
		return
	}
	rec.Status = history.StatusRunning
	rec.StartedAt = &started
	if err := r.s.history.Upsert(ctx, *rec); err != nil {
		r.s.logger.Warn("marking run running failed", "run_id", j.id, "err", err)
	}
}

// outcome is how a run ended.
type outcome struct {
	status  history.RunStatus
	reason  string // metrics reason: ok, error, timeout, cancelled, server_shutdown
	err     string
	records uint64
	invs    []history.InvocationRecord
}

// run executes the pipeline with the timeout, and gives a cancelled run the
// flush grace to stop at a page boundary before abandoning it.
func (r *Runner) run(j *job) outcome {
	ctx := j.ctx
	if j.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, j.timeout, errTimeout)
		defer cancel()
	}
	logger := r.jobLogger(j)
	logger.Info("pipeline run starting", "pipeline", j.prep.doc.PipelineName())
	type result struct {
		invs []history.InvocationRecord
		err  error
	}
	done := make(chan result, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		invs, err := r.s.execPipeline(ctx, j, logger)
		done <- result{invs, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		t := time.NewTimer(r.s.cfg.FlushGrace)
		select {
		case res = <-done:
			t.Stop()
		case <-t.C:
			logger.Warn("run did not stop within the flush grace; abandoning it", "grace", r.s.cfg.FlushGrace.String())
			res.err = ctx.Err()
		}
	}
	var cause error
	if ctx.Err() != nil {
		cause = context.Cause(ctx)
	}
	o := classify(cause, res.err, j)
	o.invs = res.invs
	for _, inv := range res.invs {
		o.records += inv.RecordsWritten
	}
	if cause == nil && res.err == nil {
		failed := 0
		for _, inv := range res.invs {
			if inv.Error != nil {
				failed++
			}
		}
		if failed > 0 {
			o.status, o.reason, o.err = history.StatusFailed, "error", fmt.Sprintf("%d invocation(s) failed", failed)
		}
	}
	switch o.status {
	case history.StatusCompleted:
		logger.Info("pipeline run completed", "records_written", o.records)
	case history.StatusCancelled:
		logger.Warn("pipeline run cancelled")
	default:
		logger.Error("pipeline run failed", "error", o.err)
	}
	return o
}

// classify maps how the context ended (cause) and the executor error to a
// terminal status (reference §4.3). Unlike the original, the counts of a
// cancelled or timed-out run are kept: what was flushed was written.
func classify(cause, execErr error, j *job) outcome {
	switch {
	case errors.Is(cause, errCancelled):
		return outcome{status: history.StatusCancelled, reason: "cancelled"}
	case errors.Is(cause, errTimeout):
		return outcome{status: history.StatusFailed, reason: "timeout",
			err: fmt.Sprintf("run exceeded timeout_secs (%ds)", int64(j.timeout/time.Second))}
	case errors.Is(cause, errShutdown):
		return outcome{status: history.StatusFailed, reason: "server_shutdown", err: "server shutdown before the run finished"}
	case errors.Is(cause, errLeaseLost):
		// Never written: a claim whose lease was lost discards its result.
		return outcome{status: history.StatusFailed, reason: "error", err: errLeaseLost.Error()}
	case execErr != nil:
		return outcome{status: history.StatusFailed, reason: "error", err: execErr.Error()}
	}
	return outcome{status: history.StatusCompleted, reason: "ok"}
}

// finalize flushes the run's logs, then writes the terminal record
// (read-modify-write; a fresh minimal record if the stored one is gone, so a
// run never stays non-terminal) and counts it. In cluster mode the write is
// fenced on ownership (cluster.Claim.Finalize): a run reclaimed meanwhile
// keeps the result of the instance that owns it now, and this one's result
// is discarded: no metric, no callback.
func (r *Runner) finalize(j *job, started *time.Time, o outcome) {
	s := r.s
	s.logs.finish(j.id)
	fin := s.now()
	var elapsed float64
	apply := func(rec *history.RunRecord) {
		rec.Status = o.status
		if started != nil {
			rec.StartedAt = started
		}
		from := j.submitted
		if rec.StartedAt != nil {
			from = *rec.StartedAt
		}
		elapsed = fin.Sub(from).Seconds()
		rec.FinishedAt = &fin
		rec.ElapsedSecs = &elapsed
		rec.RecordsWritten = o.records
		rec.Invocations = o.invs
		rec.Error = nil
		if o.err != "" {
			msg := redact.String(o.err)
			rec.Error = &msg
		}
	}
	var final history.RunRecord
	if j.claim != nil {
		rec, won := r.finalizeClaimed(j, apply)
		if !won {
			r.forget(j)
			return
		}
		final = rec
	} else {
		final = r.finalizeLocal(j, apply)
	}
	// Once the terminal record is written the run is no longer in flight
	// here: a client that saw the terminal status may delete it at once.
	r.forget(j)
	s.metrics.runsFinished.WithLabelValues(string(o.status), o.reason).Inc()
	r.fireCallback(final)
	s.metrics.runDuration.WithLabelValues(string(o.status)).Observe(elapsed)
}

// finalizeLocal is the single-instance terminal write (plain upsert, with
// retries).
func (r *Runner) finalizeLocal(j *job, apply func(*history.RunRecord)) history.RunRecord {
	s := r.s
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	rec, err := s.history.Get(ctx, j.id)
	if err != nil || rec == nil {
		fresh := history.NewQueuedRun(j.id, j.prep.req.Name, j.prep.req.Labels, j.prep.req.IdempotencyKey, j.submitted)
		rec = &fresh
	}
	apply(rec)
	for attempt := 1; attempt <= 5; attempt++ {
		if err = s.history.Upsert(ctx, *rec); err == nil {
			break
		}
		if history.RetryBackoff(ctx, attempt+1) != nil {
			break
		}
	}
	if err != nil {
		s.logger.Error("writing terminal run record failed", "run_id", j.id, "status", string(rec.Status), "err", err)
	}
	return *rec
}

// forget drops j from the active runs (unless a newer job of the same run
// replaced it).
func (r *Runner) forget(j *job) {
	r.mu.Lock()
	if r.active[j.id] == j {
		delete(r.active, j.id)
	}
	r.mu.Unlock()
}

// acquireSlot waits for an execution slot for j. It reports false, holding
// no slot, when j was cancelled first (also when both happened at once).
func (r *Runner) acquireSlot(j *job) bool {
	if j.ticket == nil {
		j.ticket = r.slots.enqueue()
	}
	return j.ticket.wait(j.ctx)
}
