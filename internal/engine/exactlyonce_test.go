package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// tokenSink commits a page's ids and its token atomically, like the SQL
// sinks do in one transaction.
type tokenSink struct {
	captureSink
	mu     sync.Mutex
	ids    []int64
	tokens map[string]string
}

func (s *tokenSink) WriteIdempotent(_ context.Context, p *connector.Page, scope, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range p.Records {
		v, _ := r.Get("id")
		s.ids = append(s.ids, v.AsInt())
	}
	if s.tokens == nil {
		s.tokens = map[string]string{}
	}
	s.tokens[scope] = token
	return nil
}

func (s *tokenSink) LastCommittedToken(_ context.Context, scope string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[scope]
	return t, ok, nil
}

// brokenStore accepts `ok` puts, then fails every one: the process "dies"
// after the sink committed but before the state caught up.
type brokenStore struct {
	*state.Memory
	ok int
}

func (s *brokenStore) Put(ctx context.Context, k string, v []byte) error {
	if s.ok == 0 {
		return errors.New("disk gone")
	}
	s.ok--
	return s.Memory.Put(ctx, k, v)
}

func TestExactlyOnceSurvivesASinkAheadOfTheState(t *testing.T) {
	mem := state.NewMemory()
	sink := &tokenSink{}
	// Run 1: the sink commits pages while the state store dies after two
	// saves; the run fails.
	row := newRow(&seqSource{n: 2000, size: 100}, nil, &brokenStore{Memory: mem, ok: 2})
	row.Sink, row.SinkType, row.ExactlyOnce = sink, "tokens", true
	if _, err := Run(context.Background(), row); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("first run: err = %v", err)
	}
	saved, _, _ := mem.Get(context.Background(), "p::row-0")
	if !strings.HasPrefix(string(saved), `{"__faucet_eo":1,"bookmark":`) {
		t.Fatalf("state envelope = %s", saved)
	}
	// Run 2 resumes from the sink's token, not from the stale state.
	row = newRow(&seqSource{n: 2000, size: 100}, nil, mem)
	row.Sink, row.SinkType, row.ExactlyOnce = sink, "tokens", true
	if _, err := Run(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	if len(sink.ids) != 2000 {
		t.Fatalf("sink holds %d records, want 2000", len(sink.ids))
	}
	for i, id := range sink.ids {
		if id != int64(i+1) {
			t.Fatalf("record %d has id %d: a duplicate or a gap", i, id)
		}
	}
	if got := sink.tokens["p::row-0"]; got != "00000000000000000020#2000" {
		t.Fatalf("last token = %q", got)
	}
	final, _, _ := mem.Get(context.Background(), "p::row-0")
	if string(final) != `{"__faucet_eo":1,"bookmark":2000,"seq":20}` {
		t.Fatalf("final state = %s", final)
	}
}

func TestExactlyOnceReadsLegacyBareBookmarks(t *testing.T) {
	mem := state.NewMemory()
	_ = mem.Put(context.Background(), "p::row-0", []byte("1500"))
	sink := &tokenSink{}
	row := newRow(&seqSource{n: 2000, size: 100}, nil, mem)
	row.Sink, row.SinkType, row.ExactlyOnce = sink, "tokens", true
	if _, err := Run(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	if len(sink.ids) != 500 || sink.ids[0] != 1501 {
		t.Fatalf("wrote %d records from %v", len(sink.ids), sink.ids[:1])
	}
}

func TestExactlyOnceRefusesWhatCannotHonourIt(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Row)
		want string
	}{
		{"plain sink", func(r *Row) { r.Sink = &captureSink{} }, "sink tokens cannot commit a watermark"},
		{"no state", func(r *Row) { r.State = nil }, "needs a durable state store"},
		{"dlq", func(r *Row) { r.DLQ = &DLQ{Sink: &captureSink{}} }, "cannot be combined with a dlq"},
	} {
		t.Run(c.name, func(t *testing.T) {
			row := newRow(&seqSource{n: 10, size: 10}, nil, state.NewMemory())
			row.Sink, row.SinkType, row.ExactlyOnce = &tokenSink{}, "tokens", true
			c.edit(&row)
			_, err := Run(context.Background(), row)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// CheckReplay: seqSource resumes after its bookmark, the last id emitted.
func (s *seqSource) CheckReplay() error { return nil }

func TestExactlyOnceRefusesASourceThatCannotReplay(t *testing.T) {
	row := newRow(&seqSource{n: 10, size: 5}, nil, state.NewMemory())
	row.Source = struct{ connector.Source }{row.Source} // hides CheckReplay
	row.Sink, row.SinkType, row.ExactlyOnce = &tokenSink{}, "tokens", true
	_, err := Run(context.Background(), row)
	if err == nil || !strings.Contains(err.Error(), "does not replay deterministically from a bookmark") {
		t.Fatalf("err = %v", err)
	}
}
