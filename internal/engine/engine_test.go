package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// seqSource emits n records {"id": i} in pages of size, decoding each page
// lazily (on a worker) with a random-ish delay so pages finish out of order.
// Each page's bookmark is its highest id; it merges bookmarks by max.
type seqSource struct {
	n, size, next int
	failEvery     int // every failEvery-th record is a decode failure
	opened        *connector.Value
	nextErrs      []error // returned by Next before the first page
	closed        bool
	emitted       atomic.Int64
	released      atomic.Int64
}

func (s *seqSource) Open(_ context.Context, o connector.SourceOptions) error {
	s.opened = o.StartBookmark
	if o.StartBookmark != nil {
		s.next = int(o.StartBookmark.AsInt())
	}
	return nil
}

func (s *seqSource) Next(context.Context) (*connector.Page, error) {
	if len(s.nextErrs) > 0 {
		err := s.nextErrs[0]
		s.nextErrs = s.nextErrs[1:]
		return nil, err
	}
	if s.next >= s.n {
		return nil, io.EOF
	}
	from, to := s.next+1, min(s.next+s.size, s.n)
	s.next = to
	failEvery := s.failEvery
	s.emitted.Add(1)
	return &connector.Page{Release: func() { s.released.Add(1) }, Decode: func(p *connector.Page) error {
		if (from/s.size)%3 == 0 {
			time.Sleep(time.Millisecond)
		}
		for i := from; i <= to; i++ {
			if failEvery > 0 && i%failEvery == 0 {
				p.Failed = append(p.Failed, connector.RecordError{
					Stage: connector.StageSource, Component: "seq", Location: "seq:" + strconv.Itoa(i),
					Raw: "bad " + strconv.Itoa(i), Err: errors.New("cannot decode"),
				})
				continue
			}
			r := connector.NewRecord(1)
			r.Set("id", connector.Int(int64(i)))
			p.Records = append(p.Records, r)
		}
		b := connector.Int(int64(to))
		p.Bookmark = &b
		return nil
	}}, nil
}

func (s *seqSource) MergeBookmark(a, b connector.Value) connector.Value {
	if b.AsInt() > a.AsInt() {
		return b
	}
	return a
}

func (s *seqSource) Close() error { s.closed = true; return nil }

// logSink records the ids it received and the order of writes and flushes
// in a shared event log; it encodes pages on workers (PageEncoder).
type logSink struct {
	mu       sync.Mutex
	ids      []int64
	events   *[]string
	failAt   int // fail the write that would take the sink past this many records
	retryErr int // return a retryable error this many times first
	flushed  int
	openErr  error // returned by Open
}

func (s *logSink) Open(context.Context, connector.SinkOptions) error { return s.openErr }
func (s *logSink) Write(_ context.Context, p *connector.Page) error {
	return s.take(p)
}
func (s *logSink) take(p *connector.Page) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retryErr > 0 {
		s.retryErr--
		return connector.Retryable(errors.New("busy"))
	}
	if s.failAt > 0 && len(s.ids)+len(p.Records) > s.failAt {
		return errors.New("disk full")
	}
	for _, r := range p.Records {
		v, _ := r.Get("id")
		s.ids = append(s.ids, v.AsInt())
	}
	*s.events = append(*s.events, fmt.Sprintf("write %d", len(s.ids)))
	return nil
}
func (s *logSink) EncodePage(p *connector.Page, dst []byte) ([]byte, error) {
	for _, r := range p.Records {
		dst = connector.AppendRecordJSON(dst, r)
	}
	return dst, nil
}
func (s *logSink) WriteEncoded(ctx context.Context, p *connector.Page, _ []byte) error {
	return s.take(p)
}
func (s *logSink) Flush(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushed = len(s.ids)
	*s.events = append(*s.events, fmt.Sprintf("flush %d", len(s.ids)))
	return nil
}
func (s *logSink) Close() error { return nil }

