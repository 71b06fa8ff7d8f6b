package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestPaginationModes reads 23 records, 5 per page, through every
// pagination mode against an API that pages that way, and checks the
// records (all, in order, once) and the requests the API received.
func TestPaginationModes(t *testing.T) {
	const total, size = 23, 5
	page := func(from int) []any { return items(from, min(from+size-1, total)) }
	for _, tc := range []struct {
		name     string
		handler  func(w http.ResponseWriter, r *http.Request, h hit)
		cfg      []any
		requests int
		check    func(t *testing.T, hs []hit)
	}{{
		name:     "none: one request, an array body",
		handler:  func(w http.ResponseWriter, r *http.Request, h hit) { writeJSON(w, items(1, total)) },
		requests: 1,
	}, {
		name: "link_header with relative links",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			p := max(atoi(h.Query, "page"), 1)
			if p*size < total {
				w.Header().Add("Link", fmt.Sprintf(`</items?page=%d>; rel="next", </items?page=5>; rel="last"`, p+1))
			}
			writeJSON(w, page((p-1)*size+1))
		},
		cfg:      []any{"pagination", map[string]any{"type": "link_header"}},
		requests: 5,
		check: func(t *testing.T, hs []hit) {
			if hs[0].Query.Has("page") || hs[4].Query.Get("page") != "5" {
				t.Errorf("pages requested: %v then %v", hs[0].Query, hs[4].Query)
			}
		},
	}, {
		name: "cursor in a query parameter",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			after := atoi(h.Query, "after")
			var next any
			if after+size < total {
				next = strconv.Itoa(after + size)
			}
			writeJSON(w, map[string]any{"data": page(after + 1), "next": next})
		},
		cfg:      []any{"records_path", "$.data[*]", "pagination", map[string]any{"type": "cursor", "next_token_path": "$.next", "param_name": "after"}},
		requests: 5,
		check: func(t *testing.T, hs []hit) {
			if hs[0].Query.Has("after") || hs[1].Query.Get("after") != "5" || hs[4].Query.Get("after") != "20" {
				t.Errorf("cursors sent: %v, %v, %v", hs[0].Query, hs[1].Query, hs[4].Query)
			}
		},
	}, {
		name: "cursor in a POST body (1.x spelling CursorInBody)",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			var body map[string]any
			if err := json.Unmarshal([]byte(h.Body), &body); err != nil || body["query"] != "open" {
				http.Error(w, "bad body "+h.Body, http.StatusBadRequest)
				return
			}
			after, _ := strconv.Atoi(strings.TrimPrefix(fmt.Sprint(body["cursor"]), "c"))
			next := ""
			if after+size < total {
				next = fmt.Sprintf("c%d", after+size)
			}
			writeJSON(w, map[string]any{"items": page(after + 1), "meta": map[string]any{"next_cursor": next}})
		},
		cfg: []any{"method", "post", "body", map[string]any{"query": "open"}, "records_path", "$.items",
			"pagination", map[string]any{"type": "CursorInBody", "next_token_path": "$.meta.next_cursor", "body_cursor_field": "cursor"}},
		requests: 5,
		check: func(t *testing.T, hs []hit) {
			if hs[0].Method != http.MethodPost || hs[0].Header.Get("Content-Type") != "application/json" {
				t.Errorf("first request: %s with Content-Type %q", hs[0].Method, hs[0].Header.Get("Content-Type"))
			}
			if hs[0].Body != `{"query":"open"}` || hs[1].Body != `{"query":"open","cursor":"c5"}` {
				t.Errorf("bodies: %s then %s", hs[0].Body, hs[1].Body)
			}
		},
	}, {
		name: "next link in the body (OData style, absolute URL)",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			skip := atoi(h.Query, "$skip")
			body := map[string]any{"value": page(skip + 1)}
			if skip+size < total {
				body["@odata.nextLink"] = fmt.Sprintf("http://%s/items?$skip=%d", r.Host, skip+size)
			}
			writeJSON(w, body)
		},
		cfg:      []any{"records_path", "$.value", "query_params", map[string]any{"$top": "5"}, "pagination", map[string]any{"type": "next_link_in_body", "next_link_path": "$['@odata.nextLink']"}},
		requests: 5,
		check: func(t *testing.T, hs []hit) {
			// query_params go on the first request; next links are followed as written.
			if hs[0].Query.Get("$top") != "5" || hs[1].Query.Has("$top") || hs[1].Query.Get("$skip") != "5" {
				t.Errorf("queries: %v then %v", hs[0].Query, hs[1].Query)
			}
		},
	}, {
		name: "page_number from 1 with a page size, until an empty page",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			p := atoi(h.Query, "page")
			if h.Query.Get("per_page") != "5" || p < 1 {
				http.Error(w, "bad paging", http.StatusBadRequest)
				return
			}
			if (p-1)*size >= total {
				writeJSON(w, []any{})
				return
			}
			writeJSON(w, page((p-1)*size+1))
		},
		cfg:      []any{"pagination", map[string]any{"type": "page_number", "param_name": "page", "page_size": 5, "page_size_param": "per_page"}},
		requests: 6,
	}, {
		name: "page_number from 0 (1.x spelling PageNumber)",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			p := atoi(h.Query, "p")
			if p*size >= total {
				writeJSON(w, map[string]any{"rows": []any{}})
				return
			}
			writeJSON(w, map[string]any{"rows": page(p*size + 1)})
		},
		cfg:      []any{"records_path", "$.rows[*]", "pagination", map[string]any{"type": "PageNumber", "param_name": "p", "start_page": 0}},
		requests: 6,
		check: func(t *testing.T, hs []hit) {
			if hs[0].Query.Get("p") != "0" {
				t.Errorf("first page requested: %v", hs[0].Query)
			}
		},
	}, {
		name: "offset with a total",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			off := atoi(h.Query, "offset")
			if h.Query.Get("limit") != "5" {
				http.Error(w, "bad limit", http.StatusBadRequest)
				return
			}
			writeJSON(w, map[string]any{"results": page(off + 1), "total": total})
		},
		cfg:      []any{"records_path", "$.results", "pagination", map[string]any{"type": "offset", "limit": 5, "total_path": "$.total"}},
		requests: 5,
	}, {
		name: "offset with a total as a string, named parameters",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			writeJSON(w, map[string]any{"results": page(atoi(h.Query, "start") + 1), "meta": map[string]any{"count": "23"}})
		},
		cfg:      []any{"records_path", "$.results", "pagination", map[string]any{"type": "Offset", "offset_param": "start", "limit_param": "count", "limit": 5, "total_path": "$.meta.count"}},
		requests: 5,
	}, {
		name: "offset without a total: a short page is the last",
		handler: func(w http.ResponseWriter, r *http.Request, h hit) {
			writeJSON(w, page(atoi(h.Query, "offset")+1))
		},
		cfg:      []any{"pagination", map[string]any{"type": "offset", "limit": 5}},
		requests: 5,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var h hits
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tc.handler(w, r, h.add(r))
			}))
			defer srv.Close()
			res := mustDrain(t, newSrc(t, append([]any{"base_url", srv.URL, "path", "/items"}, tc.cfg...)...), nil)
			if got := ids(res.Records); !equalIDs(got, seq(1, total)) {
				t.Errorf("read ids %v, want 1..%d", got, total)
			}
			if res.Bookmark != nil {
				t.Errorf("a full-table read emitted bookmark %v", *res.Bookmark)
			}
			hs := h.all()
			if len(hs) != tc.requests {
				t.Fatalf("the API received %d requests, want %d", len(hs), tc.requests)
			}
			if tc.check != nil {
				tc.check(t, hs)
			}
		})
	}
}

