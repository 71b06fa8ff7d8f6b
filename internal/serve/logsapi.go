package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// KeepAlive is the SSE keep-alive comment interval.
var KeepAlive = 15 * time.Second

// handleRunLogs is GET /v1/runs/{id}/logs: SSE live tail without format,
// else the persisted lines as jsonl or text.
func (s *Server) handleRunLogs(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	switch f := r.URL.Query().Get("format"); f {
	case "":
		s.streamLogs(w, r, id)
	case "jsonl", "text":
		s.storedLogs(w, r, id, f)
	default:
		writeError(w, errBadRequest("invalid `format` %q (jsonl or text; omit it for a live stream)", f))
	}
}

func (s *Server) storedLogs(w http.ResponseWriter, r *http.Request, id, format string) {
	q := r.URL.Query()
	var after *uint64
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeError(w, errBadRequest("invalid `after` %q (a sequence number)", v))
			return
		}
		after = &n
	}
	limit, err := limitParam(q.Get("limit"), 1000, 10000)
	if err != nil {
		writeError(w, err)
		return
	}
	rec, err := s.history.Get(r.Context(), id)
	if err != nil {
		writeError(w, err)
		return
	}
	if rec == nil {
		writeError(w, errNotFound())
		return
	}
	page, err := s.history.ListRunLogs(r.Context(), id, after, limit)
	if err != nil {
		writeError(w, err)
		return
	}
	bw := bufio.NewWriter(w)
	if format == "jsonl" {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(bw)
		for _, l := range page.Lines {
			_ = enc.Encode(l)
		}
		if page.Truncated {
			_, _ = bw.WriteString("{\"truncated\":true}\n")
		}
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		for _, l := range page.Lines {
			_, _ = bw.WriteString(l.Line)
			_ = bw.WriteByte('\n')
		}
		if page.Truncated {
			_, _ = bw.WriteString("… (later lines truncated: per-run cap reached)\n")
		}
	}
	_ = bw.Flush()
}

// streamLogs replays the run's ring and follows it: events `log`,
// `truncated` (a lagging reader lost lines to the ring), `end`. A known run
// without a buffer gets a single `end`; an unknown run is 404.
func (s *Server) streamLogs(w http.ResponseWriter, r *http.Request, id string) {
	rl := s.logs.get(id)
	if rl == nil {
		rec, err := s.history.Get(r.Context(), id)
		if err != nil {
			writeError(w, err)
			return
		}
		if rec == nil {
			writeError(w, errNotFound())
			return
		}
		// A queued run of this process gets its buffer now, so the reader
		// follows it instead of ending before the first line (the
		// original's quirk, reference §11.5).
		if s.runner.isActive(id) {
			rl = s.logs.getOrCreate(id)
		}
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(event, data string) bool {
		var b strings.Builder
		fmt.Fprintf(&b, "event: %s\n", event)
		for _, line := range strings.Split(data, "\n") {
			fmt.Fprintf(&b, "data: %s\n", strings.TrimSuffix(line, "\r"))
		}
		b.WriteByte('\n')
		_, err := w.Write([]byte(b.String()))
		return err == nil
	}
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	if rl == nil {
		send("end", "done")
		flush()
		return
	}
	keep := time.NewTicker(KeepAlive)
	defer keep.Stop()
	var next uint64
	for {
		lines, dropped, ended, notify := rl.since(next)
		if dropped > 0 {
			if !send("truncated", fmt.Sprintf("%d lines dropped: the reader fell behind", dropped)) {
				return
			}
		}
		for _, l := range lines {
			if !send("log", l.TS+" "+l.Line) {
				return
			}
			next = l.Seq + 1
		}
		if ended {
			send("end", "done")
			flush()
			return
		}
		flush()
		select {
		case <-notify:
		case <-keep.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
			flush()
		case <-r.Context().Done():
			return
		case <-s.closing:
			send("end", "server shutting down")
			flush()
			return
		}
	}
}
