package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The http service's rules: pages by path and query, the bearer check,
// 404 for a page that does not exist, recorded bodies and the 400 for a
// body containing "reject".
func TestGoldenAPI(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"bearer.txt":           "tok\n",
		"items.json":           `{"page":1}`,
		"items@cursor=c2.json": `{"page":2}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := newGoldenAPI(t, dir)
	do := func(method, path, auth, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	for _, tc := range []struct {
		method, path, auth, body string
		code                     int
		resp                     string
	}{
		{"GET", "/items", "Bearer tok", "", 200, `{"page":1}`},
		{"GET", "/items?cursor=c2", "Bearer tok", "", 200, `{"page":2}`},
		{"GET", "/items?cursor=c9", "Bearer tok", "", 404, `{"error":"no such page: items@cursor=c9"}`},
		{"GET", "/../bearer", "Bearer tok", "", 404, `{"error":"no such page: bearer"}`},
		{"GET", "/items", "Bearer nope", "", 401, `{"error":"unauthorized"}`},
		{"GET", "/items", "", "", 401, `{"error":"unauthorized"}`},
		{"POST", "/in", "Bearer tok", `[{"a": 1}, {"b": 2}]`, 200, ""},
		{"POST", "/in", "Bearer tok", `{"kind": "reject"}`, 400, `{"error":"record rejected"}`},
		{"PUT", "/in", "Bearer tok", `not json`, 200, ""},
	} {
		code, resp := do(tc.method, tc.path, tc.auth, tc.body)
		if code != tc.code || resp != tc.resp {
			t.Errorf("%s %s (%s): %d %s, want %d %s", tc.method, tc.path, tc.auth, code, resp, tc.code, tc.resp)
		}
	}
	if got, want := string(a.received()), "[{\"a\":1},{\"b\":2}]\nnot json\n"; got != want {
		t.Errorf("received %q, want %q", got, want)
	}
}

func TestBrokerPrefix(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		want string
	}{
		{"redis-stream-to-jsonl", 42, "fg_redis_stream_to_jsonl_42"},
		{"Nats JetStream.x", 7, "fg_nats_jetstream_x_7"},
	} {
		if got := brokerPrefix(tc.name, tc.pid); got != tc.want {
			t.Errorf("brokerPrefix(%q, %d) = %q, want %q", tc.name, tc.pid, got, tc.want)
		}
	}
}