// TestRequestShape checks what every request carries: the path's own
// query, query_params, repeated query_params_multi keys, headers, and
// the method.
func TestRequestShape(t *testing.T) {
	var h hits
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		writeJSON(w, items(1, 2))
	}))
	defer srv.Close()
	res := mustDrain(t, newSrc(t, "base_url", srv.URL+"/api/v2/", "path", "/orders?fields=id,name",
		"query_params", map[string]any{"sort": "id", "api_version": "2"},
		"query_params_multi", map[string]any{"status": []any{"open", "paid"}},
		"headers", map[string]any{"X-Trace": "t-1", "Accept": "application/vnd.api+json"}), nil)
	if len(res.Records) != 2 {
		t.Fatalf("read %d records", len(res.Records))
	}
	got := h.all()[0]
	if got.Method != http.MethodGet || got.Path != "/api/v2/orders" {
		t.Errorf("request %s %s", got.Method, got.Path)
	}
	q := got.Query
	if q.Get("fields") != "id,name" || q.Get("sort") != "id" || q.Get("api_version") != "2" || strings.Join(q["status"], "|") != "open|paid" {
		t.Errorf("query %v", q)
	}
	if got.Header.Get("X-Trace") != "t-1" || got.Header.Get("Accept") != "application/vnd.api+json" {
		t.Errorf("headers %v", got.Header)
	}
}
