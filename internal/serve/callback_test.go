package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

type receiver struct {
	mu     sync.Mutex
	bodies []map[string]any
	hdrs   []http.Header
	codes  []int // answered in turn; 200 after
	ts     *httptest.Server
}

func newReceiver(t *testing.T, codes ...int) *receiver {
	rc := &receiver{codes: codes}
	rc.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		json.Unmarshal(b, &m)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, m)
		rc.hdrs = append(rc.hdrs, r.Header.Clone())
		code := 200
		if len(rc.codes) > 0 {
			code, rc.codes = rc.codes[0], rc.codes[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(rc.ts.Close)
	return rc
}

func (rc *receiver) waitN(t *testing.T, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		got := append([]map[string]any(nil), rc.bodies...)
		rc.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("callback not delivered %d times", n)
	return nil
}

func TestCallbackDelivery(t *testing.T) {
	hn := newHarness(t)
	rc := newReceiver(t, 500) // first attempt fails, the retry succeeds
	id := hn.submit(map[string]any{"config": slowPipeline(1), "name": "cb", "callback": map[string]any{
		"url": rc.ts.URL + "/hook", "headers": map[string]string{"X-Hook-Secret": "hook-secret-value"},
		"extra_fields": map[string]any{"env": "prod"}, "on": []string{"completed"}}})["run_id"].(string)
	hn.wait(id)
	got := rc.waitN(t, 2)
	b := got[1]
	if b["event"] != "run.completed" || b["run_id"] != id || b["status"] != "completed" || b["env"] != "prod" ||
		b["records_written"] != float64(1) || b["name"] != "cb" {
		t.Fatalf("callback body: %v", b)
	}
	if rc.hdrs[1].Get("X-Hook-Secret") != "hook-secret-value" {
		t.Fatal("callback header not sent")
	}
	rec := hn.do("GET", "/v1/runs/"+id, readTok, nil).json(t)
	if h := rec["callback"].(map[string]any)["headers"].(map[string]any)["X-Hook-Secret"]; h != "***" {
		t.Fatalf("callback header not masked: %v", h)
	}
	// `on` filters; a 4xx is not retried
	rc2 := newReceiver(t, 404, 404)
	hn.wait(hn.submit(map[string]any{"config": slowPipeline(1), "callback": map[string]any{"url": rc2.ts.URL, "on": []string{"failed"}}})["run_id"].(string))
	hn.wait(hn.submit(map[string]any{"config": slowPipeline(1), "callback": map[string]any{"url": rc2.ts.URL}})["run_id"].(string))
	rc2.waitN(t, 1)
	time.Sleep(600 * time.Millisecond)
	rc2.mu.Lock()
	n := len(rc2.bodies)
	rc2.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d deliveries, want 1", n)
	}
}

func TestCallbackValidation(t *testing.T) {
	hn := newHarness(t)
	for name, cb := range map[string]any{
		"no url":          map[string]any{"url": ""},
		"scheme":          map[string]any{"url": "ftp://example.com/x"},
		"no host":         map[string]any{"url": "http:///x"},
		"metadata":        map[string]any{"url": "http://metadata.google.internal/computeMetadata"},
		"link-local":      map[string]any{"url": "http://169.254.169.254/latest"},
		"link-local v6":   map[string]any{"url": "http://[fe80::1]/x"},
		"reserved extra":  map[string]any{"url": "http://example.com", "extra_fields": map[string]any{"status": 1}},
		"non-terminal on": map[string]any{"url": "http://example.com", "on": []string{"running"}},
		"bad method":      map[string]any{"url": "http://example.com", "method": "PO ST"},
		"unknown field":   map[string]any{"url": "http://example.com", "bogus": true},
	} {
		r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": slowPipeline(1), "callback": cb})
		if r.code != 422 || r.errCode(t) != CodeUnprocessable {
			t.Errorf("%s: %d %s", name, r.code, r.body)
		}
	}
	allow := newHarness(t, func(c *Config) { c.CallbackAllowHosts = []string{"hooks.example.com"} })
	r := allow.do("POST", "/v1/runs", writeTok, map[string]any{"config": slowPipeline(1), "callback": map[string]any{"url": "http://other.example.com/x"}})
	if r.code != 422 {
		t.Fatalf("allow list: %d %s", r.code, r.body)
	}
}

func TestCORS(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.CORSOrigins = []string{"https://console.example.com"} })
	req, _ := http.NewRequest("OPTIONS", hn.ts.URL+"/v1/runs", nil)
	req.Header.Set("Origin", "https://console.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	res, err := hn.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "https://console.example.com" ||
		res.Header.Get("Access-Control-Allow-Headers") == "" {
		t.Fatalf("preflight: %d %v", res.StatusCode, res.Header)
	}
	req, _ = http.NewRequest("GET", hn.ts.URL+"/v1/runs", nil)
	req.Header.Set("Origin", "https://evil.example.com")
	req.Header.Set("Authorization", "Bearer "+readTok)
	res, _ = hn.ts.Client().Do(req)
	res.Body.Close()
	if res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("foreign origin allowed")
	}
	// off by default
	plain := newHarness(t)
	req, _ = http.NewRequest("GET", plain.ts.URL+"/healthz", nil)
	req.Header.Set("Origin", "https://console.example.com")
	res, _ = plain.ts.Client().Do(req)
	res.Body.Close()
	if res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("CORS on by default")
	}
}
