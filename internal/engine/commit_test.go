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

// ackSource is a seqSource that implements connector.Committer: it logs
// "commit <last id>" in the shared event log, the id being the highest one
// of the pages the engine declared durable, as a broker consumer would
// acknowledge them.
type ackSource struct {
	*seqSource
	events      *[]string
	noBookmarks bool
	failCommit  int  // fail this many Committed calls
	retryable   bool // ... with a retryable error

	mu    sync.Mutex
	last  []int64 // highest id of each page, by page number
	calls int
}

func (s *ackSource) Next(ctx context.Context) (*connector.Page, error) {
	p, err := s.seqSource.Next(ctx)
	if err != nil {
		return nil, err
	}
	last := int64(s.seqSource.next)
	if s.noBookmarks {
		dec := p.Decode
		p.Decode = func(p *connector.Page) error {
			err := dec(p)
			p.Bookmark = nil
			return err
		}
	}
	// The engine numbers pages in the order Next returned them, so page
	// len(s.last) is this one; its Seq is not ours to read while in flight.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = append(s.last, last)
	return p, nil
}

func (s *ackSource) Committed(_ context.Context, seq uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.failCommit > 0 {
		s.failCommit--
		err := errors.New("ack timed out")
		if s.retryable {
			return connector.Retryable(err)
		}
		return err
	}
	var upTo int64
	for i, last := range s.last {
		if uint64(i) <= seq {
			upTo = max(upTo, last)
		}
	}
	*s.events = append(*s.events, fmt.Sprintf("commit %d", upTo))
	return nil
}

// commits returns the ids of the "commit" events, in order.
func commits(events []string) []int {
	var out []int
	for _, e := range events {
		var n int
		if _, err := fmt.Sscanf(e, "commit %d", &n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func TestCommitterIsToldAfterFlushAndSave(t *testing.T) {
	var events []string
	src := &ackSource{seqSource: &seqSource{n: 1000, size: 100}, events: &events}
	sink := &logSink{events: &events}
	st := logStore{state.NewMemory(), &events}
	row := newRow(src.seqSource, sink, st)
	row.Source = src
	if _, err := Run(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	got := commits(events)
	if len(got) == 0 || got[len(got)-1] != 1000 {
		t.Fatalf("commits %v, want the last one at 1000; events %v", got, events)
	}
	// Each commit follows a flush and a save that cover it.
	flushed, saved := -1, -1
	for _, e := range events {
		var n int
		switch {
		case scan(e, "flush %d", &n):
			flushed = n
		case scan(e, "save %d", &n):
			saved = n
		case scan(e, "commit %d", &n):
			if n > flushed || n > saved {
				t.Fatalf("commit %d before the sink flushed (%d) or the state saved (%d) it: %v", n, flushed, saved, events)
			}
		}
	}
}

func scan(e, format string, n *int) bool {
	_, err := fmt.Sscanf(e, format, n)
	return err == nil
}

func TestCommitterPagesWithoutBookmarksStillCheckpoint(t *testing.T) {
	for _, c := range []struct {
		name      string
		every     time.Duration
		atLeast   int
		exactlyOn int
	}{
		{name: "every page", every: -1, atLeast: 5},
		{name: "once at the end", every: time.Hour, exactlyOn: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var events []string
			src := &ackSource{seqSource: &seqSource{n: 1000, size: 100}, events: &events, noBookmarks: true}
			row := newRow(src.seqSource, &logSink{events: &events}, nil)
			row.Source, row.CheckpointEvery = src, c.every
			if _, err := Run(context.Background(), row); err != nil {
				t.Fatal(err)
			}
			got := commits(events)
			if len(got) == 0 || got[len(got)-1] != 1000 {
				t.Fatalf("commits %v, want the last at 1000", got)
			}
			if len(got) < c.atLeast || (c.exactlyOn > 0 && len(got) != c.exactlyOn) {
				t.Fatalf("%d commits %v (want at least %d, exactly %d)", len(got), got, c.atLeast, c.exactlyOn)
			}
		})
	}
}

func TestCommitterNeverToldOfUnwrittenPages(t *testing.T) {
	var events []string
	src := &ackSource{seqSource: &seqSource{n: 1000, size: 100}, events: &events}
	sink := &logSink{events: &events, failAt: 450}
	row := newRow(src.seqSource, sink, state.NewMemory())
	row.Source = src
	if _, err := Run(context.Background(), row); err == nil {
		t.Fatal("the sink failure did not fail the run")
	}
	got := commits(events)
	if len(got) == 0 || got[len(got)-1] != 400 {
		t.Fatalf("commits %v, want the last at 400 (the sink failed on the page after)", got)
	}
}

func TestCommitterNotToldInRunsThatKeepNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		row  func(*Row)
	}{
		{"dry run", func(r *Row) { r.Sink, r.SinkType = &CountingSink{}, "dry-run(log)" }},
		{"limit", func(r *Row) { r.Limit = 250 }},
		{"read-only state", func(r *Row) { r.State = state.ReadOnly(r.State) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var events []string
			src := &ackSource{seqSource: &seqSource{n: 1000, size: 100}, events: &events}
			row := newRow(src.seqSource, &logSink{events: &events}, state.NewMemory())
			row.Source = src
			c.row(&row)
			if _, err := Run(context.Background(), row); err != nil {
				t.Fatal(err)
			}
			if src.calls != 0 {
				t.Fatalf("Committed called %d times: %v", src.calls, events)
			}
		})
	}
}

func TestCommitterWaitsForTheOverwriteSwap(t *testing.T) {
	var events []string
	src := &ackSource{seqSource: &seqSource{n: 500, size: 100}, events: &events}
	st := logStore{state.NewMemory(), &events}
	row := newRow(src.seqSource, nil, st)
	row.Source = src
	row.Sink, row.SinkType = &stagingSink{events: &events}, "staging"
	if _, err := Run(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	if want := "commit save 500 commit 500"; strings.Join(events, " ") != want {
		t.Fatalf("events %v, want %s", events, want)
	}
}

func TestCommitterErrorsFailTheRunAfterRetries(t *testing.T) {
	var events []string
	src := &ackSource{seqSource: &seqSource{n: 300, size: 100}, events: &events, failCommit: 2, retryable: true}
	row := newRow(src.seqSource, &logSink{events: &events}, nil)
	row.Source, row.CheckpointEvery = src, time.Hour
	if _, err := Run(context.Background(), row); err != nil {
		t.Fatalf("retryable commit errors were not retried: %v", err)
	}
	if got := commits(events); len(got) != 1 || got[0] != 300 {
		t.Fatalf("commits %v", got)
	}

	events = nil
	src = &ackSource{seqSource: &seqSource{n: 300, size: 100}, events: &events, failCommit: 1}
	row = newRow(src.seqSource, &logSink{events: &events}, nil)
	row.Source, row.CheckpointEvery = src, time.Hour
	_, err := Run(context.Background(), row)
	if err == nil || err.Error() != "source seq: commit pages up to 2: ack timed out" {
		t.Fatalf("err = %v", err)
	}
	if src.calls != 1 {
		t.Fatalf("Committed called %d times after a failure, want 1", src.calls)
	}
}
