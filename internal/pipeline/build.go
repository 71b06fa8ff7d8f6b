// Package pipeline turns an expanded pipeline row (config.Invocation) into
// a runnable engine.Row: it looks up and constructs the source, transforms,
// sink, dead-letter sink and state store. `faucet run`, `faucet preview`
// and `faucet serve` all build their rows here. Nothing is opened: that
// happens in engine.Run, source first.
package pipeline

import (
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/state"
)

// Options adjust how an invocation becomes an engine row.
type Options struct {
	// Registry holds the connector and transform kinds (connector.Default
	// when nil).
	Registry *connector.Registry
	// DryRun counts records instead of writing them; with it, or with
	// Limit, state is read but never saved.
	DryRun bool
	Limit  int64
	// StatePath replaces a file state store's directory, or enables a file
	// store when the row has none (`faucet run --state-path`).
	StatePath string
}

// Build constructs the components of one invocation. On error, the
// components already built are closed.
func Build(doc *config.Document, inv config.Invocation, opts Options) (engine.Row, error) {
	return build(doc, inv, opts, true)
}

func build(doc *config.Document, inv config.Invocation, opts Options, openStore bool) (row engine.Row, err error) {
	reg := opts.Registry
	if reg == nil {
		reg = connector.Default
	}
	row = engine.Row{
		Pipeline:   doc.PipelineName(),
		ID:         inv.ID,
		StateKey:   inv.StateKey,
		SourceType: inv.Source.Type,
		SinkType:   inv.Sink.Type,
		Limit:      opts.Limit,
	}
	defer func() {
		if err != nil {
			Close(row)
		}
	}()
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
	if opts.DryRun {
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
	if inv.DLQ != nil && !opts.DryRun {
		spec, err := reg.Sink(inv.DLQ.Sink.Type)
		if err != nil {
			return row, err
		}
		s, err := spec.New(inv.DLQ.Sink.Config)
		if err != nil {
			return row, err
		}
		row.DLQ = &engine.DLQ{
			Sink: s, Type: inv.DLQ.Sink.Type,
			MaxTotal: inv.DLQ.MaxFailuresTotal, MaxPerPage: inv.DLQ.MaxFailuresPerPage,
			AllOnBatchError: inv.DLQ.OnBatchError == "dlq_all",
		}
	}
	if inv.Delivery == config.ExactlyOnce && !opts.DryRun && opts.Limit == 0 {
		if err := checkExactlyOnce(inv, row); err != nil {
			return row, err
		}
		row.ExactlyOnce = true
	}
	if !openStore {
		if inv.State != nil {
			return row, state.ValidateKey(inv.StateKey)
		}
		return row, nil
	}
	st, err := openState(inv, opts.StatePath)
	if err != nil {
		return row, err
	}
	if st != nil && (opts.DryRun || opts.Limit > 0) {
		st = state.ReadOnly(st)
	}
	row.State = st
	return row, nil
}

// checkExactlyOnce refuses, before anything runs, a row whose delivery is
// exactly_once but whose sink, state or dead-letter queue cannot honour it
// (the engine checks the same again when it runs the row).
func checkExactlyOnce(inv config.Invocation, row engine.Row) error {
	if _, ok := row.Sink.(connector.IdempotentSink); !ok {
		return fmt.Errorf("row %s: delivery: exactly_once: sink %s cannot commit a watermark with its rows (sqlite, postgres, mysql, redis and kafka sinks can)", inv.ID, inv.Sink.Type)
	}
	if inv.State == nil || inv.State.Type == "memory" {
		return fmt.Errorf("row %s: delivery: exactly_once needs a durable state store (state: file, sqlite, postgres or redis)", inv.ID)
	}
	if inv.DLQ != nil {
		return fmt.Errorf("row %s: delivery: exactly_once cannot be combined with a dlq", inv.ID)
	}
	if err := connector.CheckReplay(row.Source); err != nil {
		return fmt.Errorf("row %s: delivery: exactly_once: source %s cannot replay its pages from a bookmark: %w", inv.ID, inv.Source.Type, err)
	}
	return nil
}

// Check builds the connectors and transforms of inv (no state store, no
// I/O) and closes them again: the run-time checks, for `faucet validate`.
func Check(doc *config.Document, inv config.Invocation, reg *connector.Registry) error {
	row, err := build(doc, inv, Options{Registry: reg}, false)
	if err != nil {
		return err
	}
	Close(row)
	return nil
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

// Close releases what Build made, for a row that will not run (engine.Run
// closes the source and sinks of a row it ran; the caller closes State).
func Close(row engine.Row) {
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
