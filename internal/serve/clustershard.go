package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/cluster"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/history"
)

// Cluster mode B (internal/cluster, doc.go there): a claimed run whose
// config says `shard: {count: N}` (N >= 2), has one row and a source that
// implements connector.Sharder is not executed whole; this instance
// enumerates the source's shards and stores them, and every member claims
// and executes shards, each narrowed with ApplyShard before the source is
// opened, with the state key "<key>::<shard_id>" and the parent's timeout.

// enumerateTimeout bounds EnumerateShards (the key-range probe).
const enumerateTimeout = 2 * time.Minute

// StartShard executes a claimed shard.
func (e clusterExecutor) StartShard(s *cluster.ShardClaim) { e.r.startShard(s) }

// StopShard cancels the execution of shard s.
func (e clusterExecutor) StopShard(s *cluster.ShardClaim, cause error) bool {
	return e.r.stopShard(s, cause)
}

// ParentFinished counts a sharded run this instance finalized and fires its
// completion callback.
func (e clusterExecutor) ParentFinished(rec history.RunRecord) {
	reason := "ok"
	if rec.Status != history.StatusCompleted {
		reason = "error"
	}
	e.r.s.metrics.runsFinished.WithLabelValues(string(rec.Status), reason).Inc()
	e.r.fireCallback(rec)
}

// expandSharded shards the claimed run j when its config asks for it and it
// can be sharded, and reports whether it did so (or finalized the run
// failed trying): the caller then has nothing left to do. A run that cannot
// be sharded runs whole, as in 1.x, with a warning.
func (r *Runner) expandSharded(j *job) bool {
	s := r.s
	count := j.prep.doc.ShardCount
	if count < 2 {
		return false
	}
	src, err := r.shardableSource(j)
	if err != nil {
		s.logger.Warn("shard: running the pipeline whole", "run_id", j.id, "reason", err.Error())
		return false
	}
	defer src.(connector.Source).Close()
	ctx, cancel := context.WithTimeout(j.ctx, enumerateTimeout)
	specs, err := src.EnumerateShards(ctx, count)
	cancel()
	if err == nil && len(specs) == 0 {
		err = errors.New("the source returned no shards")
	}
	if err == nil && len(specs) == 1 {
		s.logger.Warn("shard: running the pipeline whole", "run_id", j.id, "reason", "the source's data set is a single shard")
		return false
	}
	if err != nil {
		o := classify(context.Cause(j.ctx), fmt.Errorf("enumerating shards: %w", err), j)
		r.finalize(j, nil, o)
		return true
	}
	ins := make([]history.ShardInsert, len(specs))
	for i, sp := range specs {
		ins[i] = history.ShardInsert{ShardID: sp.ID, Descriptor: sp.Descriptor}
		if sp.SizeEstimate != nil && *sp.SizeEstimate >= 0 {
			v := uint64(*sp.SizeEstimate)
			ins[i].SizeEstimate = &v
		}
	}
	if _, err := j.claim.Expand(r.hard, ins); err != nil {
		s.logger.Error("storing the run's shards failed; its lease will lapse and another instance shards it again", "run_id", j.id, "err", err)
	}
	return true
}

// shardableSource builds (without opening) the source of j's only row, or
// says why the run is not sharded.
func (r *Runner) shardableSource(j *job) (connector.Sharder, error) {
	doc := j.prep.doc
	clock, ok := parseRunClock(j.prep.req.Clock, j.submitted)
	if !ok {
		return nil, fmt.Errorf("clock '%s' is not RFC3339", *j.prep.req.Clock)
	}
	invs, err := doc.ExpandAt(clock)
	if err != nil {
		return nil, err
	}
	if len(invs) != 1 {
		return nil, fmt.Errorf("shard: needs a single-row pipeline; this one has %d rows", len(invs))
	}
	reg := r.s.cfg.Registry
	if reg == nil {
		reg = connector.Default
	}
	spec, err := reg.Source(invs[0].Source.Type)
	if err != nil {
		return nil, err
	}
	src, err := spec.New(invs[0].Source.Config)
	if err != nil {
		return nil, err
	}
	sh, ok := src.(connector.Sharder)
	if !ok {
		src.Close()
		return nil, fmt.Errorf("source %s cannot be sharded (postgres, mysql and sqlite with shard: {key}, and the file, parquet and s3 sources can)", invs[0].Source.Type)
	}
	return sh, nil
}