// logStore wraps a memory store and logs every Put into the event log.
type logStore struct {
	*state.Memory
	events *[]string
}

func (s logStore) Put(ctx context.Context, k string, v []byte) error {
	*s.events = append(*s.events, "save "+string(v))
	return s.Memory.Put(ctx, k, v)
}

func newRow(src *seqSource, sink *logSink, st state.Store) Row {
	return Row{
		Pipeline: "p", ID: "row-0", StateKey: "p::row-0",
		Source: src, SourceType: "seq", Sink: sink, SinkType: "log", State: st,
		Workers: 4, CheckpointEvery: -1,
		Retry: RetryPolicy{MaxAttempts: 3, Base: time.Millisecond, Max: 2 * time.Millisecond},
	}
}

func TestRunKeepsOrderAndCheckpointsAfterFlush(t *testing.T) {
	var events []string
	src := &seqSource{n: 10_000, size: 100}
	sink := &logSink{events: &events}
	st := logStore{state.NewMemory(), &events}
	res, err := Run(context.Background(), newRow(src, sink, st))
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 10_000 || res.Written != 10_000 || !res.StateSaved {
		t.Fatalf("result = %+v", res)
	}
	for i, id := range sink.ids {
		if id != int64(i+1) {
			t.Fatalf("record %d has id %d: pages were reordered", i, id)
		}
	}
	// Every save must come right after a flush that covers it.
	lastFlush := -1
	for _, e := range events {
		var n int
		if _, err := fmt.Sscanf(e, "flush %d", &n); err == nil {
			lastFlush = n
		}
		if _, err := fmt.Sscanf(e, "save %d", &n); err == nil && n > lastFlush {
			t.Fatalf("bookmark %d saved before the sink flushed it (flushed %d)", n, lastFlush)
		}
	}
	got, _, _ := st.Get(context.Background(), "p::row-0")
	if string(got) != "10000" {
		t.Fatalf("saved bookmark = %s", got)
	}
	if !src.closed {
		t.Fatal("source not closed")
	}
	if src.released.Load() != src.emitted.Load() {
		t.Fatalf("%d pages emitted, %d released", src.emitted.Load(), src.released.Load())
	}
}

func TestRunCallsOpenedBetweenOpenAndFirstPage(t *testing.T) {
	var events []string
	src := &seqSource{n: 300, size: 100}
	sink := &logSink{events: &events}
	row := newRow(src, sink, nil)
	calls := 0
	row.Opened = func() {
		calls++
		if src.emitted.Load() != 0 || len(sink.ids) != 0 {
			t.Errorf("Opened called after %d pages were read and %d records written", src.emitted.Load(), len(sink.ids))
		}
	}
	if _, err := Run(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("Opened called %d times, want once", calls)
	}
	failing := newRow(&seqSource{n: 10, size: 10}, &logSink{events: &events, openErr: errors.New("no route")}, nil)
	failing.Opened = func() { t.Error("Opened called although the sink failed to open") }
	if _, err := Run(context.Background(), failing); err == nil {
		t.Fatal("a sink that fails to open did not fail the run")
	}
}

func TestRunCallsWarmOnceAfterItsPages(t *testing.T) {
	for _, c := range []struct {
		pages int
		calls int
	}{{warmPages - 1, 0}, {warmPages, 1}, {10 * warmPages, 1}} {
		src := &seqSource{n: c.pages * 10, size: 10}
		sink := &logSink{events: new([]string)}
		row := newRow(src, sink, nil)
		calls := 0
		row.Warm = func() {
			calls++
			if len(sink.ids) < warmPages*10 {
				t.Errorf("Warm called after %d records were written, before page %d", len(sink.ids), warmPages)
			}
		}
		if _, err := Run(context.Background(), row); err != nil {
			t.Fatal(err)
		}
		if calls != c.calls {
			t.Errorf("%d pages: Warm called %d times, want %d", c.pages, calls, c.calls)
		}
	}
}

