package serve

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/faucet-hq/faucet/internal/history"
)

// audit records one action. A failure is logged and never fails the action.
func (s *Server) audit(ctx context.Context, c caller, action string, runID, fingerprint *string, result string) {
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
	}
	e := history.AuditEntry{
		ID: id.String(), Timestamp: s.now(), Principal: c.Name, Role: string(c.Role),
		Action: action, RunID: runID, ConfigFingerprint: fingerprint, SourceIP: c.SourceIP, Result: result,
	}
	// The request may be over by now (a client that hung up); the entry is
	// still written.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.history.RecordAudit(wctx, e); err != nil {
		s.logger.Warn("audit write failed", "action", action, "err", err)
	}
}

// handleListAudit is GET /v1/audit: principal, action (exact), since, until
// (RFC 3339), limit (default 100, 1..1000); newest first.
func (s *Server) handleListAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := history.AuditFilter{Limit: 100}
	if v := q.Get("principal"); v != "" {
		f.Principal = &v
	}
	if v := q.Get("action"); v != "" {
		f.Action = &v
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
	if f.Limit, err = limitParam(q.Get("limit"), 100, 1000); err != nil {
		writeError(w, err)
		return
	}
	entries, err := s.history.ListAudit(r.Context(), f)
	if err != nil {
		writeError(w, err)
		return
	}
	if entries == nil {
		entries = []history.AuditEntry{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"entries": entries})
}

// timeParam parses an RFC 3339 query value; a space (a '+' that the query
// decoding turned into a space) is turned back into '+'.
func timeParam(v, name string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ReplaceAll(v, " ", "+"))
	if err != nil {
		return nil, errBadRequest("invalid `%s` timestamp (want RFC 3339): %q", name, v)
	}
	t = t.UTC()
	return &t, nil
}

// limitParam parses limit, clamped to 1..max; not a number is 400.
func limitParam(v string, def, max int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errBadRequest("invalid `limit`: %q is not an integer", v)
	}
	if n < 1 {
		n = 1
	}
	if n > max {
		n = max
	}
	return n, nil
}
