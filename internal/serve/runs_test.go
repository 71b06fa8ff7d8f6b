package serve

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func TestSubmitCompletes(t *testing.T) {
	hn := newHarness(t)
	cfg, out := hn.csvPipeline("basic", 5)
	m := hn.submit(map[string]any{"config": cfg, "name": "nightly", "labels": map[string]string{"team": "data"}})
	if m["status"] != "queued" || m["run_id"] == "" || m["submitted_at"] == nil || len(m) != 3 {
		t.Fatalf("202 body: %v", m)
	}
	rec := hn.wait(m["run_id"].(string))
	if rec["status"] != "completed" || rec["records_written"] != float64(5) || rec["started_at"] == nil ||
		rec["finished_at"] == nil || rec["elapsed_secs"] == nil || rec["error"] != nil || rec["name"] != "nightly" {
		t.Fatalf("record: %v", rec)
	}
	invs := rec["invocations"].([]any)
	if len(invs) != 1 || invs[0].(map[string]any)["records_written"] != float64(5) {
		t.Fatalf("invocations: %v", invs)
	}
	data, err := os.ReadFile(out)
	if err != nil || strings.Count(string(data), "\n") != 5 {
		t.Fatalf("output: %v %q", err, data)
	}
}

func TestSubmitJSONConfigAndParams(t *testing.T) {
	hn := newHarness(t)
	cfg, _ := hn.csvPipeline("p", 2)
	_ = cfg
	body := `{"version":1,"name":"j","params":{"n":{"type":"int","default":3}},"pipeline":{"source":{"type":"slow","config":{"pages":"${param.n}","delay_ms":1}},"sink":{"type":"stdout"}}}`
	m := hn.submit(map[string]any{"config": body, "config_format": "json", "params": map[string]any{"n": 2}})
	rec := hn.wait(m["run_id"].(string))
	if rec["status"] != "completed" || rec["records_written"] != float64(2) {
		t.Fatalf("record: %v", rec)
	}
}

func TestSubmitErrors(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.BodyLimitBytes = 4096 })
	cases := []struct {
		name string
		body any
		code int
		want string
	}{
		{"malformed json", `{"config": `, 400, CodeBadRequest},
		{"empty body", ``, 400, CodeBadRequest},
		{"unknown field", map[string]any{"config": "x", "bogus": 1}, 422, CodeUnprocessable},
		{"wrong type", map[string]any{"config": 5}, 422, CodeUnprocessable},
		{"missing config", map[string]any{"name": "x"}, 422, CodeUnprocessable},
		{"bad format", map[string]any{"config": "a: 1", "config_format": "toml"}, 400, CodeBadConfig},
		{"yaml syntax", map[string]any{"config": "a: [1,"}, 400, CodeBadConfig},
		{"json syntax", map[string]any{"config": "{", "config_format": "json"}, 400, CodeBadConfig},
		{"not a mapping", map[string]any{"config": "- 1"}, 400, CodeBadConfig},
		{"schedule", map[string]any{"config": "version: 1\nschedule: x\n"}, 400, CodeBadConfig},
		{"zero timeout", map[string]any{"config": slowPipeline(1), "timeout_secs": 0}, 422, CodeUnprocessable},
		{"oversize", map[string]any{"config": strings.Repeat("x", 5000)}, 413, CodePayloadTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := hn.do("POST", "/v1/runs", writeTok, c.body)
			if r.code != c.code {
				t.Fatalf("status %d, want %d: %s", r.code, c.code, r.body)
			}
			if got := r.errCode(t); got != c.want {
				t.Fatalf("code %q, want %q", got, c.want)
			}
		})
	}
}

func TestSubmitInvalidPipelineHasPositions(t *testing.T) {
	hn := newHarness(t)
	cfg := "version: 1\npipeline:\n  source:\n    type: csv\n    config: {path: x.csv, bogus: 1}\n  sink:\n    type: nope\n"
	r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": cfg})
	if r.code != 422 || r.errCode(t) != CodeUnprocessable {
		t.Fatalf("%d %s", r.code, r.body)
	}
	errs := r.json(t)["error"].(map[string]any)["details"].(map[string]any)["errors"].([]any)
	if len(errs) == 0 {
		t.Fatalf("no details: %s", r.body)
	}
	for _, e := range errs {
		m := e.(map[string]any)
		if m["line"] == nil || m["column"] == nil || m["message"] == "" {
			t.Fatalf("error without position: %v (%s)", m, r.body)
		}
	}
}

