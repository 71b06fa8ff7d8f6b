package connectortest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// Factory tells the suite how to build the connector under test. Only the
// parts that are set are checked: a sink-only connector leaves the source
// fields nil.
type Factory struct {
	// Name is the registered type of the connector ("csv", "sqlite").
	Name string
	// Registry to look the kinds up in; nil means connector.Default.
	Registry *connector.Registry

	// Source returns the config of a source that streams exactly n
	// records, each with field KeyField, whose values strictly increase in
	// stream order. Data it creates must live in t's temp dir or be
	// cleaned up with t.Cleanup.
	Source func(t *testing.T, n int) connector.Config
	// Incremental returns the config of a source over the same kind of n
	// records with replication_key set to KeyField; nil when the source is
	// not incremental.
	Incremental func(t *testing.T, n int) connector.Config
	KeyField    string
	// MissingSource returns a config that decodes but whose Open must fail
	// (a missing file, an unknown table).
	MissingSource func(t *testing.T) connector.Config
	// PageSize is the most records the Source config puts in a page
	// (default connector.DefaultPageSize).
	PageSize int

	// Sink returns a sink config and a function that counts the records
	// the destination holds once the sink is closed.
	Sink func(t *testing.T) (connector.Config, func(t *testing.T) int)

	// BadSourceConfigs and BadSinkConfigs are extra configs New must
	// reject with an error.
	BadSourceConfigs []connector.Value
	BadSinkConfigs   []connector.Value

	// StreamRecords is how many records the bounded-memory test streams
	// (default 1,000,000; 100,000 under -race; 20,000 with -short).
	StreamRecords int
	// MaxHeapGrowth bounds the live heap growth while streaming, in bytes
	// (default 64 MiB).
	MaxHeapGrowth uint64
	// MaxAllocPerRecord, when set, bounds the bytes allocated per record
	// while streaming (garbage included): a source that recycles its
	// buffers and record memory stays far below a record's size.
	MaxAllocPerRecord float64
}

func (f *Factory) registry() *connector.Registry {
	if f.Registry != nil {
		return f.Registry
	}
	return connector.Default
}

func (f *Factory) pageSize() int {
	if f.PageSize > 0 {
		return f.PageSize
	}
	return connector.DefaultPageSize
}