// narrowToShard restricts a built row to shard s: ApplyShard before the
// engine opens the source, and the per-shard state key.
func narrowToShard(row *engine.Row, s *cluster.ShardClaim) error {
	sh, ok := row.Source.(connector.Sharder)
	if !ok {
		return fmt.Errorf("shard %s of run %s: source %s cannot be sharded", s.ShardID, s.RunID, row.SourceType)
	}
	if err := sh.ApplyShard(connector.ShardSpec{ID: s.ShardID, Descriptor: s.Descriptor}); err != nil {
		return fmt.Errorf("shard %s of run %s: %w", s.ShardID, s.RunID, err)
	}
	row.StateKey += "::" + s.ShardID
	return nil
}

// startShard registers a claimed shard and executes it.
func (r *Runner) startShard(sc *cluster.ShardClaim) {
	parent := sc.Parent()
	j := &job{id: sc.Key(), shard: sc, submitted: parent.SubmittedAt, done: make(chan struct{})}
	if parent.TimeoutSecs != nil && *parent.TimeoutSecs > 0 {
		j.timeout = time.Duration(*parent.TimeoutSecs) * time.Second
	}
	j.ctx, j.cancel = context.WithCancelCause(r.base)
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		j.cancel(nil)
		sc.Abandon()
		return
	}
	r.active[j.id] = j
	r.clusterJobs++
	r.wg.Add(1)
	r.mu.Unlock()
	go r.executeShard(j)
}

// stopShard cancels the job executing shard sc.
func (r *Runner) stopShard(sc *cluster.ShardClaim, cause error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.active[sc.Key()]
	if j == nil || j.shard != sc {
		return false
	}
	j.cancel(stopCause(cause))
	return true
}

// executeShard re-loads the parent's config, runs the narrowed pipeline and
// writes the shard's outcome.
func (r *Runner) executeShard(j *job) {
	s := r.s
	defer r.endClusterJob(j)
	p, err := s.prepareClaimed(j.shard.Parent())
	if err != nil {
		s.logger.Error("re-loading a claimed shard's config failed", "run_id", j.shard.RunID, "shard_id", j.shard.ShardID, "err", err)
		r.finishShard(j, outcome{status: history.StatusFailed, err: err.Error()})
		return
	}
	j.prep = p
	if !r.acquireSlot(j) {
		r.finishShard(j, classify(context.Cause(j.ctx), nil, j))
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
	o := r.run(j)
	r.offerSlot(j)
	r.finishShard(j, o)
}

// finishShard writes the shard's outcome (owner-fenced; a cancelled shard
// counts as failed, as in 1.x).
func (r *Runner) finishShard(j *job, o outcome) {
	won, err := j.shard.Finalize(r.hard, o.status == history.StatusCompleted)
	log := r.jobLogger(j)
	switch {
	case err != nil:
		log.Error("writing the shard's result failed; its lease will lapse and another instance runs it again", "err", err)
	case won:
		log.Info("shard finished", "status", string(o.status), "records_written", o.records, "error", o.err)
	}
}

// jobLogger is the logger of a job's pipeline: the run's captured log, or
// for a shard the server log with the run and shard ids (shards of one run
// execute on several instances at once; their lines are not captured).
func (r *Runner) jobLogger(j *job) *slog.Logger {
	if j.shard != nil {
		return r.s.logger.With("run_id", j.shard.RunID, "shard_id", j.shard.ShardID)
	}
	return r.s.logs.logger(j.id)
}
