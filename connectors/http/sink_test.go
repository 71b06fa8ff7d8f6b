package http

import (
	"context"
	"encoding/base64"
	"fmt"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// TestModes sends a page one record per request and as arrays, and checks
// what the endpoint received: every record once, the request bodies, the
// method and headers.
func TestModes(t *testing.T) {
	t.Run("individual", func(t *testing.T) {
		e := newEndpoint(t, nil)
		s := openSink(t, nil, "url", e.srv.URL+"/ingest", "method", "put", "headers", map[string]any{"X-Source": "faucet"},
			"auth", map[string]any{"type": "bearer", "config": map[string]any{"token": "tok-abcdef"}})
		p := page(30)
		if err := s.Write(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if got := e.got(); !equalIDs(got, seq(1, 30)) || e.nRequests() != 30 || len(p.Failed) != 0 {
			t.Errorf("received %v in %d requests (%d failed)", got, e.nRequests(), len(p.Failed))
		}
		h := e.headers
		if h.Get("Content-Type") != "application/json" || h.Get("X-Source") != "faucet" || h.Get("Authorization") != "Bearer tok-abcdef" {
			t.Errorf("headers %v", h)
		}
	})
	t.Run("arrays of batch_size, in order", func(t *testing.T) {
		e := newEndpoint(t, nil)
		s := openSink(t, nil, "url", e.srv.URL, "batch_mode", map[string]any{"type": "Array"}, "batch_size", 100)
		if err := s.Write(context.Background(), page(250)); err != nil {
			t.Fatal(err)
		}
		if len(e.bodies) != 3 || !equalIDs(e.bodies[0], seq(1, 100)) || !equalIDs(e.bodies[1], seq(101, 200)) || !equalIDs(e.bodies[2], seq(201, 250)) {
			t.Errorf("bodies of %d requests: sizes %d...", len(e.bodies), len(e.bodies[0]))
		}
	})
	t.Run("batch_size 0: the whole page in one array", func(t *testing.T) {
		e := newEndpoint(t, nil)
		s := openSink(t, nil, "url", e.srv.URL, "batch_mode", map[string]any{"type": "array"}, "batch_size", 0)
		if err := s.Write(context.Background(), page(1234)); err != nil {
			t.Fatal(err)
		}
		if len(e.bodies) != 1 || len(e.bodies[0]) != 1234 {
			t.Errorf("%d requests", len(e.bodies))
		}
	})
	t.Run("basic auth and api key in the query", func(t *testing.T) {
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte("ann:pw-123456"))
		e := newEndpoint(t, func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string) {
			if r.Header.Get("Authorization") != want || r.URL.Query().Get("key") != "k-1" {
				return 401, nil
			}
			return 0, nil
		})
		s := openSink(t, nil, "url", e.srv.URL+"?key=k-1", "auth", map[string]any{"type": "basic", "config": map[string]any{"username": "ann", "password": "pw-123456"}})
		if err := s.Write(context.Background(), page(3)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestConcurrencyBound: the endpoint holds requests until as many as the
// bound are in flight, and counts the most it ever sees at once.
func TestConcurrencyBound(t *testing.T) {
	const bound = 4
	var mu sync.Mutex
	inflight, peak := 0, 0
	gate := make(chan struct{})
	var open sync.Once
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		if inflight == bound {
			open.Do(func() { close(gate) })
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(10 * time.Second): // a sink that never reaches the bound
		}
		mu.Lock()
		inflight--
		mu.Unlock()
		w.WriteHeader(nethttp.StatusOK)
	}))
	defer srv.Close()
	s := openSink(t, nil, "url", srv.URL, "concurrency", bound)
	if err := s.Write(context.Background(), page(60)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate:
	default:
		t.Fatalf("the sink never had %d requests in flight (peak %d)", bound, peak)
	}
	if peak != bound {
		t.Errorf("peak of %d requests in flight, want exactly the bound %d", peak, bound)
	}
}

// TestRetries: 503s and 429s are retried, with the backoff or the
// server's Retry-After, and each record lands once.
func TestRetries(t *testing.T) {
	t.Run("503 then success, every record", func(t *testing.T) {
		clock := newFakeClock()
		e := newEndpoint(t, func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string) {
			if attempt == 1 {
				return 503, nil
			}
			return 0, nil
		})
		s := openSink(t, clock, "url", e.srv.URL, "retry_backoff", 2)
		p := page(20)
		if err := s.Write(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if got := e.got(); !equalIDs(got, seq(1, 20)) || e.nRequests() != 40 {
			t.Errorf("received %v over %d requests, want 1..20 over 40", got, e.nRequests())
		}
		w := clock.slept()
		for _, d := range w {
			if d < time.Second || d >= 3*time.Second {
				t.Errorf("a wait of %v, want 2s with jitter x[0.5,1.5)", d)
			}
		}
		if len(w) != 20 {
			t.Errorf("%d waits, want one per record", len(w))
		}
	})
	t.Run("429 with Retry-After, arrays", func(t *testing.T) {
		clock := newFakeClock()
		e := newEndpoint(t, func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string) {
			if attempt == 1 {
				return 429, map[string]string{"Retry-After": clock.Now().Add(4 * time.Second).Format(nethttp.TimeFormat)}
			}
			return 0, nil
		})
		s := openSink(t, clock, "url", e.srv.URL, "batch_mode", map[string]any{"type": "Array"}, "batch_size", 10, "max_retries", 0)
		if err := s.Write(context.Background(), page(20)); err != nil {
			t.Fatal(err)
		}
		if got := e.got(); !equalIDs(got, seq(1, 20)) {
			t.Errorf("received %v", got)
		}
		if w := clock.slept(); len(w) != 2 || w[0] != 4*time.Second || w[1] != 4*time.Second {
			t.Errorf("waits %v, want the server's 4s twice", w)
		}
	})
}

