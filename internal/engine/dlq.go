package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/redact"
)

// deadLetter sends failed records to the DLQ sink, or fails the run with
// the first one when there is no DLQ.
func (w *writer) deadLetter(ctx context.Context, failed []failure) error {
	if w.row.DLQ == nil {
		// The error outlives the page: detach what points into it.
		f := failed[0].err
		f.Raw = strings.Clone(f.Raw)
		if f.Record != nil {
			rec := f.Record.Detach()
			f.Record = &rec
		}
		f.Location = strings.Clone(f.Location)
		return &f
	}
	now := time.Now().UTC()
	page := &connector.Page{Records: make([]connector.Record, 0, len(failed))}
	for _, f := range failed {
		page.Records = append(page.Records, w.envelope(f, now))
	}
	err := w.row.Retry.do(ctx, func() error { return w.row.DLQ.Sink.Write(ctx, page) }, w.logRetry("dlq write"))
	if err != nil {
		return &sinkFailure{fmt.Errorf("dlq sink %s: %w", w.row.DLQ.Type, err)}
	}
	w.dlq += int64(len(failed))
	w.row.Stats.DLQ.Add(int64(len(failed)))
	return nil
}

// envelope is the dead-letter record: the fields of faucet-cli 1.x's
// envelope (error{kind,message}, reason, payload, ts_ms, sink, pipeline,
// row, record_index) plus stage, connector, location and an RFC 3339
// timestamp.
func (w *writer) envelope(f failure, now time.Time) connector.Record {
	e := f.err
	r := connector.NewRecord(13)
	msg := e.Err.Error()
	var inner *connector.RecordError
	if errors.As(e.Err, &inner) && inner != &e {
		msg = inner.Err.Error()
	}
	errObj := connector.NewRecord(2)
	errObj.Set("kind", connector.String(string(e.Stage)))
	errObj.Set("message", connector.String(redact.String(msg)))
	r.Set("error", connector.Object(errObj))
	why := f.reason
	if why == "" {
		why = reason(e.Stage)
	}
	r.Set("reason", connector.String(why))
	r.Set("stage", connector.String(string(e.Stage)))
	r.Set("connector", connector.String(e.Component))
	switch {
	case e.Record != nil:
		r.Set("payload", connector.Object(*e.Record))
	default:
		r.Set("payload", connector.String(e.Raw))
	}
	r.Set("location", connector.String(e.Location))
	r.Set("ts_ms", connector.Int(now.UnixMilli()))
	r.Set("timestamp", connector.String(now.Format(time.RFC3339Nano)))
	r.Set("sink", connector.String(w.row.SinkType))
	r.Set("pipeline", connector.String(w.row.Pipeline))
	r.Set("row", connector.String(w.row.ID))
	r.Set("record_index", connector.Int(e.RowID))
	return r
}

func reason(s connector.Stage) string {
	switch s {
	case connector.StageSource:
		return "decode"
	case connector.StageTransform:
		return "transform"
	}
	return "partial"
}
