package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// txSink models a database sink whose transaction spans the pages written
// since the last Flush: a page holding a bad id fails as a whole and
// rolls back every uncommitted page with it.
type txSink struct {
	mu                 sync.Mutex
	bad                map[int64]bool
	pending, committed []int64
	flushes            int
}

func (s *txSink) Open(context.Context, connector.SinkOptions) error { return nil }
func (s *txSink) Write(_ context.Context, p *connector.Page) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range p.Records {
		v, _ := r.Get("id")
		if s.bad[v.AsInt()] {
			s.pending = nil
			return fmt.Errorf("value %d out of range for column id", v.AsInt())
		}
		s.pending = append(s.pending, v.AsInt())
	}
	return nil
}
func (s *txSink) Flush(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.committed, s.pending = append(s.committed, s.pending...), nil
	s.flushes++
	return nil
}
func (s *txSink) Close() error { return nil }

// TestRunDLQAllOnBatchError: with on_batch_error: dlq_all a page the sink
// fails as a whole goes to the DLQ record by record and the run goes on;
// every source record ends up exactly once in the sink or in the DLQ,
// although the sink's failure rolls back all uncommitted pages (the
// engine commits each page alone in this mode). With the default
// (propagate) the run fails.
func TestRunDLQAllOnBatchError(t *testing.T) {
	sink := &txSink{bad: map[int64]bool{120: true, 260: true}}
	dlq := &captureSink{}
	st := state.NewMemory()
	row := newRow(&seqSource{n: 300, size: 50}, nil, st)
	row.Sink, row.SinkType = sink, "tx"
	row.CheckpointEvery = time.Hour // only at the end, unless the engine flushes
	row.DLQ = &DLQ{Sink: dlq, Type: "capture", AllOnBatchError: true}
	res, err := Run(context.Background(), row)
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != 200 || res.DLQ != 100 || len(sink.committed) != 200 || len(dlq.records) != 100 {
		t.Fatalf("res = %+v, sink committed %d, dlq %d", res, len(sink.committed), len(dlq.records))
	}
	seen := map[int64]int{}
	for _, id := range sink.committed {
		seen[id]++
	}
	for i, env := range dlq.records {
		reason, _ := env.Get("reason")
		idx, _ := env.Get("record_index")
		payload, _ := env.Get("payload")
		msg, _ := env.Get("error")
		id, _ := payload.AsObject().Get("id")
		if reason.AsString() != "dlq_all" || idx.AsInt() != id.AsInt() || !strings.Contains(msg.String(), "out of range for column id") {
			t.Fatalf("envelope %d: reason %s, record_index %s, payload %s, error %s", i, reason, idx, payload, msg)
		}
		seen[id.AsInt()]++
	}
	for id := int64(1); id <= 300; id++ {
		if seen[id] != 1 {
			t.Fatalf("record %d is in the sink or the DLQ %d times, want once", id, seen[id])
		}
	}
	if sink.flushes < 4 {
		t.Errorf("sink flushed %d times, want once per written page at least", sink.flushes)
	}
	if data, ok, _ := st.Get(context.Background(), "p::row-0"); !ok || string(data) != "300" {
		t.Errorf("saved bookmark %q, want 300", data)
	}

	sink = &txSink{bad: map[int64]bool{120: true}}
	row = newRow(&seqSource{n: 300, size: 50}, nil, state.NewMemory())
	row.Sink, row.SinkType = sink, "tx"
	row.DLQ = &DLQ{Sink: &captureSink{}, Type: "capture"}
	if _, err := Run(context.Background(), row); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("on_batch_error: propagate: %v", err)
	}
}