// Run runs the conformance suite for f.
func Run(t *testing.T, f Factory) {
	t.Helper()
	if f.Name == "" {
		t.Fatal("connectortest: Factory.Name is empty")
	}
	if f.Source != nil {
		spec, err := f.registry().Source(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("source", func(t *testing.T) { runSource(t, &f, spec) })
	}
	if f.Sink != nil {
		spec, err := f.registry().Sink(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("sink", func(t *testing.T) { runSink(t, &f, spec) })
	}
}

func runSource(t *testing.T, f *Factory, spec connector.SourceSpec) {
	newSrc := func(t *testing.T, c connector.Config) connector.Source {
		t.Helper()
		src, err := safeNewSource(spec, c)
		if err != nil {
			t.Fatalf("New(%s): %v", c.Value, err)
		}
		return src
	}
	t.Run("schema", func(t *testing.T) { checkSchema(t, spec.Config) })
	t.Run("bad configs", func(t *testing.T) {
		base := f.Source(t, 3)
		for _, bad := range badConfigs(t, spec.Config, base.Value, f.BadSourceConfigs) {
			_, err := safeNewSource(spec, connector.Config{Path: base.Path, Value: bad})
			if err == nil || isPanic(err) {
				t.Errorf("config %s: want an error, got %v", bad, err)
			}
		}
	})
	if f.MissingSource != nil {
		t.Run("missing input", func(t *testing.T) {
			src := newSrc(t, f.MissingSource(t))
			err := safeCall(func() error { return src.Open(context.Background(), connector.SourceOptions{}) })
			if err == nil || isPanic(err) {
				t.Errorf("Open: want an error, got %v", err)
			}
			_ = safeCall(src.Close)
		})
	}
	t.Run("cancelled context", func(t *testing.T) {
		src := newSrc(t, f.Source(t, 10))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := safeCall(func() error { return src.Open(ctx, connector.SourceOptions{}) })
		if isPanic(err) {
			t.Fatal(err)
		}
		if err == nil {
			err = safeCall(func() error {
				p, err := src.Next(ctx)
				if err == nil {
					return fmt.Errorf("Next returned a page of %d records on a cancelled context", len(p.Records))
				}
				if errors.Is(err, io.EOF) {
					return fmt.Errorf("Next returned io.EOF on a cancelled context: a cancelled read must not look complete")
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}
		if err := safeCall(src.Close); isPanic(err) {
			t.Fatal(err)
		}
	})
	t.Run("cancellation stops within one page", func(t *testing.T) {
		ps := f.pageSize()
		src := newSrc(t, f.Source(t, 6*ps))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if _, err := src.Next(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		var err error
		pages := 0
		for ; pages < 3; pages++ {
			if err = safeCall(func() error { _, e := src.Next(ctx); return e }); err != nil {
				break
			}
		}
		switch {
		case err == nil || pages > 1:
			t.Errorf("source returned %d pages after cancellation", pages)
		case !errors.Is(err, context.Canceled):
			t.Errorf("Next after cancel: want context.Canceled, got %v", err)
		}
	})
	t.Run("stream with bounded memory", func(t *testing.T) { streamBounded(t, f, newSrc) })
	if f.Incremental != nil {
		t.Run("bookmark round trip", func(t *testing.T) { bookmarkRoundTrip(t, f, newSrc) })
	}
}

func runSink(t *testing.T, f *Factory, spec connector.SinkSpec) {
	t.Run("schema", func(t *testing.T) { checkSchema(t, spec.Config) })
	t.Run("bad configs", func(t *testing.T) {
		base, _ := f.Sink(t)
		for _, bad := range badConfigs(t, spec.Config, base.Value, f.BadSinkConfigs) {
			_, err := safeNewSink(spec, connector.Config{Path: base.Path, Value: bad})
			if err == nil || isPanic(err) {
				t.Errorf("config %s: want an error, got %v", bad, err)
			}
		}
	})
	t.Run("write flush close", func(t *testing.T) {
		c, count := f.Sink(t)
		snk, err := safeNewSink(spec, c)
		if err != nil {
			t.Fatal(err)
		}
		const n = 2500
		recs := Records(n)
		var pages []*connector.Page
		for i := 0; i < n; i += 1000 {
			pages = append(pages, &connector.Page{Records: recs[i:min(i+1000, n)], Seq: uint64(len(pages))})
		}
		if err := safeCall(func() error { return WritePages(context.Background(), snk, pages...) }); err != nil {
			t.Fatal(err)
		}
		if got := count(t); got != n {
			t.Errorf("destination holds %d records, want %d", got, n)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		c, _ := f.Sink(t)
		snk, err := safeNewSink(spec, c)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err = safeCall(func() error {
			if err := snk.Open(ctx, connector.SinkOptions{Stdout: io.Discard}); err != nil {
				return nil // refusing to open is fine
			}
			_ = writePage(ctx, snk, &connector.Page{Records: Records(10)})
			_ = snk.Flush(ctx)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := safeCall(snk.Close); isPanic(err) {
			t.Fatal(err)
		}
	})
}

// Records returns n records of mixed types: id (1..n), name (with
// non-ASCII text), score (a float), active (a bool), note (null on every
// third record, an empty string on every fifth).
func Records(n int) []connector.Record {
	out := make([]connector.Record, n)
	for i := range out {
		id := int64(i + 1)
		note := connector.String(fmt.Sprintf("note %d ✓", id))
		switch {
		case id%3 == 0:
			note = connector.Null()
		case id%5 == 0:
			note = connector.String("")
		}
		out[i] = connector.Record{Fields: []connector.Field{
			{Key: "id", Value: connector.Int(id)},
			{Key: "name", Value: connector.String(fmt.Sprintf("name-%d-é", id))},
			{Key: "score", Value: connector.Float(float64(id) + 0.5)},
			{Key: "active", Value: connector.Bool(id%2 == 0)},
			{Key: "note", Value: note},
		}}
	}
	return out
}