func TestRunResumesFromBookmark(t *testing.T) {
	var events []string
	st := state.NewMemory()
	_ = st.Put(context.Background(), "p::row-0", []byte("9500"))
	src := &seqSource{n: 10_000, size: 100}
	sink := &logSink{events: &events}
	res, err := Run(context.Background(), newRow(src, sink, st))
	if err != nil {
		t.Fatal(err)
	}
	if src.opened == nil || src.opened.AsInt() != 9500 {
		t.Fatalf("source opened with %v", src.opened)
	}
	if res.Written != 500 || sink.ids[0] != 9501 {
		t.Fatalf("wrote %d starting at %d", res.Written, sink.ids[0])
	}
}

func TestRunSinkErrorNeverAdvancesBookmark(t *testing.T) {
	var events []string
	st := state.NewMemory()
	src := &seqSource{n: 1000, size: 100}
	sink := &logSink{events: &events, failAt: 450}
	row := newRow(src, sink, st)
	row.CheckpointEvery = time.Hour // only the end or a stop would save
	_, err := Run(context.Background(), row)
	if err == nil || !errors.Is(err, err) || err.Error() != "sink log: disk full" {
		t.Fatalf("err = %v", err)
	}
	if _, ok, _ := st.Get(context.Background(), "p::row-0"); ok {
		t.Fatal("a bookmark was saved although the sink failed")
	}
}

func TestRunRetriesRetryableSinkErrors(t *testing.T) {
	var events []string
	sink := &logSink{events: &events, retryErr: 2}
	res, err := Run(context.Background(), newRow(&seqSource{n: 300, size: 100}, sink, nil))
	if err != nil || res.Written != 300 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	sink2 := &logSink{events: &events, retryErr: 5}
	_, err = Run(context.Background(), newRow(&seqSource{n: 300, size: 100}, sink2, nil))
	if err == nil {
		t.Fatal("expected the error after 3 attempts")
	}
}

func TestRunRetriesSourceNext(t *testing.T) {
	var events []string
	src := &seqSource{n: 200, size: 100, nextErrs: []error{connector.Retryable(errors.New("timeout"))}}
	res, err := Run(context.Background(), newRow(src, &logSink{events: &events}, nil))
	if err != nil || res.Written != 200 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	src = &seqSource{n: 200, size: 100, nextErrs: []error{errors.New("permission denied")}}
	_, err = Run(context.Background(), newRow(src, &logSink{events: &events}, nil))
	if err == nil || err.Error() != "source seq: permission denied" {
		t.Fatalf("err = %v", err)
	}
}

func TestRunFailedRecordWithoutDLQFailsNamingIt(t *testing.T) {
	var events []string
	src := &seqSource{n: 1000, size: 100, failEvery: 250}
	sink := &logSink{events: &events}
	_, err := Run(context.Background(), newRow(src, sink, nil))
	if err == nil || err.Error() != "seq:250: seq: cannot decode" {
		t.Fatalf("err = %v", err)
	}
	if len(sink.ids) != 200 {
		t.Fatalf("wrote %d records; the pages before the bad one (200) should be written", len(sink.ids))
	}
}