// TestRunDLQMaxFailuresPerPage: a page with more dead-lettered records
// than max_failures_per_page fails the run after that page is committed
// with its bookmark; at the limit the run completes.
func TestRunDLQMaxFailuresPerPage(t *testing.T) {
	st := state.NewMemory()
	row := newRow(&seqSource{n: 300, size: 50, failEvery: 10}, &logSink{events: new([]string)}, st)
	row.DLQ = &DLQ{Sink: &captureSink{}, Type: "capture", MaxPerPage: 4}
	_, err := Run(context.Background(), row)
	if err == nil || !strings.Contains(err.Error(), "5 records of one page failed (max_failures_per_page 4)") {
		t.Fatalf("err = %v", err)
	}
	if data, ok, _ := st.Get(context.Background(), "p::row-0"); !ok || string(data) != "50" {
		t.Errorf("saved bookmark %q, want 50 (the page that crossed the budget)", data)
	}

	row = newRow(&seqSource{n: 300, size: 50, failEvery: 10}, &logSink{events: new([]string)}, state.NewMemory())
	row.DLQ = &DLQ{Sink: &captureSink{}, Type: "capture", MaxPerPage: 5}
	if res, err := Run(context.Background(), row); err != nil || res.DLQ != 30 {
		t.Fatalf("at the limit: res %+v, err %v", res, err)
	}
}

// dropOdd is a filter transform that keeps the even ids.
type dropOdd struct{}

func (dropOdd) Apply(r *connector.Record) (bool, error) {
	v, _ := r.Get("id")
	return v.AsInt()%2 == 0, nil
}

// TestRefusedRecordsNameTheirSourceRow: a record a sink refuses (with its
// PageIndex) is dead-lettered with its position in the source stream,
// also when a transform removed records before it.
func TestRefusedRecordsNameTheirSourceRow(t *testing.T) {
	sink := &indexedRefusals{every: 30}
	dlq := &captureSink{}
	row := newRow(&seqSource{n: 300, size: 50}, nil, state.NewMemory())
	row.Sink, row.SinkType = sink, "refuse"
	row.Transforms = []Step{{Name: "filter", Transform: dropOdd{}}}
	row.DLQ = &DLQ{Sink: dlq, Type: "capture"}
	res, err := Run(context.Background(), row)
	if err != nil {
		t.Fatal(err)
	}
	if res.DLQ != 10 || len(dlq.records) != 10 {
		t.Fatalf("res = %+v, dlq %d", res, len(dlq.records))
	}
	for _, env := range dlq.records {
		idx, _ := env.Get("record_index")
		payload, _ := env.Get("payload")
		id, _ := payload.AsObject().Get("id")
		if id.AsInt()%30 != 0 || idx.AsInt() != id.AsInt() {
			t.Errorf("record_index %s for payload %s", idx, payload)
		}
	}

	// Every kept record refused, the first of each page included (the
	// first record of a page is removed, so positions shift from 0 on).
	dlq = &captureSink{}
	row = newRow(&seqSource{n: 300, size: 50}, nil, state.NewMemory())
	row.Sink, row.SinkType = &indexedRefusals{every: 2}, "refuse"
	row.Transforms = []Step{{Name: "filter", Transform: dropOdd{}}}
	row.DLQ = &DLQ{Sink: dlq, Type: "capture"}
	if res, err := Run(context.Background(), row); err != nil || res.DLQ != 150 {
		t.Fatalf("every kept record refused: res %+v, err %v", res, err)
	}
	for _, env := range dlq.records {
		idx, _ := env.Get("record_index")
		payload, _ := env.Get("payload")
		if id, _ := payload.AsObject().Get("id"); idx.AsInt() != id.AsInt() {
			t.Errorf("record_index %s for payload %s", idx, payload)
		}
	}
}

// indexedRefusals refuses the ids that are multiples of every, naming
// them by their position in the page as a sink does.
type indexedRefusals struct {
	captureSink
	every int64
}

func (s *indexedRefusals) Write(_ context.Context, p *connector.Page) error {
	for i := range p.Records {
		if v, _ := p.Records[i].Get("id"); v.AsInt()%s.every == 0 {
			p.Failed = append(p.Failed, connector.RecordError{
				Stage: connector.StageSink, Component: "refuse", Record: &p.Records[i],
				Err: errors.New("HTTP 422"), PageIndex: i + 1,
			})
		}
	}
	return nil
}
