package rest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLoopGuards: an API that leads the source in a circle, or ignores
// the page parameter, ends the read with a warning instead of looping,
// and a repeated page is not emitted twice. max_pages stops too.
func TestLoopGuards(t *testing.T) {
	for _, tc := range []struct {
		name     string
		handler  http.HandlerFunc
		cfg      []any
		ids      []int64
		requests int
		warn     string
	}{{
		name: "a cursor that comes back",
		handler: func(w http.ResponseWriter, r *http.Request) {
			// "" -> A -> B -> A again.
			switch r.URL.Query().Get("cursor") {
			case "":
				writeJSON(w, map[string]any{"data": items(1, 2), "next": "A"})
			case "A":
				writeJSON(w, map[string]any{"data": items(3, 4), "next": "B"})
			case "B":
				writeJSON(w, map[string]any{"data": items(5, 6), "next": "A"})
			}
		},
		cfg:      []any{"records_path", "$.data", "pagination", map[string]any{"type": "cursor", "next_token_path": "$.next", "param_name": "cursor"}},
		ids:      seq(1, 6),
		requests: 3,
		warn:     `cursor \"A\" came back a second time`,
	}, {
		name: "a next link back to the first page",
		handler: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "2" {
				w.Header().Set("Link", `</items>; rel="next"`)
				writeJSON(w, items(3, 4))
				return
			}
			w.Header().Set("Link", `</items?page=2>; rel="next"`)
			writeJSON(w, items(1, 2))
		},
		cfg:      []any{"path", "/items", "pagination", map[string]any{"type": "link_header"}},
		ids:      seq(1, 4),
		requests: 2,
		warn:     "already read",
	}, {
		name: "page_number ignored by the server: the repeat is dropped",
		handler: func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, items(1, 3))
		},
		cfg:      []any{"pagination", map[string]any{"type": "page_number", "param_name": "page"}},
		ids:      seq(1, 3),
		requests: 2,
		warn:     "page 2 returned the same response as page 1",
	}, {
		name: "offset ignored by the server: the repeat is dropped",
		handler: func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, items(1, 3))
		},
		cfg:      []any{"pagination", map[string]any{"type": "offset", "limit": 3}},
		ids:      seq(1, 3),
		requests: 2,
		warn:     "offset 3 returned the same response",
	}, {
		name: "max_pages",
		handler: func(w http.ResponseWriter, r *http.Request) {
			p := max(atoi(r.URL.Query(), "page"), 1)
			writeJSON(w, items(2*p-1, 2*p))
		},
		cfg:      []any{"max_pages", 3, "pagination", map[string]any{"type": "page_number", "param_name": "page"}},
		ids:      seq(1, 6),
		requests: 3,
		warn:     "max_pages reached",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var h hits
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.add(r)
				tc.handler(w, r)
			}))
			defer srv.Close()
			var log logBuf
			res, err := drain(context.Background(), newSrc(t, append([]any{"base_url", srv.URL}, tc.cfg...)...), nil, &log)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(res.Records); !equalIDs(got, tc.ids) {
				t.Errorf("read %v, want %v", got, tc.ids)
			}
			if h.n() != tc.requests {
				t.Errorf("%d requests, want %d", h.n(), tc.requests)
			}
			if !strings.Contains(log.String(), tc.warn) || !strings.Contains(log.String(), "level=WARN") {
				t.Errorf("no warning %q in the log:\n%s", tc.warn, log.String())
			}
		})
	}
}

// TestNextLinkToAnotherHost: credentials are not sent to a host the
// server's next link leads to.
func TestNextLinkToAnotherHost(t *testing.T) {
	var other hits
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.add(r)
		writeJSON(w, items(3, 4))
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// 127.0.0.1 vs localhost: another host as far as credentials go.
		w.Header().Set("Link", "<"+strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)+`/page2>; rel="next"`)
		writeJSON(w, items(1, 2))
	}))
	defer srv.Close()
	bearer := map[string]any{"type": "bearer", "config": map[string]any{"token": "tok-12345678"}}
	_, err := drain(context.Background(), newSrc(t, "base_url", srv.URL, "auth", bearer, "pagination", map[string]any{"type": "link_header"}), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "points to another host") || other.n() != 0 {
		t.Errorf("want a refusal before any request to the other host; got %v after %d requests there", err, other.n())
	}
	// Without credentials the link is followed.
	res := mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", map[string]any{"type": "link_header"}), nil)
	if got := ids(res.Records); !equalIDs(got, seq(1, 4)) {
		t.Errorf("without auth: %v", got)
	}
}