// TestRefusedRecords: records the endpoint refuses with a 4xx are
// reported in the page's Failed list; the others are delivered.
func TestRefusedRecords(t *testing.T) {
	refuse := func(id int64) bool { return id%7 == 0 || id == 10 }
	decide := func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string) {
		for _, id := range ids {
			switch {
			case id == 10:
				return 422, nil
			case id%7 == 0:
				return 400, nil
			}
		}
		return 0, nil
	}
	t.Run("individual", func(t *testing.T) {
		e := newEndpoint(t, decide)
		s := openSink(t, nil, "url", e.srv.URL)
		p := page(30)
		if err := s.Write(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if got := e.got(); !equalIDs(got, without(seq(1, 30), refuse)) {
			t.Errorf("delivered %v", got)
		}
		if got := failedIDs(p); fmt.Sprint(got) != "[7 10 14 21 28]" {
			t.Errorf("failed %v", got)
		}
		f := p.Failed[1]
		if f.Stage != connector.StageSink || f.Component != "http" || !strings.Contains(f.Error(), "HTTP 422") ||
			!strings.Contains(f.Error(), "refused by the test") || !strings.Contains(f.Error(), "record 10 of the page") {
			t.Errorf("failure: %v", &f)
		}
	})
	t.Run("arrays: the refused array goes to the DLQ, the next is sent", func(t *testing.T) {
		e := newEndpoint(t, func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string) {
			if ids[0] == 11 {
				return 400, nil
			}
			return 0, nil
		})
		s := openSink(t, nil, "url", e.srv.URL, "batch_mode", map[string]any{"type": "Array"}, "batch_size", 10)
		p := page(30)
		if err := s.Write(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if got := e.got(); !equalIDs(got, append(seq(1, 10), seq(21, 30)...)) {
			t.Errorf("delivered %v", got)
		}
		if got := failedIDs(p); !equalIDs(got, seq(11, 20)) || !strings.Contains(p.Failed[0].Error(), "array of records 11-20") {
			t.Errorf("failed %v: %v", got, &p.Failed[0])
		}
	})
}

