package engine

import (
	"bytes"
	"cmp"
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// bytesSink writes encoded pages only (connector.EncodedOnlyWriter): its
// output is the JSON lines of what it was given, and it notes whether a
// page still had its records when it was written.
type bytesSink struct {
	mu          sync.Mutex
	out         bytes.Buffer
	withRecords int // pages written with their records still on them
}

func (s *bytesSink) Open(context.Context, connector.SinkOptions) error { return nil }
func (s *bytesSink) Write(ctx context.Context, p *connector.Page) error {
	b, _ := s.EncodePage(p, nil)
	return s.WriteEncoded(ctx, p, b)
}
func (s *bytesSink) EncodePage(p *connector.Page, dst []byte) ([]byte, error) {
	for _, r := range p.Records {
		dst = connector.AppendRecordJSON(dst, r)
		dst = append(dst, '\n')
	}
	return dst, nil
}
func (s *bytesSink) WriteEncoded(_ context.Context, p *connector.Page, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Records != nil {
		s.withRecords++
	}
	s.out.Write(b)
	return nil
}
func (s *bytesSink) WritesEncodedOnly()          {}
func (s *bytesSink) Flush(context.Context) error { return nil }
func (s *bytesSink) Close() error                { return nil }

// lines is the output's lines.
func (s *bytesSink) lines() []string {
	return strings.Split(strings.TrimSuffix(s.out.String(), "\n"), "\n")
}

// trimSource is seqSource with a Trim on every page that counts its calls.
type trimSource struct {
	seqSource
	trims atomic.Int64
}

func (s *trimSource) Next(ctx context.Context) (*connector.Page, error) {
	p, err := s.seqSource.Next(ctx)
	if p != nil {
		p.Trim = func() { s.trims.Add(1) }
	}
	return p, err
}

func TestRunTrimsEncodedPages(t *testing.T) {
	for _, c := range []struct {
		name      string
		failEvery int
		mod       func(*Row)
		sink      connector.Sink
		trims     int64 // of the 10 pages read
		written   int64
		pages     int // written; 0: all 10
	}{
		{name: "encoded-only sink", trims: 10, written: 1000},
		{name: "pages with failed records keep theirs", failEvery: 250, trims: 6, written: 996,
			mod: func(r *Row) { r.DLQ = &DLQ{Sink: &captureSink{}, Type: "capture"} }},
		{name: "limit (the last page is encoded again)", trims: 0, written: 250, pages: 3,
			mod: func(r *Row) { r.Limit = 250 }},
		{name: "dlq_all (a failed page's records are dead-lettered)", trims: 0, written: 1000,
			mod: func(r *Row) { r.DLQ = &DLQ{Sink: &captureSink{}, Type: "capture", AllOnBatchError: true} }},
		{name: "a sink that reads the records when writing", sink: &logSink{events: new([]string)}, trims: 0, written: 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &trimSource{seqSource: seqSource{n: 1000, size: 100, failEvery: c.failEvery}}
			bs := &bytesSink{}
			row := newRow(&src.seqSource, nil, nil)
			row.Source = src
			row.Sink = bs
			row.Stats = &Stats{}
			if c.sink != nil {
				row.Sink = c.sink
			}
			if c.mod != nil {
				c.mod(&row)
			}
			res, err := Run(context.Background(), row)
			if err != nil {
				t.Fatal(err)
			}
			if got := src.trims.Load(); got != c.trims {
				t.Errorf("%d pages trimmed, want %d", got, c.trims)
			}
			if res.Written != c.written || row.Stats.Written.Load() != c.written {
				t.Errorf("written %d (stats %d), want %d", res.Written, row.Stats.Written.Load(), c.written)
			}
			if c.sink != nil {
				return
			}
			lines := bs.lines()
			if int64(len(lines)) != c.written {
				t.Fatalf("%d lines written, want %d", len(lines), c.written)
			}
			if want := cmp.Or(c.pages, 10) - int(c.trims); bs.withRecords != want {
				t.Errorf("%d pages reached the sink with their records, want %d", bs.withRecords, want)
			}
			if last := `{"id":` + strconv.FormatInt(c.written, 10) + `}`; c.failEvery == 0 && (lines[0] != `{"id":1}` || lines[len(lines)-1] != last) {
				t.Errorf("output runs %s .. %s, want {\"id\":1} .. %s", lines[0], lines[len(lines)-1], last)
			}
		})
	}
}

// flushSink is bytesSink that counts its durable and buffer-only flushes
// (connector.DurableFlusher).
type flushSink struct {
	bytesSink
	durable, buffers int
}

func (s *flushSink) Flush(context.Context) error        { s.durable++; return nil }
func (s *flushSink) FlushBuffers(context.Context) error { s.buffers++; return nil }

// TestRunFlushesDurablyOnlyWhenSomethingDependsOnIt: a run that saves
// no bookmark asks a DurableFlusher for its buffers only; one that saves
// a bookmark after every page flushes durably before each save (and the
// final flush, with nothing left to save, is buffer-only).
func TestRunFlushesDurablyOnlyWhenSomethingDependsOnIt(t *testing.T) {
	for _, c := range []struct {
		name             string
		state            bool
		durable, buffers int
	}{
		{"no state store", false, 0, 11},
		{"bookmarks saved", true, 10, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &seqSource{n: 1000, size: 100}
			sink := &flushSink{}
			row := newRow(src, nil, nil)
			row.Sink = sink
			if c.state {
				row.State = state.NewMemory()
			}
			if _, err := Run(context.Background(), row); err != nil {
				t.Fatal(err)
			}
			if sink.durable != c.durable || sink.buffers != c.buffers {
				t.Fatalf("%d durable and %d buffer-only flushes, want %d and %d", sink.durable, sink.buffers, c.durable, c.buffers)
			}
			if got := len(sink.lines()); got != 1000 {
				t.Fatalf("%d lines written, want 1000", got)
			}
		})
	}
}
