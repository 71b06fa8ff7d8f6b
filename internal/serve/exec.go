package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/internal/cluster"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/pipeline"
	"github.com/faucet-hq/faucet/internal/redact"
)

// execPipeline expands the document at the run clock and runs its rows as
// the CLI does (RunGraph with the config's execution settings), returning
// one invocation record per row.
func (s *Server) execPipeline(ctx context.Context, j *job, logger *slog.Logger) ([]history.InvocationRecord, error) {
	doc := j.prep.doc
	clock, ok := parseRunClock(j.prep.req.Clock, j.submitted)
	if !ok {
		return nil, fmt.Errorf("clock '%s' is not RFC3339", *j.prep.req.Clock)
	}
	invs, err := doc.ExpandAt(clock)
	if err != nil {
		return nil, err
	}
	recs := make([]history.InvocationRecord, len(invs))
	var mu sync.Mutex
	nodes := make([]engine.Node, len(invs))
	for i, inv := range invs {
		recs[i] = history.InvocationRecord{RowID: inv.ID}
		nodes[i] = engine.Node{ID: inv.ID, DependsOn: inv.DependsOn, Run: func(ctx context.Context) error {
			start := time.Now()
			res, err := s.runRow(ctx, doc, inv, j.shard, logger.With("row", inv.ID))
			mu.Lock()
			recs[i].RecordsWritten = uint64(max(res.Written, 0))
			recs[i].DurationMS = uint64(time.Since(start).Milliseconds())
			mu.Unlock()
			return err
		}}
	}
	exec := doc.ExecutionSettings()
	results := engine.RunGraph(ctx, nodes, exec.MaxConcurrent, exec.OnError == config.OnErrorAbort)
	for i, res := range results {
		var msg string
		switch {
		case res.Err != nil:
			msg = res.Err.Error()
		case res.Status == engine.NodeSkipped:
			msg = "skipped: a row it depends on did not complete"
		case res.Status == engine.NodeCancelled:
			msg = "cancelled"
		case res.Status == engine.NodeFailed:
			msg = "failed"
		}
		if msg != "" && ctx.Err() == nil {
			m := redact.String(msg)
			recs[i].Error = &m
			logger.Error("row failed", "row", res.ID, "error", m)
		}
	}
	return recs, nil
}

// runRow builds one invocation's components and runs it (narrowed to
// shard when it is not nil: cluster mode B).
func (s *Server) runRow(ctx context.Context, doc *config.Document, inv config.Invocation, shard *cluster.ShardClaim, logger *slog.Logger) (engine.Result, error) {
	row, err := pipeline.Build(doc, inv, pipeline.Options{Registry: s.cfg.Registry})
	if err != nil {
		return engine.Result{}, err
	}
	if shard != nil {
		if err := narrowToShard(&row, shard); err != nil {
			pipeline.Close(row)
			return engine.Result{}, err
		}
	}
	if row.State != nil {
		defer row.State.Close()
	}
	row.Logger = logger
	row.Stdout = io.Discard
	return engine.Run(ctx, row)
}
