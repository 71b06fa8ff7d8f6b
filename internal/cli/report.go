package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/redact"
)

// report collects what a run did, for the progress line and the summary.
type report struct {
	pipeline   string
	startedAt  time.Time
	finishedAt time.Time
	rows       []*rowReport
}

type rowReport struct {
	id, source, sink string
	stats            engine.Stats

	mu     sync.Mutex
	status string // pending, running, finished, then ok, failed, skipped or cancelled
	res    engine.Result
	err    error
}

func newReport(name string, invs []config.Invocation) *report {
	r := &report{pipeline: name, startedAt: time.Now().UTC()}
	for _, inv := range invs {
		r.rows = append(r.rows, &rowReport{id: inv.ID, source: inv.Source.Type, sink: inv.Sink.Type, status: "pending"})
	}
	return r
}

func (rr *rowReport) start() {
	rr.mu.Lock()
	rr.status = "running"
	rr.mu.Unlock()
}

func (rr *rowReport) done(res engine.Result, err error) {
	rr.mu.Lock()
	rr.res, rr.err, rr.status = res, err, "finished"
	rr.mu.Unlock()
}

// finish folds the graph results (which also cover rows that never ran).
func (r *report) finish(results []engine.NodeResult) {
	r.finishedAt = time.Now().UTC()
	for i, nr := range results {
		rr := r.rows[i]
		rr.mu.Lock()
		rr.status = string(nr.Status)
		if nr.Status == engine.NodeOK {
			rr.status = "ok"
		}
		if rr.res.Cancelled {
			rr.status = "cancelled"
		}
		if nr.Err != nil && rr.err == nil {
			rr.err = nr.Err
		}
		rr.mu.Unlock()
	}
}

func (r *report) failed() int {
	n := 0
	for _, rr := range r.rows {
		if rr.status != "ok" {
			n++
		}
	}
	return n
}

func (r *report) totals() (read, written, dlq int64) {
	for _, rr := range r.rows {
		read += rr.res.Read
		written += rr.res.Written
		dlq += rr.res.DLQ
	}
	return
}

type jsonRow struct {
	RowID      string           `json:"row_id"`
	Source     string           `json:"source"`
	Sink       string           `json:"sink"`
	Status     string           `json:"status"`
	RowsIn     int64            `json:"rows_in"`
	RowsOut    int64            `json:"rows_out"`
	DLQCount   int64            `json:"dlq_count"`
	Dropped    int64            `json:"dropped"`
	DurationMs int64            `json:"duration_ms"`
	StateSaved bool             `json:"state_saved"`
	Bookmark   *json.RawMessage `json:"bookmark,omitempty"`
	Error      string           `json:"error,omitempty"`
}

func (rr *rowReport) json() jsonRow {
	j := jsonRow{
		RowID: rr.id, Source: rr.source, Sink: rr.sink, Status: rr.status,
		RowsIn: rr.res.Read, RowsOut: rr.res.Written, DLQCount: rr.res.DLQ, Dropped: rr.res.Dropped,
		DurationMs: rr.res.Elapsed.Milliseconds(), StateSaved: rr.res.StateSaved,
	}
	if rr.res.Bookmark != nil {
		raw := json.RawMessage(connector.AppendJSON(nil, *rr.res.Bookmark))
		j.Bookmark = &raw
	}
	if rr.err != nil {
		j.Error = redact.String(rr.err.Error())
	}
	return j
}

func (app *App) printReport(r *report, format string) error {
	switch format {
	case "json":
		read, written, dlq := r.totals()
		status := "ok"
		if r.failed() > 0 {
			status = "failed"
		}
		rows := make([]jsonRow, len(r.rows))
		for i, rr := range r.rows {
			rows[i] = rr.json()
		}
		out := map[string]any{
			"pipeline":    r.pipeline,
			"started_at":  r.startedAt.Format(time.RFC3339Nano),
			"finished_at": r.finishedAt.Format(time.RFC3339Nano),
			"status":      status,
			"totals": map[string]any{
				"rows": len(r.rows), "rows_in": read, "rows_out": written, "dlq_count": dlq,
				"ok": len(r.rows) - r.failed(), "failed": r.failed(),
			},
			"rows": rows,
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(app.Stdout, redact.String(string(b)))
		return err
	case "ndjson":
		for _, rr := range r.rows {
			b, err := json.Marshal(rr.json())
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintln(app.Stdout, redact.String(string(b))); err != nil {
				return err
			}
		}
		return nil
	}
	return app.printTextReport(app.Stderr, r)
}

// printTextReport writes the human summary: one line per row, then totals.
func (app *App) printTextReport(w io.Writer, r *report) error {
	for _, rr := range r.rows {
		line := fmt.Sprintf("%s %s: %s -> %s", statusMark(rr.status), rr.id, rr.source, rr.sink)
		switch rr.status {
		case "ok", "failed", "cancelled":
			el := rr.res.Elapsed
			line += fmt.Sprintf("  read %d, wrote %d", rr.res.Read, rr.res.Written)
			if rr.res.DLQ > 0 {
				line += fmt.Sprintf(", dlq %d", rr.res.DLQ)
			}
			if rr.res.Dropped > 0 {
				line += fmt.Sprintf(", filtered %d", rr.res.Dropped)
			}
			line += fmt.Sprintf(" in %s (%s rows/s)", fmtDuration(el), fmtRate(rr.res.Written, el))
			if rr.res.StateSaved {
				line += ", state saved"
			}
			if rr.res.LimitHit {
				line += ", limit reached"
			}
		default:
			line += "  " + rr.status
		}
		fmt.Fprintln(w, redact.String(line))
		if rr.err != nil && rr.status != "ok" {
			fmt.Fprintf(w, "  error: %s\n", redact.String(rr.err.Error()))
		}
	}
	_, written, _ := r.totals()
	ok := len(r.rows) - r.failed()
	_, err := fmt.Fprintf(w, "%s: %d invocation%s, %d ok, %d failed, wrote %d record%s in %s\n",
		r.pipeline, len(r.rows), plural(len(r.rows)), ok, r.failed(), written, plural(int(written)),
		fmtDuration(r.finishedAt.Sub(r.startedAt)))
	return err
}

func statusMark(s string) string {
	switch s {
	case "ok":
		return "ok    "
	case "failed":
		return "FAILED"
	case "cancelled":
		return "STOPPED"
	}
	return "skip  "
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

func fmtRate(n int64, d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return fmtCount(int64(float64(n) / d.Seconds()))
}

func fmtCount(n int64) string {
	switch {
	case n >= 1_000_000_000:
		return fmt.Sprintf("%.1fB", float64(n)/1e9)
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
