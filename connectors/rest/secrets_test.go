package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echo answers status with a body quoting everything the request carried:
// its URL and every header (as a careless API's error page does).
func echo(status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		fmt.Fprintf(&b, "url=%s", r.URL.String())
		for k, vs := range r.Header {
			fmt.Fprintf(&b, " %s=%s", k, strings.Join(vs, ","))
		}
		http.Error(w, b.String(), status)
	}
}

// TestSecretsNeverPrint fails requests in every way that could show a
// credential (a status error quoting the request, retries logging it, a
// transport error naming the URL, an oauth2 token in a body) and checks
// that neither the error nor the log holds one.
func TestSecretsNeverPrint(t *testing.T) {
	secrets := []string{"QKEY-123456", "HDR-SECRET-789", "QP-TOKEN-555", "BEARER-TOK-42", "pass-word-99", "app-secret-xyz", "at-1"}
	base := func(srv string) []any {
		return []any{"base_url", srv, "max_retries", 1, "retry_backoff", 0.001,
			"headers", map[string]any{"X-Api-Token": "HDR-SECRET-789"},
			"query_params", map[string]any{"access_token": "QP-TOKEN-555", "q": "visible"}}
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		url     string // instead of the test server
		auth    func(t *testing.T) map[string]any
	}{{
		name:    "api_key_query in a 500 after retries",
		handler: echo(http.StatusInternalServerError),
		auth: func(*testing.T) map[string]any {
			return map[string]any{"type": "api_key_query", "config": map[string]any{"param": "key", "value": "QKEY-123456"}}
		},
	}, {
		name:    "bearer in a 400",
		handler: echo(http.StatusBadRequest),
		auth: func(*testing.T) map[string]any {
			return map[string]any{"type": "bearer", "config": map[string]any{"token": "BEARER-TOK-42"}}
		},
	}, {
		name:    "basic password in a 403",
		handler: echo(http.StatusForbidden),
		auth: func(*testing.T) map[string]any {
			return map[string]any{"type": "basic", "config": map[string]any{"username": "ann", "password": "pass-word-99"}}
		},
	}, {
		name:    "oauth2 token in a 502",
		handler: echo(http.StatusBadGateway),
		auth:    func(t *testing.T) map[string]any { return newTokenServer(t, 3600).auth() },
	}, {
		name: "api key in a transport error",
		url:  closed.URL,
		auth: func(*testing.T) map[string]any {
			return map[string]any{"type": "api_key_query", "config": map[string]any{"param": "key", "value": "QKEY-123456"}}
		},
	}, {
		name: "password in the base_url",
		url:  "http://ann:pass-word-99@" + strings.TrimPrefix(closed.URL, "http://"),
		auth: func(*testing.T) map[string]any { return map[string]any{"type": "none"} },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			u := tc.url
			if u == "" {
				srv := httptest.NewServer(tc.handler)
				defer srv.Close()
				u = srv.URL
			}
			var log logBuf
			_, err := drain(context.Background(), newSrc(t, append(base(u), "auth", tc.auth(t))...), nil, &log)
			if err == nil {
				t.Fatal("want an error")
			}
			text := err.Error() + "\n" + log.String()
			for _, s := range secrets {
				if strings.Contains(text, s) {
					t.Errorf("%q printed:\n%s", s, text)
				}
			}
			if !strings.Contains(err.Error(), "***") || !strings.Contains(err.Error(), "q=visible") {
				t.Errorf("the error should show the URL with its credentials masked: %v", err)
			}
		})
	}
}
