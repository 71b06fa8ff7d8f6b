package rest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// script is an API answering its first requests with the given statuses
// (0 = drop the connection) and every later one with records 1..3.
func script(t *testing.T, clock *fakeClock, steps ...func(w http.ResponseWriter) bool) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i < len(steps) && steps[i](w) {
			return
		}
		writeJSON(w, items(1, 3))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func status(code int, header ...string) func(w http.ResponseWriter) bool {
	return func(w http.ResponseWriter) bool {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		http.Error(w, "failure body "+http.StatusText(code), code)
		return true
	}
}

// dropConn closes the connection without a response (a transport error).
func dropConn(w http.ResponseWriter) bool {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
	return true
}

func within(d, lo, hi time.Duration) bool { return d >= lo && d < hi }

// TestRetries checks the retry rules with an injected clock: which
// failures are retried, how long each wait is (backoff with jitter,
// Retry-After in both forms), and when the source gives up.
func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		steps    func(c *fakeClock) []func(http.ResponseWriter) bool
		cfg      []any
		requests int64
		err      []string // substrings of the error; nil = success
		waits    func(t *testing.T, w []time.Duration)
	}{{
		name: "500 and 503, then success: two backoffs",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{status(500), status(503)}
		},
		cfg:      []any{"retry_backoff", 2},
		requests: 3,
		waits: func(t *testing.T, w []time.Duration) {
			if len(w) != 2 || !within(w[0], time.Second, 3*time.Second) || !within(w[1], 2*time.Second, 6*time.Second) {
				t.Errorf("waits %v, want 2s and 4s with jitter x[0.5,1.5)", w)
			}
		},
	}, {
		name: "a dropped connection, then success",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{dropConn}
		},
		requests: 2,
		waits: func(t *testing.T, w []time.Duration) {
			if len(w) != 1 || !within(w[0], 500*time.Millisecond, 1500*time.Millisecond) {
				t.Errorf("waits %v, want one of 1s with jitter", w)
			}
		},
	}, {
		name: "5xx until the retries are used up; backoff capped at 60 s",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{status(502), status(502), status(502), status(502), status(502)}
		},
		cfg:      []any{"retry_backoff", 50},
		requests: 4,
		err:      []string{"HTTP 502", "gave up after 4 attempts", "failure body"},
		waits: func(t *testing.T, w []time.Duration) {
			if len(w) != 3 || !within(w[0], 25*time.Second, 75*time.Second) || !within(w[2], 30*time.Second, 90*time.Second) {
				t.Errorf("waits %v, want 50s, then 60s (capped) twice, with jitter", w)
			}
		},
	}, {
		name: "429 with Retry-After in seconds",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{status(429, "Retry-After", "7")}
		},
		requests: 2,
		waits: func(t *testing.T, w []time.Duration) {
			if len(w) != 1 || w[0] != 7*time.Second {
				t.Errorf("waits %v, want exactly 7s", w)
			}
		},
	}, {
		name: "429 with Retry-After as an HTTP date",
		steps: func(c *fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{func(w http.ResponseWriter) bool {
				return status(429, "Retry-After", c.Now().Add(9*time.Second).Format(http.TimeFormat))(w)
			}}
		},
		requests: 2,
		waits: func(t *testing.T, w []time.Duration) {
			if len(w) != 1 || w[0] != 9*time.Second {
				t.Errorf("waits %v, want exactly 9s", w)
			}
		},
	}, {
		name: "429 without Retry-After waits 60 s; 429s do not use up max_retries",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{status(429), status(429), status(429)}
		},
		cfg:      []any{"max_retries", 0},
		requests: 4,
		waits: func(t *testing.T, w []time.Duration) {
			if len(w) != 3 || w[0] != time.Minute || w[2] != time.Minute {
				t.Errorf("waits %v, want 60s three times", w)
			}
		},
	}, {
		name: "more than ten 429s in a row give up",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			var s []func(http.ResponseWriter) bool
			for range 20 {
				s = append(s, status(429, "Retry-After", "1"))
			}
			return s
		},
		requests: 11,
		err:      []string{"HTTP 429", "rate limited 11 times in a row"},
	}, {
		name: "503 with a Retry-After longer than the backoff",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{status(503, "Retry-After", "120")}
		},
		requests: 2,
		waits: func(t *testing.T, w []time.Duration) {
			if len(w) != 1 || w[0] != 2*time.Minute {
				t.Errorf("waits %v, want the server's 120s", w)
			}
		},
	}, {
		name: "a 4xx is not retried",
		steps: func(*fakeClock) []func(http.ResponseWriter) bool {
			return []func(http.ResponseWriter) bool{status(400)}
		},
		requests: 1,
		err:      []string{"HTTP 400 Bad Request", "failure body Bad Request"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			srv, n := script(t, clock, tc.steps(clock)...)
			s := newSrc(t, append([]any{"base_url", srv.URL}, tc.cfg...)...)
			s.client.Clock = clock
			res, err := drain(context.Background(), s, nil, nil)
			switch {
			case tc.err == nil && err != nil:
				t.Fatalf("want success, got %v", err)
			case tc.err == nil && len(res.Records) != 3:
				t.Errorf("read %d records, want 3", len(res.Records))
			case tc.err != nil:
				if err == nil {
					t.Fatal("want an error")
				}
				for _, want := range tc.err {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
			}
			if got := n.Load(); got != tc.requests {
				t.Errorf("the API received %d requests, want %d", got, tc.requests)
			}
			if tc.waits != nil {
				tc.waits(t, clock.slept())
			}
		})
	}
}

