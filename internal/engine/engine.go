package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// Step is one configured transform.
type Step struct {
	Name      string // the transform type, for error messages
	Transform connector.Transform
}

// DLQ is a dead-letter destination.
type DLQ struct {
	Sink     connector.Sink
	Type     string
	MaxTotal int64 // fail the run once more records than this were dead-lettered; 0 = no limit
	// MaxPerPage fails the run (after the page is committed) once one page
	// dead-lettered more records than this; 0 = no limit.
	MaxPerPage int64
	// AllOnBatchError (on_batch_error: dlq_all) dead-letters every record
	// of a page whose write the sink failed as a whole, and goes on. The
	// sink is then flushed after every page, so a failed write never takes
	// earlier pages with it.
	AllOnBatchError bool
}

// Row is everything needed to run one pipeline row.
type Row struct {
	Pipeline   string // pipeline name
	ID         string // row id
	StateKey   string // `{pipeline}::{row}`
	Source     connector.Source
	SourceType string
	Transforms []Step
	Sink       connector.Sink
	SinkType   string
	State      state.Store // nil: the row keeps no bookmark
	DLQ        *DLQ        // nil: a failed record fails the run

	// ExactlyOnce writes bookmarked pages with commit tokens (see
	// exactlyonce.go); it needs a connector.IdempotentSink, a durable
	// state store and no DLQ.
	ExactlyOnce bool

	Limit           int64         // stop after this many records were written; 0 = all
	Workers         int           // decode/transform/encode goroutines; 0 = GOMAXPROCS
	Retry           RetryPolicy   // zero value = DefaultRetry
	CheckpointEvery time.Duration // 0 = 1s; negative = after every bookmarked page
	Logger          *slog.Logger
	Stdout          io.Writer // for console sinks
	Stats           *Stats    // optional live counters

	// Opened, when set, is called once the source, the sink and any
	// dead-letter sink are open, before the first page is read: the end
	// of the run's set-up. `faucet run` gives back the executable pages
	// set-up used there (internal/imagepages).
	Opened func()
	// Warm, when set, is called once, when the writer has handled
	// warmPages pages: the run is in its steady state. `faucet run` gives
	// back, again, the executable pages that only the first pages used
	// (the first fetches, the first page's encoding, logging).
	Warm func()
}

// warmPages is the number of pages after which a run calls Row.Warm.
const warmPages = 16

// Result summarises a finished (or stopped) row.
type Result struct {
	Read       int64
	Written    int64
	DLQ        int64
	Dropped    int64
	Bookmark   *connector.Value // the bookmark saved last, if any
	StateSaved bool
	Cancelled  bool
	LimitHit   bool
	Elapsed    time.Duration
}

// Run executes the row until the source is exhausted, the limit is
// reached, an error occurs or ctx is cancelled. See the package comment for
// the ordering guarantees.
func Run(ctx context.Context, row Row) (res Result, err error) {
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	if row.Logger == nil {
		row.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if row.Stats == nil {
		row.Stats = &Stats{}
	}
	if row.Workers <= 0 {
		row.Workers = runtime.GOMAXPROCS(0)
	}
	if row.Retry.MaxAttempts == 0 {
		row.Retry = DefaultRetry
	}
	if row.CheckpointEvery == 0 {
		row.CheckpointEvery = time.Second
	}

	sinkOpts := connector.SinkOptions{Logger: row.Logger, Stdout: row.Stdout}
	var resume *connector.Value
	var eo *eoRun
	if row.ExactlyOnce {
		// The sink's commit token decides where the source starts, so the
		// sink opens first here.
		sink, err := checkExactlyOnce(row)
		if err != nil {
			return res, err
		}
		if err := row.Sink.Open(ctx, sinkOpts); err != nil {
			return res, fmt.Errorf("sink %s: %w", row.SinkType, err)
		}
		defer row.Sink.Close()
		eo = &eoRun{sink: sink}
		if resume, eo.seq, eo.committed, err = resumeExactlyOnce(ctx, row, sink); err != nil {
			return res, err
		}
	} else if row.State != nil {
		resume, err = loadBookmark(ctx, row.State, row.StateKey)
		if err != nil {
			return res, err
		}
	}
	// Otherwise the source opens first: a missing input fails before any
	// output exists.
	if err := row.Source.Open(ctx, connector.SourceOptions{StartBookmark: resume, Logger: row.Logger}); err != nil {
		return res, fmt.Errorf("source %s: %w", row.SourceType, err)
	}
	defer row.Source.Close()
	if eo == nil {
		if err := row.Sink.Open(ctx, sinkOpts); err != nil {
			return res, fmt.Errorf("sink %s: %w", row.SinkType, err)
		}
		defer row.Sink.Close()
	}
	if row.DLQ != nil {
		if err := row.DLQ.Sink.Open(ctx, sinkOpts); err != nil {
			return res, fmt.Errorf("dlq sink %s: %w", row.DLQ.Type, err)
		}
		defer row.DLQ.Sink.Close()
	}

	if row.Opened != nil {
		row.Opened()
	}
	w := newWriter(row, resume)
	w.eo = eo
	err = w.run(ctx)
	res = w.result()
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil {
		res.Cancelled = true
	}
	return res, err
}

func loadBookmark(ctx context.Context, st state.Store, key string) (*connector.Value, error) {
	data, ok, err := st.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read state %q: %w", key, err)
	}
	if !ok {
		return nil, nil
	}
	v, err := decodeBookmark(data)
	if err != nil {
		return nil, fmt.Errorf("read state %q: %w", key, err)
	}
	return &v, nil
}
