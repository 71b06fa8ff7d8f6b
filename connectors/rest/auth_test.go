package rest

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestAuthModes reads through an API that accepts only the right
// credentials, for every auth type, and with wrong credentials expects
// the 401 as an error.
func TestAuthModes(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("ann:s3cret-pw"))
	for _, tc := range []struct {
		name  string
		auth  map[string]any
		wrong map[string]any // same type, wrong secret
		ok    func(r *http.Request) bool
	}{{
		name: "none",
		auth: map[string]any{"type": "none"},
		ok:   func(r *http.Request) bool { return r.Header.Get("Authorization") == "" },
	}, {
		name:  "bearer",
		auth:  map[string]any{"type": "bearer", "config": map[string]any{"token": "tok-12345"}},
		wrong: map[string]any{"type": "bearer", "config": map[string]any{"token": "tok-99999"}},
		ok:    func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer tok-12345" },
	}, {
		name:  "basic",
		auth:  map[string]any{"type": "basic", "config": map[string]any{"username": "ann", "password": "s3cret-pw"}},
		wrong: map[string]any{"type": "basic", "config": map[string]any{"username": "ann", "password": "nope-nope"}},
		ok:    func(r *http.Request) bool { return r.Header.Get("Authorization") == basic },
	}, {
		name:  "api_key in a header",
		auth:  map[string]any{"type": "api_key", "config": map[string]any{"header": "X-Api-Key", "value": "key-abcdef"}},
		wrong: map[string]any{"type": "api_key", "config": map[string]any{"header": "X-Api-Key", "value": "key-zzzzzz"}},
		ok:    func(r *http.Request) bool { return r.Header.Get("X-Api-Key") == "key-abcdef" },
	}, {
		name:  "api_key in the query",
		auth:  map[string]any{"type": "api_key_query", "config": map[string]any{"param": "apikey", "value": "key-abcdef"}},
		wrong: map[string]any{"type": "api_key_query", "config": map[string]any{"param": "apikey", "value": "key-zzzzzz"}},
		ok: func(r *http.Request) bool {
			return r.URL.Query().Get("apikey") == "key-abcdef" && len(r.URL.Query()["apikey"]) == 1
		},
	}, {
		name:  "custom headers",
		auth:  map[string]any{"type": "custom", "config": map[string]any{"headers": map[string]any{"X-Tenant": "t1", "X-Sig": "sig-123456"}}},
		wrong: map[string]any{"type": "custom", "config": map[string]any{"headers": map[string]any{"X-Tenant": "t1", "X-Sig": "sig-000000"}}},
		ok: func(r *http.Request) bool {
			return r.Header.Get("X-Tenant") == "t1" && r.Header.Get("X-Sig") == "sig-123456"
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !tc.ok(r) {
					http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
					return
				}
				// A Link header with the key in it, as APIs that echo
				// their query do: the source must not send it twice.
				if r.URL.Query().Get("page") == "" {
					w.Header().Set("Link", "<"+r.URL.Path+"?page=2&"+r.URL.RawQuery+`>; rel="next"`)
					writeJSON(w, items(1, 2))
					return
				}
				writeJSON(w, items(3, 3))
			}))
			defer srv.Close()
			res := mustDrain(t, newSrc(t, "base_url", srv.URL, "auth", tc.auth, "pagination", map[string]any{"type": "link_header"}), nil)
			if got := ids(res.Records); !equalIDs(got, seq(1, 3)) {
				t.Errorf("read %v", got)
			}
			if tc.wrong == nil {
				return
			}
			_, err := drain(context.Background(), newSrc(t, "base_url", srv.URL, "auth", tc.wrong, "max_retries", 0), nil, nil)
			if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
				t.Fatalf("wrong credentials: want the 401, got %v", err)
			}
		})
	}
}

// tokenServer is an oauth2 client-credentials endpoint issuing at-1,
// at-2, ... with the given lifetime (0: no expires_in).
type tokenServer struct {
	srv    *httptest.Server
	issued atomic.Int64
}

