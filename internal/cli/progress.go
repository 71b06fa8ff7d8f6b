package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress redraws one status line on a terminal at most 4 times a second:
// records in and out, rows/s and elapsed time over all running rows.
type progress struct {
	done chan struct{}
	fin  chan struct{}
}

func (app *App) startProgress(r *report) *progress {
	p := &progress{done: make(chan struct{}), fin: make(chan struct{})}
	f, ok := app.Stderr.(*os.File)
	if app.Quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		close(p.fin)
		return p
	}
	go func() {
		defer close(p.fin)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		width := 0
		for {
			select {
			case <-p.done:
				fmt.Fprintf(f, "\r%s\r", strings.Repeat(" ", width))
				return
			case <-t.C:
				line := progressLine(r)
				if len(line) > width {
					width = len(line)
				}
				fmt.Fprintf(f, "\r%-*s", width, line)
			}
		}
	}()
	return p
}

func (p *progress) stop() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	<-p.fin
}

func progressLine(r *report) string {
	var in, out, dlq int64
	running := 0
	for _, rr := range r.rows {
		in += rr.stats.Read.Load()
		out += rr.stats.Written.Load()
		dlq += rr.stats.DLQ.Load()
		rr.mu.Lock()
		if rr.status == "running" {
			running++
		}
		rr.mu.Unlock()
	}
	el := time.Since(r.startedAt)
	line := fmt.Sprintf("%s  %s in / %s out  %s rows/s  %s", r.pipeline, fmtCount(in), fmtCount(out), fmtRate(out, el), fmtDuration(el))
	if dlq > 0 {
		line += fmt.Sprintf("  %s dlq", fmtCount(dlq))
	}
	if len(r.rows) > 1 {
		line += fmt.Sprintf("  [%d running]", running)
	}
	return line
}
