package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/faucet-hq/faucet/internal/imagepages"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/pipeline"
)

func init() { addVerb(newRunCmd) }

type runFlags struct {
	loadFlags
	dryRun    bool
	limit     int64
	statePath string
	output    string
}

func newRunCmd(app *App) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [CONFIG]",
		Short: "Run a pipeline: stream records from the source through the transforms to the sink",
		Long: `Run a pipeline file (default: faucet.yaml, faucet.yml or faucet.json in the
current directory). Matrix rows run concurrently up to execution.max_concurrent,
each after the rows it depends_on. SIGINT or SIGTERM finish the current page,
flush, save state and exit non-zero (130 on SIGINT).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return app.run(cmd.Context(), args, f)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.BoolVar(&f.dryRun, "dry-run", false, "read and transform everything but write nothing and save no state")
	fl.Int64Var(&f.limit, "limit", 0, "stop after N records were written per row (state is not saved)")
	fl.StringVar(&f.statePath, "state-path", "", "directory of the file state store: replaces a file store's path, or enables a file store if the config has no state")
	fl.StringVar(&f.output, "output", "text", "summary format: text (stderr), json or ndjson (stdout)")
	return cmd
}

func (app *App) run(ctx context.Context, args []string, f *runFlags) error {
	// Package initialization left code, type data and function tables of
	// the whole binary resident; a run needs few of them (imagepages).
	// Done here and not in main: a short command would pay for the pages
	// it then faults back in (~2 ms of CPU on `faucet version`).
	imagepages.Release()
	switch f.output {
	case "text", "json", "ndjson":
	default:
		return &usageError{fmt.Errorf("--output must be text, json or ndjson, got %q", f.output)}
	}
	if f.limit < 0 {
		return &usageError{errors.New("--limit must be positive")}
	}
	path, err := app.resolvePath(args)
	if err != nil {
		return err
	}
	doc, err := app.load(path, &f.loadFlags, false)
	if err != nil {
		return err
	}
	if err := doc.Check(registry()); err != nil {
		return err
	}
	invs, err := doc.Expand()
	if err != nil {
		return err
	}

	ctx, sig := withSignals(ctx)
	defer sig.stop()

	opts := pipeline.Options{Registry: registry(), DryRun: f.dryRun, Limit: f.limit, StatePath: f.statePath}
	rep := newReport(doc.PipelineName(), invs)
	prog := app.startProgress(rep)
	nodes := make([]engine.Node, len(invs))
	for i, inv := range invs {
		inv := inv
		rr := rep.rows[i]
		nodes[i] = engine.Node{ID: inv.ID, DependsOn: inv.DependsOn, Run: func(ctx context.Context) error {
			return app.runRow(ctx, doc, inv, opts, rr)
		}}
	}
	exec := doc.ExecutionSettings()
	results := engine.RunGraph(ctx, nodes, exec.MaxConcurrent, exec.OnError == "abort")
	prog.stop()
	rep.finish(results)
	if err := app.printReport(rep, f.output); err != nil {
		return err
	}
	switch {
	case sig.received() == os.Interrupt:
		return &ExitError{Code: 130, Err: errPrinted}
	case sig.received() != nil:
		return &ExitError{Code: 143, Err: errPrinted}
	case rep.failed() > 0:
		return &ExitError{Code: 1, Err: errPrinted}
	}
	return nil
}

func (app *App) runRow(ctx context.Context, doc *config.Document, inv config.Invocation, opts pipeline.Options, rr *rowReport) error {
	row, err := pipeline.Build(doc, inv, opts)
	if err != nil {
		return err
	}
	if row.State != nil {
		defer row.State.Close()
	}
	row.Logger = app.Logger.With("row", inv.ID)
	row.Stdout = app.Stdout
	row.Stats = &rr.stats
	// Reading the config, connecting and opening used code the data path
	// does not; give those pages back before it starts.
	row.Opened = imagepages.Release
	// And once the data path is warm, what only its first pages used.
	row.Warm = imagepages.Release
	rr.start()
	res, err := engine.Run(ctx, row)
	rr.done(res, err)
	return err
}

// signals turns SIGINT/SIGTERM into a cancelled context and remembers which
// one arrived. A second signal exits at once.
type signals struct {
	ch   chan os.Signal
	mu   sync.Mutex
	got  os.Signal
	done chan struct{}
}

func withSignals(parent context.Context) (context.Context, *signals) {
	ctx, cancel := context.WithCancel(parent)
	s := &signals{ch: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sg := <-s.ch:
			s.mu.Lock()
			s.got = sg
			s.mu.Unlock()
			cancel()
		case <-s.done:
			cancel()
			return
		}
		select {
		case <-s.ch:
			fmt.Fprintln(os.Stderr, "faucet: second signal, exiting without cleanup")
			os.Exit(130)
		case <-s.done:
		}
	}()
	return ctx, s
}

func (s *signals) received() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}

func (s *signals) stop() {
	signal.Stop(s.ch)
	close(s.done)
}
