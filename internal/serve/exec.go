package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/redact"
	"github.com/faucet-hq/faucet/internal/state"
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
			res, err := s.runRow(ctx, doc, inv, logger.With("row", inv.ID))
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

// runRow builds one invocation's components and runs it. The construction
// mirrors internal/cli/build.go's buildRow (without dry-run, limit and
// --state-path, which serve has no use for).
func (s *Server) runRow(ctx context.Context, doc *config.Document, inv config.Invocation, logger *slog.Logger) (engine.Result, error) {
	row, err := s.buildRow(doc, inv)
	if err != nil {
		closeRow(row)
		return engine.Result{}, err
	}
	if row.State != nil {
		defer row.State.Close()
	}
	row.Logger = logger
	row.Stdout = io.Discard
	return engine.Run(ctx, row)
}

func (s *Server) buildRow(doc *config.Document, inv config.Invocation) (engine.Row, error) {
	reg := s.cfg.Registry
	row := engine.Row{Pipeline: doc.PipelineName(), ID: inv.ID, StateKey: inv.StateKey,
		SourceType: inv.Source.Type, SinkType: inv.Sink.Type}
	src, err := reg.Source(inv.Source.Type)
	if err != nil {
		return row, err
	}
	if row.Source, err = src.New(inv.Source.Config); err != nil {
		return row, err
	}
	for _, t := range inv.Transforms {
		spec, err := reg.Transform(t.Type)
		if err != nil {
			return row, err
		}
		tr, err := spec.New(t.Config)
		if err != nil {
			return row, err
		}
		row.Transforms = append(row.Transforms, engine.Step{Name: t.Type, Transform: tr})
	}
	sink, err := reg.Sink(inv.Sink.Type)
	if err != nil {
		return row, err
	}
	if row.Sink, err = sink.New(inv.Sink.Config); err != nil {
		return row, err
	}
	if inv.DLQ != nil {
		spec, err := reg.Sink(inv.DLQ.Sink.Type)
		if err != nil {
			return row, err
		}
		d, err := spec.New(inv.DLQ.Sink.Config)
		if err != nil {
			return row, err
		}
		row.DLQ = &engine.DLQ{Sink: d, Type: inv.DLQ.Sink.Type, MaxTotal: inv.DLQ.MaxFailuresTotal}
	}
	if inv.State != nil {
		if err := state.ValidateKey(inv.StateKey); err != nil {
			return row, fmt.Errorf("row %s: %w", inv.ID, err)
		}
		if row.State, err = state.Open(inv.State.Type, inv.State.Config); err != nil {
			return row, err
		}
	}
	return row, nil
}

func closeRow(row engine.Row) {
	if row.Source != nil {
		_ = row.Source.Close()
	}
	if row.Sink != nil {
		_ = row.Sink.Close()
	}
	if row.DLQ != nil && row.DLQ.Sink != nil {
		_ = row.DLQ.Sink.Close()
	}
	if row.State != nil {
		_ = row.State.Close()
	}
}
