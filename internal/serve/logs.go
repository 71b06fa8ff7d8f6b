package serve

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/redact"
)

// Log persistence sizing (reference §4.7).
const (
	logBatchLines   = 256
	logQueueBatches = 16384 / logBatchLines
	logFinalFlush   = 5 * time.Second
)

// logHub captures each run's log lines: a ring for live readers and
// batches for the history store.
type logHub struct {
	s       *Server
	persist bool
	maxRun  int

	mu   sync.Mutex
	runs map[string]*runLog

	sendMu sync.RWMutex
	closed bool
	ch     chan logBatch
	done   chan struct{}
	timers map[string]*time.Timer
}

type logBatch struct {
	runID string
	lines []history.RunLogLine
	done  chan struct{} // closed once written (final flush only)
}

// runLog is one run's capture.
type runLog struct {
	mu        sync.Mutex
	ring      []history.RunLogLine // oldest first, at most LogRingLines
	base      uint64               // first seq of this capture (see begin)
	next      uint64
	ended     bool
	notify    chan struct{} // closed and replaced on every change
	pending   []history.RunLogLine
	persisted int
	capped    bool
}

func newLogHub(s *Server) *logHub {
	return &logHub{s: s, persist: s.cfg.LogRetention > 0, maxRun: s.cfg.LogMaxLinesPerRun,
		runs: map[string]*runLog{}, ch: make(chan logBatch, logQueueBatches), done: make(chan struct{}),
		timers: map[string]*time.Timer{}}
}

// start runs the writer that persists batches.
func (h *logHub) start() {
	go func() {
		defer close(h.done)
		for b := range h.ch {
			h.write(b)
		}
	}()
}

func (h *logHub) write(b logBatch) {
	defer func() {
		if b.done != nil {
			close(b.done)
		}
	}()
	if len(b.lines) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.s.history.RecordRunLogs(ctx, b.runID, b.lines); err != nil {
		h.s.metrics.logsDropped.WithLabelValues("backend_error").Add(float64(len(b.lines)))
		h.s.logger.Warn("persisting run logs failed", "run_id", b.runID, "lines", len(b.lines), "err", err)
		return
	}
	n := len(b.lines)
	if b.lines[n-1].Seq == history.RunLogTruncatedSeq {
		n--
	}
	h.s.metrics.logLines.Add(float64(n))
}

// close stops the writer after it drained what was queued. Runs must be
// finalized first.
func (h *logHub) close() {
	h.sendMu.Lock()
	if h.closed {
		h.sendMu.Unlock()
		return
	}
	h.closed = true
	close(h.ch)
	h.sendMu.Unlock()
	if h.s.started.Load() {
		<-h.done
	}
	h.mu.Lock()
	for _, t := range h.timers {
		t.Stop()
	}
	h.mu.Unlock()
}

