package cli

import (
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/state"
)

// buildOptions adjust how an invocation is turned into an engine row.
type buildOptions struct {
	dryRun    bool   // count instead of writing; never save state
	limit     int64  // stop after N records; never save state
	statePath string // --state-path: file store directory override
}

// buildRow constructs the components of one invocation. Nothing is opened
// yet: that happens in engine.Run, source first.
func buildRow(doc *config.Document, inv config.Invocation, opts buildOptions) (engine.Row, error) {
	reg := registry()
	row := engine.Row{
		Pipeline:   doc.PipelineName(),
		ID:         inv.ID,
		StateKey:   inv.StateKey,
		SourceType: inv.Source.Type,
		SinkType:   inv.Sink.Type,
		Limit:      opts.limit,
	}
	srcSpec, err := reg.Source(inv.Source.Type)
	if err != nil {
		return row, err
	}
	if row.Source, err = srcSpec.New(inv.Source.Config); err != nil {
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
	if opts.dryRun {
		row.Sink, row.SinkType = &engine.CountingSink{}, "dry-run("+inv.Sink.Type+")"
	} else {
		sinkSpec, err := reg.Sink(inv.Sink.Type)
		if err != nil {
			return row, err
		}
		if row.Sink, err = sinkSpec.New(inv.Sink.Config); err != nil {
			return row, err
		}
	}
	if inv.DLQ != nil && !opts.dryRun {
		spec, err := reg.Sink(inv.DLQ.Sink.Type)
		if err != nil {
			return row, err
		}
		s, err := spec.New(inv.DLQ.Sink.Config)
		if err != nil {
			return row, err
		}
		row.DLQ = &engine.DLQ{Sink: s, Type: inv.DLQ.Sink.Type, MaxTotal: inv.DLQ.MaxFailuresTotal}
	}
	st, err := openState(inv, opts.statePath)
	if err != nil {
		return row, err
	}
	if st != nil && (opts.dryRun || opts.limit > 0) {
		st = state.ReadOnly(st)
	}
	row.State = st
	return row, nil
}

func openState(inv config.Invocation, statePath string) (state.Store, error) {
	if inv.State == nil {
		if statePath != "" {
			return state.NewFile(statePath), nil
		}
		return nil, nil
	}
	if err := state.ValidateKey(inv.StateKey); err != nil {
		return nil, fmt.Errorf("row %s: %w", inv.ID, err)
	}
	if statePath != "" && inv.State.Type == "file" {
		return state.NewFile(statePath), nil
	}
	return state.Open(inv.State.Type, inv.State.Config)
}

// closeRow releases what buildRow made when the row never ran.
func closeRow(row engine.Row) {
	if row.Source != nil {
		_ = row.Source.Close()
	}
	if row.Sink != nil {
		_ = row.Sink.Close()
	}
	if row.State != nil {
		_ = row.State.Close()
	}
}

var _ connector.Sink = (*engine.CountingSink)(nil)