func newTokenServer(t *testing.T, lifetime int) *tokenServer {
	ts := &tokenServer{}
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost ||
			r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("client_id") != "app" ||
			r.PostForm.Get("client_secret") != "app-secret-xyz" || r.PostForm.Get("scope") != "read write" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		n := ts.issued.Add(1)
		body := map[string]any{"access_token": fmt.Sprintf("at-%d", n), "token_type": "Bearer"}
		if lifetime > 0 {
			body["expires_in"] = lifetime
		}
		writeJSON(w, body)
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

func (ts *tokenServer) auth() map[string]any {
	return map[string]any{"type": "oauth2", "config": map[string]any{
		"token_url": ts.srv.URL + "/token", "client_id": "app", "client_secret": "app-secret-xyz", "scopes": []any{"read", "write"},
	}}
}

// TestOAuth2 covers the client-credentials flow: one token for the whole
// read while it is valid; renewal before expiry in the middle of a
// pagination (the API refuses an expired token, and never has to); one
// retry with a new token after a 401; and no second retry.
func TestOAuth2(t *testing.T) {
	t.Run("one token while it is valid", func(t *testing.T) {
		ts := newTokenServer(t, 3600)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer at-1" {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			p := max(atoi(r.URL.Query(), "page"), 1)
			writeJSON(w, items(p*2-1, min(p*2, 9)))
		}))
		defer srv.Close()
		res := mustDrain(t, newSrc(t, "base_url", srv.URL, "auth", ts.auth(), "pagination", map[string]any{"type": "page_number", "param_name": "page"}), nil)
		if len(res.Records) != 9 || ts.issued.Load() != 1 {
			t.Errorf("read %d records with %d tokens, want 9 with 1", len(res.Records), ts.issued.Load())
		}
	})

	t.Run("renewed before it expires, mid-pagination", func(t *testing.T) {
		clock := newFakeClock()
		ts := newTokenServer(t, 100) // renewed after 90 s (expiry_ratio 0.9)
		issuedAt := map[string]time.Time{}
		var refused atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			at, ok := issuedAt[tok]
			if !ok {
				issuedAt[tok] = clock.Now() // first use
				at = clock.Now()
			}
			if clock.Now().Sub(at) >= 100*time.Second {
				refused.Add(1)
				http.Error(w, "token expired", http.StatusUnauthorized)
				return
			}
			p := max(atoi(r.URL.Query(), "page"), 1)
			writeJSON(w, items(p*2-1, min(p*2, 10)))
		}))
		defer srv.Close()
		// 40 s between pages: pages 1-3 use at-1 (0, 40, 80 s); page 4
		// (120 s) needs a new one.
		s := newSrc(t, "base_url", srv.URL, "auth", ts.auth(), "request_delay", 40, "pagination", map[string]any{"type": "page_number", "param_name": "page"})
		s.client.Clock = clock
		res := mustDrain(t, s, nil)
		if got := ids(res.Records); !equalIDs(got, seq(1, 10)) {
			t.Errorf("read %v", got)
		}
		if ts.issued.Load() != 2 || refused.Load() != 0 {
			t.Errorf("%d tokens issued and %d requests refused; want 2 tokens, renewed before the API refused one", ts.issued.Load(), refused.Load())
		}
	})

	t.Run("a 401 gets one retry with a new token", func(t *testing.T) {
		ts := newTokenServer(t, 0) // no expires_in: kept until a 401
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			p := max(atoi(r.URL.Query(), "page"), 1)
			// The server revokes at-1 from page 3 on.
			if tok := r.Header.Get("Authorization"); tok != "Bearer at-2" && (p >= 3 || tok != "Bearer at-1") {
				http.Error(w, "revoked", http.StatusUnauthorized)
				return
			}
			writeJSON(w, items(p*2-1, min(p*2, 8)))
		}))
		defer srv.Close()
		res := mustDrain(t, newSrc(t, "base_url", srv.URL, "auth", ts.auth(), "pagination", map[string]any{"type": "page_number", "param_name": "page"}), nil)
		if got := ids(res.Records); !equalIDs(got, seq(1, 8)) {
			t.Errorf("read %v", got)
		}
		// Pages 1-5 (5 is empty) plus the refused attempt at page 3.
		if ts.issued.Load() != 2 || calls.Load() != 6 {
			t.Errorf("%d tokens, %d requests; want 2 and 6", ts.issued.Load(), calls.Load())
		}
	})

	t.Run("a 401 with the new token too is an error", func(t *testing.T) {
		ts := newTokenServer(t, 0)
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			http.Error(w, "forbidden for this client", http.StatusUnauthorized)
		}))
		defer srv.Close()
		_, err := drain(context.Background(), newSrc(t, "base_url", srv.URL, "auth", ts.auth()), nil, nil)
		if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
			t.Fatalf("want the 401, got %v", err)
		}
		if calls.Load() != 2 || ts.issued.Load() != 2 {
			t.Errorf("%d requests with %d tokens; want one retry: 2 and 2", calls.Load(), ts.issued.Load())
		}
	})

	t.Run("wrong client credentials fail Open", func(t *testing.T) {
		ts := newTokenServer(t, 60)
		auth := ts.auth()
		auth["config"].(map[string]any)["client_secret"] = "wrong-secret-123"
		_, err := drain(context.Background(), newSrc(t, "base_url", "http://127.0.0.1:1", "auth", auth), nil, nil)
		if err == nil || !strings.Contains(err.Error(), "oauth2") || !strings.Contains(err.Error(), "401") {
			t.Fatalf("want the token endpoint's 401, got %v", err)
		}
		if strings.Contains(err.Error(), "wrong-secret-123") {
			t.Errorf("the error shows the client secret: %v", err)
		}
	})
}
