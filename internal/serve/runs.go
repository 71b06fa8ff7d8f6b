package serve

import (
	"net/http"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/redact"
)

// handleSubmit is POST /v1/runs → 202 {run_id, status, submitted_at}.
func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request) {
	var req SubmitRequest
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	submitted := s.now()
	p, err := s.prepare(req, submitted)
	if err != nil {
		writeError(w, err)
		return
	}
	if req.Callback != nil {
		if err := s.validateCallback(req.Callback); err != nil {
			writeError(w, err)
			return
		}
	}
	if err := s.validateClusterSubmit(p); err != nil {
		writeError(w, err)
		return
	}
	res, _, err := s.runner.submit(r.Context(), p, callerOf(r), submitted)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, res)
}

// runsPage is the GET /v1/runs body; next_cursor only when more rows exist.
type runsPage struct {
	Runs       []history.RunRecord `json:"runs"`
	NextCursor *string             `json:"next_cursor,omitempty"`
}

// handleListRuns is GET /v1/runs: status (comma list), name, since, until,
// limit (default 50, 1..500), cursor; newest first.
func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := history.ListFilter{}
	if v := q.Get("status"); v != "" {
		for _, tok := range strings.Split(v, ",") {
			st, ok := history.ParseRunStatus(tok)
			if !ok {
				names := make([]string, len(history.AllStatuses))
				for i, a := range history.AllStatuses {
					names[i] = string(a)
				}
				writeError(w, errBadRequest("invalid `status` %q (valid: %s)", strings.TrimSpace(tok), strings.Join(names, ", ")))
				return
			}
			f.Status = append(f.Status, st)
		}
	}
	if v := q.Get("name"); v != "" {
		f.Name = &v
	}
	if v := q.Get("cursor"); v != "" {
		f.Cursor = &v
	}
	var err error
	if f.Since, err = timeParam(q.Get("since"), "since"); err != nil {
		writeError(w, err)
		return
	}
	if f.Until, err = timeParam(q.Get("until"), "until"); err != nil {
		writeError(w, err)
		return
	}
	if f.Limit, err = limitParam(q.Get("limit"), 50, 500); err != nil {
		writeError(w, err)
		return
	}
	page, err := s.history.List(r.Context(), f)
	if err != nil {
		writeError(w, err)
		return
	}
	out := runsPage{Runs: make([]history.RunRecord, 0, len(page.Runs)), NextCursor: page.NextCursor}
	now := s.now()
	for _, rec := range page.Runs {
		out.Runs = append(out.Runs, present(rec, now))
	}
	writeJSON(w, http.StatusOK, out)
}

// present prepares a record for a response: live elapsed for a running run,
// error text redacted.
func present(rec history.RunRecord, now time.Time) history.RunRecord {
	if rec.Status == history.StatusRunning && rec.StartedAt != nil {
		e := now.Sub(*rec.StartedAt).Seconds()
		rec.ElapsedSecs = &e
	}
	if rec.Error != nil {
		m := redact.String(*rec.Error)
		rec.Error = &m
	}
	rec.Callback = maskCallback(rec.Callback)
	for i := range rec.Invocations {
		if rec.Invocations[i].Error != nil {
			m := redact.String(*rec.Invocations[i].Error)
			rec.Invocations[i].Error = &m
		}
	}
	return rec
}

// handleGetRun is GET /v1/runs/{id}.
func (s *Server) handleGetRun(w http.ResponseWriter, r *http.Request) {
	rec, err := s.history.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	if rec == nil {
		writeError(w, errNotFound())
		return
	}
	writeJSON(w, http.StatusOK, present(*rec, s.now()))
}

// handleCancelRun is POST /v1/runs/{id}/cancel: 202 when this process held
// the run and fired its token, 404 unknown, 200 already terminal (or a run
// that finished between the two checks). In cluster mode a run held by
// another member is cancelled through the database (202): a pending run at
// once, a running one by its owner within one poll.
func (s *Server) handleCancelRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if s.runner.cancel(id) {
		s.audit(r.Context(), callerOf(r), "run.cancel", &id, nil, "ok")
		writeJSON(w, http.StatusAccepted, map[string]any{"run_id": id, "cancel_requested": true})
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
	if s.node != nil && !rec.Status.IsTerminal() {
		s.cancelInCluster(w, r, id)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"run_id": id, "status": rec.Status})
}

// handleDeleteRun is DELETE /v1/runs/{id}: 204, 404, or 409 while in flight.
// Deleting releases the run's idempotency claim.
func (s *Server) handleDeleteRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.runner.settled(r.Context(), id) {
		writeError(w, errConflict("run is still in flight — cancel it before deleting"))
		return
	}
	out, err := s.history.Delete(r.Context(), id)
	if err != nil {
		writeError(w, err)
		return
	}
	switch out {
	case history.NotFound:
		writeError(w, errNotFound())
	case history.StillRunning:
		writeError(w, errConflict("run is still in flight — cancel it before deleting"))
	default:
		s.audit(r.Context(), callerOf(r), "run.delete", &id, nil, "ok")
		w.WriteHeader(http.StatusNoContent)
	}
}

// handleReload is POST /v1/reload: re-read --default-config and swap the
// merge base atomically; in-flight runs are unaffected.
func (s *Server) handleReload(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r)
	if s.cfg.DefaultConfigPath == "" {
		s.audit(r.Context(), c, "config.reload", nil, nil, "noop")
		writeJSON(w, http.StatusOK, map[string]any{"reloaded": false, "reason": "no --default-config to reload"})
		return
	}
	d, err := readDefaultConfig(s.cfg.DefaultConfigPath)
	if err != nil {
		s.audit(r.Context(), c, "config.reload", nil, nil, "rejected")
		writeError(w, errUnprocessable(nil, "reload rejected — keeping previous config: %v", err))
		return
	}
	s.defaults.Store(d)
	s.audit(r.Context(), c, "config.reload", nil, nil, "ok")
	writeJSON(w, http.StatusOK, map[string]any{"reloaded": true, "path": d.path})
}