func TestRunDeadLettersFailedRecords(t *testing.T) {
	var events, dlqEvents []string
	src := &seqSource{n: 1000, size: 100, failEvery: 250}
	sink := &logSink{events: &events}
	dlq := &captureSink{}
	row := newRow(src, sink, nil)
	row.DLQ = &DLQ{Sink: dlq, Type: "capture"}
	res, err := Run(context.Background(), row)
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != 996 || res.DLQ != 4 || res.Read != 1000 {
		t.Fatalf("res = %+v", res)
	}
	env := dlq.records[0]
	for key, want := range map[string]string{
		"stage": `"source"`, "connector": `"seq"`, "payload": `"bad 250"`, "location": `"seq:250"`,
		"pipeline": `"p"`, "row": `"row-0"`, "sink": `"log"`,
		"error": `{"kind":"source","message":"cannot decode"}`,
	} {
		v, ok := env.Get(key)
		if !ok || v.String() != want {
			t.Errorf("envelope %s = %s, want %s", key, v, want)
		}
	}
	_ = dlqEvents

	// A limit on the DLQ fails the run once exceeded, after committing.
	row = newRow(&seqSource{n: 1000, size: 100, failEvery: 250}, &logSink{events: &events}, nil)
	row.DLQ = &DLQ{Sink: &captureSink{}, Type: "capture", MaxTotal: 2}
	_, err = Run(context.Background(), row)
	if err == nil || err.Error() != "dead-letter limit exceeded: 3 records failed (max_failures_total 2)" {
		t.Fatalf("err = %v", err)
	}
}

type captureSink struct {
	mu      sync.Mutex
	records []connector.Record
}

func (s *captureSink) Open(context.Context, connector.SinkOptions) error { return nil }
func (s *captureSink) Write(_ context.Context, p *connector.Page) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, p.Records...)
	return nil
}
func (s *captureSink) Flush(context.Context) error { return nil }
func (s *captureSink) Close() error                { return nil }

func TestRunLimitCutsTheLastPage(t *testing.T) {
	var events []string
	sink := &logSink{events: &events}
	row := newRow(&seqSource{n: 10_000, size: 100}, sink, nil)
	row.Limit = 250
	res, err := Run(context.Background(), row)
	if err != nil || res.Written != 250 || !res.LimitHit || len(sink.ids) != 250 {
		t.Fatalf("res=%+v err=%v ids=%d", res, err, len(sink.ids))
	}
}

func TestRunCancelFlushesAndSavesWhatWasWritten(t *testing.T) {
	var events []string
	st := state.NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	sink := &cancelAfter{logSink: logSink{events: &events}, after: 3000, cancel: cancel}
	row := newRow(&seqSource{n: 1_000_000, size: 100}, &sink.logSink, st)
	row.Sink = sink
	row.CheckpointEvery = time.Hour
	res, err := Run(ctx, row)
	if !errors.Is(err, context.Canceled) || !res.Cancelled {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if e, r := row.Source.(*seqSource).emitted.Load(), row.Source.(*seqSource).released.Load(); e != r {
		t.Fatalf("cancelled run: %d pages emitted, %d released", e, r)
	}
	got, ok, _ := st.Get(context.Background(), "p::row-0")
	if !ok || string(got) != strconv.Itoa(len(sink.ids)) || sink.flushed != len(sink.ids) {
		t.Fatalf("state %s, wrote %d, flushed %d", got, len(sink.ids), sink.flushed)
	}
	// A rerun completes the job with no gap and no duplicate.
	sink2 := &logSink{events: &events}
	res2, err := Run(context.Background(), newRow(&seqSource{n: 1_000_000, size: 100}, sink2, st))
	if err != nil {
		t.Fatal(err)
	}
	if int(res.Written+res2.Written) != 1_000_000 || sink2.ids[0] != int64(len(sink.ids)+1) {
		t.Fatalf("first run %d + rerun %d records, rerun starts at %d", res.Written, res2.Written, sink2.ids[0])
	}
}

type cancelAfter struct {
	logSink
	after  int
	cancel func()
}

func (c *cancelAfter) WriteEncoded(ctx context.Context, p *connector.Page, b []byte) error {
	err := c.logSink.WriteEncoded(ctx, p, b)
	if len(c.ids) >= c.after {
		c.cancel()
	}
	return err
}

func TestRunOnePageSourceWithoutEncoder(t *testing.T) {
	sink := &captureSink{}
	row := Row{Source: &seqSource{n: 5, size: 10}, SourceType: "seq", Sink: sink, SinkType: "capture"}
	res, err := Run(context.Background(), row)
	if err != nil || res.Written != 5 || len(sink.records) != 5 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
}
