package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// refusingSink accepts every record except those whose id is a multiple
// of every, which it reports in the page's Failed list (as an HTTP sink
// does with a 400).
type refusingSink struct {
	captureSink
	every int64
}

func (s *refusingSink) Write(ctx context.Context, p *connector.Page) error {
	for i := range p.Records {
		v, _ := p.Records[i].Get("id")
		if v.AsInt()%s.every == 0 {
			p.Failed = append(p.Failed, connector.RecordError{
				Stage: connector.StageSink, Component: "refuse", Location: "record " + v.String(),
				Record: &p.Records[i], Err: errors.New("HTTP 400 Bad Request"),
			})
			continue
		}
		s.records = append(s.records, p.Records[i].Detach())
	}
	return nil
}

// TestRunDeadLettersRecordsTheSinkRefused: records a sink reports in
// p.Failed during Write go to the DLQ as "partial" envelopes and are not
// counted as written; without a DLQ the run fails naming the first, and
// its page's bookmark is not saved.
func TestRunDeadLettersRecordsTheSinkRefused(t *testing.T) {
	sink := &refusingSink{every: 30}
	dlq := &captureSink{}
	row := newRow(&seqSource{n: 300, size: 50}, nil, state.NewMemory())
	row.Sink, row.SinkType = sink, "refuse"
	row.DLQ = &DLQ{Sink: dlq, Type: "capture"}
	res, err := Run(context.Background(), row)
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != 290 || res.DLQ != 10 || len(sink.records) != 290 || len(dlq.records) != 10 {
		t.Fatalf("res = %+v, sink holds %d, dlq %d", res, len(sink.records), len(dlq.records))
	}
	env := dlq.records[0]
	for key, want := range map[string]string{
		"stage": `"sink"`, "reason": `"partial"`, "connector": `"refuse"`, "payload": `{"id":30}`,
		"error": `{"kind":"sink","message":"HTTP 400 Bad Request"}`,
	} {
		if v, _ := env.Get(key); v.String() != want {
			t.Errorf("envelope %s = %s, want %s", key, v, want)
		}
	}

	st := state.NewMemory()
	row = newRow(&seqSource{n: 300, size: 50}, nil, st)
	row.Sink, row.SinkType = &refusingSink{every: 70}, "refuse"
	_, err = Run(context.Background(), row)
	if err == nil || !strings.Contains(err.Error(), "record 70") || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("without a DLQ: %v", err)
	}
	if data, ok, _ := st.Get(context.Background(), "p::row-0"); !ok || string(data) != "50" {
		t.Errorf("saved bookmark %q, want 50 (the page before the refused record)", data)
	}
}
