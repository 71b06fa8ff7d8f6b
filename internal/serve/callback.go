package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/redact"
)

// Callback delivery (reference §6).
const (
	callbackAttempts = 3
	callbackTimeout  = 10 * time.Second
	callbackBackoff  = 250 * time.Millisecond
)

var callbackReserved = []string{"event", "run_id", "status", "name", "labels", "submitted_at", "started_at",
	"finished_at", "elapsed_secs", "records_written", "error", "attempt"}

var metadataHosts = []string{"metadata", "metadata.google.internal", "metadata.goog", "instance-data"}

// validateCallback checks a callback spec at submit (422 on any problem).
func (s *Server) validateCallback(cb *history.CallbackSpec) error {
	bad := func(format string, args ...any) error {
		return errUnprocessable(map[string]string{"field": "callback"}, "callback: "+format, args...)
	}
	if strings.TrimSpace(cb.URL) == "" {
		return bad("url is required")
	}
	if cb.Method == "" {
		cb.Method = http.MethodPost
	}
	if !validToken(cb.Method) {
		return bad("method %q is not a valid HTTP method", cb.Method)
	}
	for _, k := range callbackReserved {
		if _, ok := cb.ExtraFields[k]; ok {
			return bad("extra_fields may not set the reserved field %q", k)
		}
	}
	for _, st := range cb.On {
		if !st.IsTerminal() {
			return bad("on: %q is not a terminal status (completed, failed, cancelled)", st)
		}
	}
	for k := range cb.Headers {
		if !validToken(k) {
			return bad("header name %q is not valid", k)
		}
	}
	u, err := url.Parse(cb.URL)
	if err != nil {
		return bad("url does not parse: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return bad("url scheme must be http or https")
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return bad("url has no host")
	}
	if len(s.cfg.CallbackAllowHosts) > 0 {
		for _, h := range s.cfg.CallbackAllowHosts {
			if strings.EqualFold(h, host) {
				return nil
			}
		}
		return bad("host %q is not in --callback-allow-host", host)
	}
	for _, m := range metadataHosts {
		if host == m {
			return bad("host %q is a cloud metadata endpoint", host)
		}
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLinkLocalUnicast() {
		return bad("link-local address %s is refused", host)
	}
	return nil
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", c) {
			return false
		}
	}
	return true
}

// callbackClient refuses, at connect time, link-local addresses that a
// hostname resolved to (the original checked only a literal IP in the URL,
// so a DNS name pointing at 169.254.169.254 got through). With an allow
// list the operator vouched for the hosts and nothing is refused.
func (s *Server) callbackClient() *http.Client {
	d := &net.Dialer{Timeout: callbackTimeout}
	if len(s.cfg.CallbackAllowHosts) == 0 {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, _ := net.SplitHostPort(address)
			if ip := net.ParseIP(host); ip != nil && ip.IsLinkLocalUnicast() {
				return fmt.Errorf("callback refused: %s is link-local", host)
			}
			return nil
		}
	}
	tr := &http.Transport{DialContext: d.DialContext, Proxy: nil, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second}
	return &http.Client{Transport: tr, Timeout: callbackTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// callbackBody is the JSON posted to a callback, extra fields at top level.
func callbackBody(rec history.RunRecord) ([]byte, error) {
	var errMsg *string
	if rec.Error != nil {
		m := redact.String(*rec.Error)
		errMsg = &m
	}
	labels := rec.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	body := map[string]any{
		"event": "run." + string(rec.Status), "run_id": rec.RunID, "status": rec.Status, "name": rec.Name,
		"labels": labels, "submitted_at": rec.SubmittedAt, "started_at": rec.StartedAt, "finished_at": rec.FinishedAt,
		"elapsed_secs": rec.ElapsedSecs, "records_written": rec.RecordsWritten, "error": errMsg, "attempt": rec.Attempt,
	}
	for k, v := range rec.Callback.ExtraFields {
		body[k] = v
	}
	return json.Marshal(body)
}

// fireCallback delivers the terminal event in the background: 3 attempts,
// 10 s each, 250 ms × 2^(n-1) apart; a 4xx other than 408/429 is final. A
// failure is only logged.
func (r *Runner) fireCallback(rec history.RunRecord) {
	cb := rec.Callback
	if cb == nil {
		return
	}
	if len(cb.On) > 0 {
		wanted := false
		for _, st := range cb.On {
			wanted = wanted || st == rec.Status
		}
		if !wanted {
			return
		}
	}
	body, err := callbackBody(rec)
	if err != nil {
		r.s.logger.Warn("callback body", "run_id", rec.RunID, "err", err)
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		err := r.deliver(cb, body)
		if err != nil {
			r.s.logger.Warn("completion callback failed", "run_id", rec.RunID, "err", redact.String(err.Error()))
		}
	}()
}

func (r *Runner) deliver(cb *history.CallbackSpec, body []byte) error {
	var last error
	for attempt := 1; attempt <= callbackAttempts; attempt++ {
		if attempt > 1 {
			t := time.NewTimer(callbackBackoff << (attempt - 2))
			select {
			case <-t.C:
			case <-r.base.Done():
				t.Stop()
				if errors.Is(context.Cause(r.base), errShutdown) {
					return fmt.Errorf("server shutdown before delivery: %w", last)
				}
			}
		}
		req, err := http.NewRequest(cb.Method, cb.URL, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "faucet-serve")
		for k, v := range cb.Headers {
			req.Header.Set(k, v)
		}
		res, err := r.s.callbacks.Do(req)
		if err != nil {
			last = err
			continue
		}
		res.Body.Close()
		switch {
		case res.StatusCode < 300:
			return nil
		case res.StatusCode >= 400 && res.StatusCode < 500 && res.StatusCode != 408 && res.StatusCode != 429:
			return fmt.Errorf("callback answered %s", res.Status)
		}
		last = fmt.Errorf("callback answered %s", res.Status)
	}
	return last
}

// maskCallback hides header values in responses.
func maskCallback(cb *history.CallbackSpec) *history.CallbackSpec {
	if cb == nil || len(cb.Headers) == 0 {
		return cb
	}
	c := *cb
	c.Headers = make(map[string]string, len(cb.Headers))
	for k := range cb.Headers {
		c.Headers[k] = "***"
	}
	return &c
}