func TestGetListDeleteCancel(t *testing.T) {
	hn := newHarness(t)
	cfg, _ := hn.csvPipeline("a", 1)
	var ids []string
	for i := 0; i < 3; i++ {
		m := hn.submit(map[string]any{"config": cfg, "name": "n" + string(rune('0'+i%2))})
		ids = append(ids, m["run_id"].(string))
		hn.wait(ids[i])
	}
	// list newest first, paging by cursor
	r := hn.do("GET", "/v1/runs?limit=2", readTok, nil)
	m := r.json(t)
	runs := m["runs"].([]any)
	if r.code != 200 || len(runs) != 2 || runs[0].(map[string]any)["run_id"] != ids[2] || m["next_cursor"] != ids[1] {
		t.Fatalf("page 1: %s", r.body)
	}
	r = hn.do("GET", "/v1/runs?limit=2&cursor="+ids[1], readTok, nil)
	m = r.json(t)
	if len(m["runs"].([]any)) != 1 || m["next_cursor"] != nil {
		t.Fatalf("page 2: %s", r.body)
	}
	// unknown cursor restarts from the top
	r = hn.do("GET", "/v1/runs?cursor=nope", readTok, nil)
	if len(r.json(t)["runs"].([]any)) != 3 {
		t.Fatalf("unknown cursor: %s", r.body)
	}
	r = hn.do("GET", "/v1/runs?name=n0&status=completed,failed", readTok, nil)
	if len(r.json(t)["runs"].([]any)) != 2 {
		t.Fatalf("filter: %s", r.body)
	}
	now := time.Now().UTC().Add(time.Minute).Format(time.RFC3339)
	r = hn.do("GET", "/v1/runs?since="+now, readTok, nil)
	if len(r.json(t)["runs"].([]any)) != 0 {
		t.Fatalf("since: %s", r.body)
	}
	for _, q := range []string{"status=bogus", "since=yesterday", "until=x", "limit=abc"} {
		r = hn.do("GET", "/v1/runs?"+q, readTok, nil)
		if r.code != 400 || r.errCode(t) != CodeBadRequest {
			t.Fatalf("%s: %d %s", q, r.code, r.body)
		}
	}
	// get / 404
	if r = hn.do("GET", "/v1/runs/"+ids[0], readTok, nil); r.code != 200 {
		t.Fatalf("get: %d", r.code)
	}
	if r = hn.do("GET", "/v1/runs/nope", readTok, nil); r.code != 404 || r.errCode(t) != CodeNotFound {
		t.Fatalf("get unknown: %d %s", r.code, r.body)
	}
	// cancel terminal → 200; unknown → 404
	if r = hn.do("POST", "/v1/runs/"+ids[0]+"/cancel", writeTok, nil); r.code != 200 || r.json(t)["status"] != "completed" {
		t.Fatalf("cancel terminal: %d %s", r.code, r.body)
	}
	if r = hn.do("POST", "/v1/runs/nope/cancel", writeTok, nil); r.code != 404 {
		t.Fatalf("cancel unknown: %d", r.code)
	}
	// delete → 204, then 404
	if r = hn.do("DELETE", "/v1/runs/"+ids[0], writeTok, nil); r.code != 204 {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	if r = hn.do("DELETE", "/v1/runs/"+ids[0], writeTok, nil); r.code != 404 {
		t.Fatalf("delete again: %d", r.code)
	}
}

func TestCancelRunningAndQueued(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.MaxConcurrentRuns = 1 })
	running := hn.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	queued := hn.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	hn.waitStatus(running, history.StatusRunning)
	// in flight → DELETE 409
	for _, id := range []string{running, queued} {
		if r := hn.do("DELETE", "/v1/runs/"+id, writeTok, nil); r.code != 409 || r.errCode(t) != CodeConflict {
			t.Fatalf("delete in flight: %d %s", r.code, r.body)
		}
	}
	if r := hn.do("POST", "/v1/runs/"+queued+"/cancel", writeTok, nil); r.code != 202 {
		t.Fatalf("cancel queued: %d %s", r.code, r.body)
	}
	rec := hn.wait(queued)
	if rec["status"] != "cancelled" || rec["started_at"] != nil {
		t.Fatalf("queued cancel: %v", rec)
	}
	if r := hn.do("POST", "/v1/runs/"+running+"/cancel", writeTok, nil); r.code != 202 {
		t.Fatalf("cancel running: %d %s", r.code, r.body)
	}
	rec = hn.wait(running)
	if rec["status"] != "cancelled" || rec["started_at"] == nil {
		t.Fatalf("running cancel: %v", rec)
	}
	if r := hn.do("DELETE", "/v1/runs/"+running, writeTok, nil); r.code != 204 {
		t.Fatalf("delete after cancel: %d %s", r.code, r.body)
	}
}

// TestQueuedRunsStartInSubmissionOrder: with one slot, runs accepted one
// after another start one after another in that order, however their
// goroutines happen to be scheduled.
func TestQueuedRunsStartInSubmissionOrder(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.MaxConcurrentRuns = 1; c.MaxQueuedRuns = 8 })
	var ids []string
	for range 8 {
		ids = append(ids, hn.submit(map[string]any{"config": slowPipeline(1)})["run_id"].(string))
	}
	var prev time.Time
	for i, id := range ids {
		rec := hn.wait(id)
		started, err := time.Parse(time.RFC3339Nano, rec["started_at"].(string))
		if err != nil || rec["status"] != "completed" {
			t.Fatalf("run %d: %v (%v)", i, rec, err)
		}
		if !started.After(prev) {
			t.Fatalf("run %d started at %s, not after run %d (%s)", i, started, i-1, prev)
		}
		prev = started
	}
}

