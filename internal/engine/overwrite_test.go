package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// stagingSink is a connector.Overwriter: it records the order of writes,
// commit and abort in the shared event log.
type stagingSink struct {
	captureSink
	events    *[]string
	failWrite bool
}

func (s *stagingSink) Overwriting() bool { return true }
func (s *stagingSink) Write(ctx context.Context, p *connector.Page) error {
	if s.failWrite {
		return errors.New("staging full")
	}
	return s.captureSink.Write(ctx, p)
}
func (s *stagingSink) CommitOverwrite(context.Context) error {
	*s.events = append(*s.events, "commit")
	return nil
}
func (s *stagingSink) AbortOverwrite(context.Context) error {
	*s.events = append(*s.events, "abort")
	return nil
}

func TestOverwriteCommitsOnceThenSavesTheBookmark(t *testing.T) {
	var events []string
	st := logStore{state.NewMemory(), &events}
	sink := &stagingSink{events: &events}
	row := newRow(&seqSource{n: 5000, size: 100}, nil, st)
	row.Sink, row.SinkType = sink, "staging"
	res, err := Run(context.Background(), row)
	if err != nil || res.Written != 5000 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	// No bookmark may be saved while the rows sit in staging.
	if len(events) != 2 || events[0] != "commit" || events[1] != "save 5000" {
		t.Fatalf("events = %v, want [commit, save 5000]", events)
	}
}

func TestOverwriteAbortsOnFailureCancelAndLimit(t *testing.T) {
	for _, c := range []struct {
		name string
		row  func(*Row, *stagingSink) context.Context
	}{
		{"sink error", func(r *Row, s *stagingSink) context.Context { s.failWrite = true; return context.Background() }},
		{"limit", func(r *Row, s *stagingSink) context.Context { r.Limit = 150; return context.Background() }},
		{"cancel", func(r *Row, s *stagingSink) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
		{"failed record", func(r *Row, s *stagingSink) context.Context {
			r.Source.(*seqSource).failEvery = 250
			return context.Background()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var events []string
			st := logStore{state.NewMemory(), &events}
			sink := &stagingSink{events: &events}
			row := newRow(&seqSource{n: 1000, size: 100}, nil, st)
			row.Sink, row.SinkType = sink, "staging"
			ctx := c.row(&row, sink)
			_, _ = Run(ctx, row)
			if len(events) != 1 || events[0] != "abort" {
				t.Fatalf("events = %v, want [abort] and no saved bookmark", events)
			}
		})
	}
}