// send queues a batch; block waits (bounded) for room instead of dropping.
func (h *logHub) send(b logBatch, block bool) bool {
	h.sendMu.RLock()
	defer h.sendMu.RUnlock()
	if h.closed || !h.s.started.Load() {
		return false
	}
	if !block {
		select {
		case h.ch <- b:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(logFinalFlush)
	defer t.Stop()
	select {
	case h.ch <- b:
		return true
	case <-t.C:
		return false
	}
}

func (h *logHub) get(id string) *runLog {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[id]
}

func (h *logHub) getOrCreate(id string) *runLog {
	h.mu.Lock()
	defer h.mu.Unlock()
	rl := h.runs[id]
	if rl == nil {
		rl = &runLog{notify: make(chan struct{})}
		h.runs[id] = rl
	}
	return rl
}

// begin starts a fresh capture for run id whose sequence numbers start at
// base, replacing an ended one (cluster mode: each attempt of a reclaimed
// run numbers its lines from attempt<<40, so the persisted lines of every
// attempt are kept instead of colliding on (run_id, seq)).
func (h *logHub) begin(id string, base uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.timers[id]; t != nil {
		t.Stop()
		delete(h.timers, id)
	}
	h.runs[id] = &runLog{notify: make(chan struct{}), base: base, next: base}
}

// append captures one line (already formatted) for run id.
func (h *logHub) append(id, level, text string) {
	rl := h.getOrCreate(id)
	line := history.RunLogLine{TS: time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"), Level: level, Line: redact.String(text)}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.ended {
		return
	}
	line.Seq = rl.next
	rl.next++
	rl.ring = append(rl.ring, line)
	if len(rl.ring) > LogRingLines {
		rl.ring = rl.ring[len(rl.ring)-LogRingLines:]
	}
	close(rl.notify)
	rl.notify = make(chan struct{})
	if !h.persist {
		return
	}
	if rl.persisted >= h.maxRun {
		if !rl.capped {
			rl.capped = true
			h.s.metrics.logsDropped.WithLabelValues("per_run_cap").Inc()
		}
		return
	}
	rl.persisted++
	rl.pending = append(rl.pending, line)
	if len(rl.pending) >= logBatchLines {
		b := logBatch{runID: id, lines: rl.pending}
		rl.pending = nil
		if !h.send(b, false) {
			h.s.metrics.logsDropped.WithLabelValues("queue_full").Add(float64(len(b.lines)))
		}
	}
}

// finish ends the run's stream (SSE readers get `end`), persists what is
// pending plus the truncation sentinel and waits for it to be written, and
// drops the ring after LogDrain.
func (h *logHub) finish(id string) {
	rl := h.getOrCreate(id)
	rl.mu.Lock()
	if rl.ended {
		rl.mu.Unlock()
		return
	}
	rl.ended = true
	close(rl.notify)
	rl.notify = make(chan struct{})
	lines := rl.pending
	rl.pending = nil
	if rl.capped {
		lines = append(lines, history.RunLogLine{Seq: history.RunLogTruncatedSeq, TS: time.Now().UTC().Format(time.RFC3339Nano),
			Level: "WARN", Line: "log truncated: per-run cap reached"})
	}
	rl.mu.Unlock()
	if h.persist && len(lines) > 0 {
		b := logBatch{runID: id, lines: lines, done: make(chan struct{})}
		if h.send(b, true) {
			select {
			case <-b.done:
			case <-time.After(logFinalFlush):
			}
		} else {
			h.s.metrics.logsDropped.WithLabelValues("queue_full").Add(float64(len(lines)))
		}
	}
	h.mu.Lock()
	h.timers[id] = time.AfterFunc(LogDrain, func() {
		h.mu.Lock()
		delete(h.runs, id)
		delete(h.timers, id)
		h.mu.Unlock()
	})
	h.mu.Unlock()
}

// since returns the lines from seq next on, how many were evicted before a
// lagging reader saw them, whether the stream ended, and the channel that
// is closed on the next change.
func (rl *runLog) since(next uint64) (lines []history.RunLogLine, dropped uint64, ended bool, notify <-chan struct{}) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if next < rl.base {
		next = rl.base
	}
	if len(rl.ring) > 0 && next < rl.ring[0].Seq {
		dropped = rl.ring[0].Seq - next
		next = rl.ring[0].Seq
	}
	for _, l := range rl.ring {
		if l.Seq >= next {
			lines = append(lines, l)
		}
	}
	return lines, dropped, rl.ended, rl.notify
}

// logger returns the slog logger whose records become run id's lines; they
// are also passed to the server logger with a run_id attribute.
func (h *logHub) logger(id string) *slog.Logger {
	return slog.New(&runLogHandler{hub: h, id: id, tee: h.s.logger.Handler().WithAttrs([]slog.Attr{slog.String("run_id", id)})})
}

// runLogHandler formats records as "<LEVEL> <message> k=v ...".
type runLogHandler struct {
	hub    *logHub
	id     string
	tee    slog.Handler
	prefix string // preformatted With attrs
	group  string
}

func (r *runLogHandler) Enabled(context.Context, slog.Level) bool { return true }

func (r *runLogHandler) Handle(ctx context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Level.String())
	b.WriteByte(' ')
	b.WriteString(rec.Message)
	b.WriteString(r.prefix)
	rec.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, r.group, a)
		return true
	})
	r.hub.append(r.id, rec.Level.String(), b.String())
	if r.tee.Enabled(ctx, rec.Level) {
		return r.tee.Handle(ctx, rec)
	}
	return nil
}

func (r *runLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(r.prefix)
	for _, a := range attrs {
		writeAttr(&b, r.group, a)
	}
	c := *r
	c.prefix = b.String()
	c.tee = r.tee.WithAttrs(attrs)
	return &c
}

func (r *runLogHandler) WithGroup(name string) slog.Handler {
	c := *r
	if name != "" {
		c.group = r.group + name + "."
		c.tee = r.tee.WithGroup(name)
	}
	return &c
}

func writeAttr(b *strings.Builder, group string, a slog.Attr) {
	if a.Equal(slog.Attr{}) {
		return
	}
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		for _, g := range v.Group() {
			writeAttr(b, group+a.Key+".", g)
		}
		return
	}
	s := v.String()
	if strings.ContainsAny(s, " \t\n\"=") || s == "" {
		s = fmt.Sprintf("%q", s)
	}
	b.WriteByte(' ')
	b.WriteString(group + a.Key)
	b.WriteByte('=')
	b.WriteString(s)
}