// TestWriteFailures: what is not one record's fault fails the write, and
// is not marked retryable (the engine must not send the page again).
func TestWriteFailures(t *testing.T) {
	closed := httptest.NewServer(nethttp.NotFoundHandler())
	closed.Close()
	always := func(code int) *endpoint {
		return newEndpoint(t, func([]int64, int, *nethttp.Request) (int, map[string]string) { return code, nil })
	}
	for _, tc := range []struct {
		name  string
		url   string
		want  []string
		fatal bool
	}{
		{"endpoint down", closed.URL, []string{"connection refused", "gave up after 3 attempts"}, false},
		{"500 after the retries", always(500).srv.URL, []string{"HTTP 500", "gave up after 3 attempts"}, false},
		{"401", always(401).srv.URL, []string{"HTTP 401", "check the auth credentials"}, true},
		{"429 more than ten times", always(429).srv.URL, []string{"HTTP 429", "rate limited 11 times"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openSink(t, newFakeClock(), "url", tc.url, "max_retries", 2, "concurrency", 1)
			p := page(5)
			err := s.Write(context.Background(), p)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if connector.IsRetryable(err) || connector.IsFatal(err) != tc.fatal || len(p.Failed) != 0 {
				t.Errorf("retryable %t, fatal %t, %d failed records", connector.IsRetryable(err), connector.IsFatal(err), len(p.Failed))
			}
		})
	}
}

// TestSinkSecrets: credentials echoed by the endpoint never reach a
// failed record's message or a write error.
func TestSinkSecrets(t *testing.T) {
	echo := func(code int) nethttp.HandlerFunc {
		return func(w nethttp.ResponseWriter, r *nethttp.Request) {
			nethttp.Error(w, "auth="+r.Header.Get("Authorization")+" url="+r.URL.String(), code)
		}
	}
	for _, code := range []int{400, 500} {
		srv := httptest.NewServer(echo(code))
		s := openSink(t, newFakeClock(), "url", srv.URL+"?token=url-tok-777", "max_retries", 1,
			"auth", map[string]any{"type": "bearer", "config": map[string]any{"token": "BEARER-SECRET-1"}})
		p := page(1)
		err := s.Write(context.Background(), p)
		text := fmt.Sprint(err)
		if len(p.Failed) > 0 {
			text += p.Failed[0].Error()
		}
		if text == "<nil>" || strings.Contains(text, "BEARER-SECRET-1") || strings.Contains(text, "url-tok-777") || !strings.Contains(text, "***") {
			t.Errorf("HTTP %d: %s", code, text)
		}
		srv.Close()
	}
}

// TestOAuth2Refresh: the endpoint revokes the token the sink fetched on
// Open; the concurrent requests refused with it cause one new token, and
// every record is delivered.
func TestOAuth2Refresh(t *testing.T) {
	var count int64
	var mu sync.Mutex
	tokens := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if r.ParseForm() != nil || r.PostForm.Get("client_secret") != "cs-123456" {
			nethttp.Error(w, "bad client", 401)
			return
		}
		mu.Lock()
		count++
		tok := fmt.Sprintf("at-%d", count)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"expires_in":3600}`, tok)
	}))
	defer tokens.Close()
	e := newEndpoint(t, func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string) {
		if r.Header.Get("Authorization") == "Bearer at-1" { // revoked
			return 401, nil
		}
		return 0, nil
	})
	s := openSink(t, nil, "url", e.srv.URL, "concurrency", 8, "auth", map[string]any{"type": "oauth2", "config": map[string]any{
		"token_url": tokens.URL, "client_id": "c", "client_secret": "cs-123456"}})
	p := page(40)
	if err := s.Write(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if got := e.got(); !equalIDs(got, seq(1, 40)) || len(p.Failed) != 0 {
		t.Errorf("delivered %v, %d failed", got, len(p.Failed))
	}
	mu.Lock()
	defer mu.Unlock()
	if count != 2 {
		t.Errorf("%d tokens fetched, want 2 (one on Open, one after the revocation)", count)
	}
}