// TestRetryAfterRealWait checks with the real clock that a 429 is waited
// out: the server sees the retry at least Retry-After after the 429.
func TestRetryAfterRealWait(t *testing.T) {
	var h hits
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		writeJSON(w, items(1, 1))
	}))
	defer srv.Close()
	res := mustDrain(t, newSrc(t, "base_url", srv.URL), nil)
	hs := h.all()
	if len(res.Records) != 1 || len(hs) != 2 {
		t.Fatalf("%d records over %d requests", len(res.Records), len(hs))
	}
	if gap := hs[1].At.Sub(hs[0].At); gap < time.Second {
		t.Errorf("the retry came %v after the 429, before its Retry-After of 1s", gap)
	}
}

// TestToleratedStatuses: a tolerated status on the first request means
// no records; later in the read it is an error.
func TestToleratedStatuses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/absent":
			http.Error(w, "no such thing", http.StatusNotFound)
		case "/gap":
			if r.URL.Query().Get("page") == "2" {
				http.Error(w, "gone", http.StatusNotFound)
				return
			}
			writeJSON(w, items(1, 2))
		}
	}))
	defer srv.Close()
	res := mustDrain(t, newSrc(t, "base_url", srv.URL, "path", "/absent", "tolerated_http_errors", []any{404}), nil)
	if len(res.Records) != 0 {
		t.Errorf("a tolerated 404 gave %d records", len(res.Records))
	}
	_, err := drain(context.Background(), newSrc(t, "base_url", srv.URL, "path", "/gap", "tolerated_http_errors", []any{404},
		"pagination", map[string]any{"type": "page_number", "param_name": "page"}), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("a 404 on page 2: want an error, got %v", err)
	}
	_, err = drain(context.Background(), newSrc(t, "base_url", srv.URL, "path", "/absent"), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("an untolerated 404 on Open: want an error, got %v", err)
	}
}

// TestBodies: 204 and blank bodies are pages without records; a body
// that is not JSON is an error naming the URL and content type.
func TestBodies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/blank":
			w.Write([]byte("  \n"))
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>maintenance</html>"))
		case "/object":
			writeJSON(w, item(7))
		}
	}))
	defer srv.Close()
	for _, path := range []string{"/empty", "/blank"} {
		if res := mustDrain(t, newSrc(t, "base_url", srv.URL, "path", path), nil); len(res.Records) != 0 {
			t.Errorf("%s: %d records", path, len(res.Records))
		}
	}
	if res := mustDrain(t, newSrc(t, "base_url", srv.URL, "path", "/object"), nil); !equalIDs(ids(res.Records), []int64{7}) {
		t.Errorf("an object body: %v, want one record", ids(res.Records))
	}
	_, err := drain(context.Background(), newSrc(t, "base_url", srv.URL, "path", "/html"), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "/html") || !strings.Contains(err.Error(), "text/html") || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("an HTML body: %v", err)
	}
}

// TestRequestDelay: request_delay waits between page requests, not
// before the first.
func TestRequestDelay(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := max(atoi(r.URL.Query(), "page"), 1)
		writeJSON(w, items(p, min(p, 3)))
	}))
	defer srv.Close()
	clock := newFakeClock()
	s := newSrc(t, "base_url", srv.URL, "request_delay", 2.5, "pagination", map[string]any{"type": "page_number", "param_name": "page"})
	s.client.Clock = clock
	res := mustDrain(t, s, nil)
	w := clock.slept()
	if len(res.Records) != 3 || len(w) != 3 || w[0] != 2500*time.Millisecond || w[2] != 2500*time.Millisecond {
		t.Errorf("%d records, waits %v; want 3 records and 2.5s before each of the 3 requests after the first", len(res.Records), w)
	}
}