func TestQueueFull(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.MaxConcurrentRuns = 1; c.MaxQueuedRuns = 1 })
	a := hn.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	hn.waitStatus(a, history.StatusRunning)
	b := hn.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": slowPipeline(0)})
	if r.code != http.StatusTooManyRequests || r.errCode(t) != CodeQueueFull || r.header.Get("Retry-After") != "5" {
		t.Fatalf("queue full: %d %v %s", r.code, r.header, r.body)
	}
	if r := hn.do("GET", "/readyz", "", nil); r.code != 503 || r.json(t)["queue_ok"] != false {
		t.Fatalf("readyz when full: %d %s", r.code, r.body)
	}
	hn.do("POST", "/v1/runs/"+a+"/cancel", writeTok, nil)
	hn.do("POST", "/v1/runs/"+b+"/cancel", writeTok, nil)
	hn.wait(a)
	hn.wait(b)
}

func TestTimeoutAndFailure(t *testing.T) {
	hn := newHarness(t)
	m := hn.submit(map[string]any{"config": slowPipeline(0), "timeout_secs": 1})
	rec := hn.wait(m["run_id"].(string))
	if rec["status"] != "failed" || !strings.Contains(rec["error"].(string), "timeout_secs (1s)") {
		t.Fatalf("timeout: %v", rec)
	}
	cfg := "version: 1\npipeline:\n  source:\n    type: csv\n    config: {path: " + hn.dir + "/missing.csv}\n  sink:\n    type: jsonl\n    config: {path: /dev/null}\n"
	rec = hn.wait(hn.submit(map[string]any{"config": cfg})["run_id"].(string))
	if rec["status"] != "failed" || rec["error"] != "1 invocation(s) failed" ||
		rec["invocations"].([]any)[0].(map[string]any)["error"] == nil {
		t.Fatalf("failure: %v", rec)
	}
	// a malformed clock is accepted and fails the run
	rec = hn.wait(hn.submit(map[string]any{"config": slowPipeline(1), "clock": "yesterday"})["run_id"].(string))
	if rec["status"] != "failed" || !strings.Contains(rec["error"].(string), "not RFC3339") {
		t.Fatalf("clock: %v", rec)
	}
}

func TestShutdownFailsLeftoverRuns(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.MaxConcurrentRuns = 1; c.ShutdownGrace = 100 * time.Millisecond })
	a := hn.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	b := hn.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	hn.waitStatus(a, history.StatusRunning)
	hn.close()
	hn.t.Cleanup(func() {})
	for _, id := range []string{a, b} {
		rec, err := hn.h.Get(t.Context(), id)
		if err != nil || rec == nil || rec.Status != history.StatusFailed || rec.Error == nil ||
			*rec.Error != "server shutdown before the run finished" {
			t.Fatalf("run %s after shutdown: %+v %v", id, rec, err)
		}
	}
}

func TestSecretsRedacted(t *testing.T) {
	t.Setenv("FAUCET_TEST_SECRET_VALUE", "s3cr3t-path-component")
	t.Setenv("FAUCET_SERVE_AUTH_TOKEN", "server-token-never-readable")
	hn := newHarness(t)
	cfg := "version: 1\npipeline:\n  source:\n    type: csv\n    config: {path: \"/nonexistent/${env:FAUCET_TEST_SECRET_VALUE}/in.csv\"}\n  sink:\n    type: stdout\n"
	id := hn.submit(map[string]any{"config": cfg})["run_id"].(string)
	rec := hn.wait(id)
	for _, r := range []resp{
		hn.do("GET", "/v1/runs/"+id, readTok, nil),
		hn.do("GET", "/v1/runs", readTok, nil),
		hn.do("GET", "/v1/runs/"+id+"/logs?format=text", readTok, nil),
	} {
		if strings.Contains(string(r.body), "s3cr3t-path-component") {
			t.Fatalf("secret leaked: %s", r.body)
		}
	}
	if rec["status"] != "failed" {
		t.Fatalf("%v", rec)
	}
	// the server's own credentials cannot be interpolated
	bad := "version: 1\npipeline:\n  source:\n    type: csv\n    config: {path: \"${env:FAUCET_SERVE_AUTH_TOKEN}\"}\n  sink:\n    type: stdout\n"
	r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": bad})
	if r.code != 422 || strings.Contains(string(r.body), "server-token-never-readable") {
		t.Fatalf("server token: %d %s", r.code, r.body)
	}
}
