package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

type sseEvent struct{ event, data string }

// readSSE reads events until `end` (or n events when n > 0).
func readSSE(t *testing.T, res *http.Response, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(res.Body)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" {
				out = append(out, cur)
				if cur.event == "end" || (n > 0 && len(out) >= n) {
					return out
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != "" {
				cur.data += "\n"
			}
			cur.data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func (hn *harness) openSSE(id string) *http.Response {
	hn.t.Helper()
	req, _ := http.NewRequest("GET", hn.ts.URL+"/v1/runs/"+id+"/logs", nil)
	req.Header.Set("Authorization", "Bearer "+readTok)
	res, err := hn.ts.Client().Do(req)
	if err != nil {
		hn.t.Fatal(err)
	}
	return res
}

func TestLogsLiveAndStored(t *testing.T) {
	hn := newHarness(t)
	id := hn.submit(map[string]any{"config": slowPipeline(5)})["run_id"].(string)
	res := hn.openSSE(id)
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("sse: %d %v", res.StatusCode, res.Header)
	}
	evs := readSSE(t, res, 0)
	if len(evs) < 7 || evs[len(evs)-1] != (sseEvent{"end", "done"}) {
		t.Fatalf("events: %v", evs)
	}
	if !strings.Contains(evs[0].data, "INFO pipeline run starting") {
		t.Fatalf("first line: %q", evs[0].data)
	}
	pages := 0
	for _, e := range evs {
		if e.event == "log" && strings.Contains(e.data, "slow page") {
			pages++
		}
	}
	if pages != 5 {
		t.Fatalf("%d page lines: %v", pages, evs)
	}
	hn.wait(id)
	// a reader arriving after the end gets the replay then end
	res2 := hn.openSSE(id)
	evs2 := readSSE(t, res2, 0)
	res2.Body.Close()
	if len(evs2) != len(evs) {
		t.Fatalf("replay after end: %d events, want %d", len(evs2), len(evs))
	}
	// stored, jsonl
	r := hn.do("GET", "/v1/runs/"+id+"/logs?format=jsonl", readTok, nil)
	if r.code != 200 || r.header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("jsonl: %d %v", r.code, r.header)
	}
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	if len(lines) != len(evs)-1 {
		t.Fatalf("jsonl lines %d, want %d: %s", len(lines), len(evs)-1, r.body)
	}
	var l history.RunLogLine
	if err := json.Unmarshal([]byte(lines[1]), &l); err != nil || l.Seq != 1 || l.Level != "INFO" || l.TS == "" {
		t.Fatalf("jsonl line: %v %+v", err, l)
	}
	r = hn.do("GET", "/v1/runs/"+id+"/logs?format=jsonl&after=2&limit=2", readTok, nil)
	if got := strings.Split(strings.TrimSpace(string(r.body)), "\n"); len(got) != 2 || !strings.Contains(got[0], `"seq":3`) {
		t.Fatalf("after/limit: %s", r.body)
	}
	r = hn.do("GET", "/v1/runs/"+id+"/logs?format=text", readTok, nil)
	if r.code != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") ||
		!strings.HasPrefix(string(r.body), "INFO pipeline run starting") {
		t.Fatalf("text: %d %s", r.code, r.body)
	}
	for q, code := range map[string]int{"format=xml": 400, "format=jsonl&after=x": 400, "format=jsonl&limit=y": 400} {
		if r := hn.do("GET", "/v1/runs/"+id+"/logs?"+q, readTok, nil); r.code != code || r.errCode(t) != CodeBadRequest {
			t.Fatalf("%s: %d %s", q, r.code, r.body)
		}
	}
	for _, q := range []string{"", "?format=jsonl", "?format=text"} {
		if r := hn.do("GET", "/v1/runs/nope/logs"+q, readTok, nil); r.code != 404 || r.errCode(t) != CodeNotFound {
			t.Fatalf("unknown run %q: %d", q, r.code)
		}
	}
}

func TestLogsKnownRunWithoutBuffer(t *testing.T) {
	hn := newHarness(t)
	rec := history.NewQueuedRun("old-run", nil, nil, nil, time.Now())
	rec.Status = history.StatusCompleted
	if err := hn.h.Upsert(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	res := hn.openSSE("old-run")
	defer res.Body.Close()
	if evs := readSSE(t, res, 0); len(evs) != 1 || evs[0].event != "end" {
		t.Fatalf("events: %v", evs)
	}
}

func TestLogsPerRunCap(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.LogMaxLinesPerRun = 3 })
	id := hn.submit(map[string]any{"config": slowPipeline(5)})["run_id"].(string)
	hn.wait(id)
	r := hn.do("GET", "/v1/runs/"+id+"/logs?format=jsonl", readTok, nil)
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	if len(lines) != 4 || lines[3] != `{"truncated":true}` {
		t.Fatalf("capped jsonl: %s", r.body)
	}
	r = hn.do("GET", "/v1/runs/"+id+"/logs?format=text", readTok, nil)
	if !strings.Contains(string(r.body), "truncated: per-run cap reached") {
		t.Fatalf("capped text: %s", r.body)
	}
	m := hn.do("GET", "/metrics", "", nil)
	if !strings.Contains(string(m.body), `faucet_serve_run_logs_dropped_total{reason="per_run_cap"} 1`) {
		t.Fatalf("cap metric missing")
	}
}

// A client that hangs up mid-stream leaks nothing (goleak in TestMain).
func TestLogsClientDisconnects(t *testing.T) {
	hn := newHarness(t)
	id := hn.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	res := hn.openSSE(id)
	if evs := readSSE(t, res, 2); len(evs) != 2 {
		t.Fatalf("events: %v", evs)
	}
	res.Body.Close()
	hn.do("POST", "/v1/runs/"+id+"/cancel", writeTok, nil)
	hn.wait(id)
}

func TestMetrics(t *testing.T) {
	hn := newHarness(t)
	id := hn.submit(map[string]any{"config": slowPipeline(1)})["run_id"].(string)
	hn.wait(id)
	// A client sees the terminal status once it is written; the run's
	// duration and its slot follow right after.
	for deadline := time.Now().Add(10 * time.Second); hn.s.runner.InFlight() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run never left its slot")
		}
	}
	hn.do("GET", "/v1/nope", "", nil)
	r := hn.do("GET", "/metrics", "", nil)
	body := string(r.body)
	for _, want := range []string{
		`faucet_serve_requests_total{method="GET",path="/v1/runs/{id}",status="200"}`,
		`faucet_serve_requests_total{method="POST",path="/v1/runs",status="202"} 1`,
		`faucet_serve_requests_total{method="GET",path="<unmatched>",status="404"} 1`,
		`faucet_serve_request_duration_seconds_bucket{method="GET",path="/v1/runs/{id}"`,
		`faucet_serve_runs_total{reason="ok",status="completed"} 1`,
		`faucet_serve_runs_submitted_total 1`,
		`faucet_serve_runs_queued 0`,
		`faucet_serve_runs_in_flight 0`,
		`faucet_serve_history_degraded 0`,
		`faucet_serve_run_duration_seconds_count{status="completed"} 1`,
		`faucet_serve_idempotency_hits_total 0`,
		`faucet_serve_run_log_lines_total`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestLogRingEvictsAndReportsLag(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.LogRetention = -1 })
	for i := 0; i < LogRingLines+5; i++ {
		hn.s.logs.append("ring-run", "INFO", "line")
	}
	rl := hn.s.logs.get("ring-run")
	lines, dropped, ended, _ := rl.since(0)
	if dropped != 5 || len(lines) != LogRingLines || lines[0].Seq != 5 || ended {
		t.Fatalf("dropped %d, %d lines, first %d", dropped, len(lines), lines[0].Seq)
	}
	_, dropped, _, notify := rl.since(uint64(LogRingLines + 5))
	if dropped != 0 {
		t.Fatal("caught-up reader told it lagged")
	}
	hn.s.logs.finish("ring-run")
	select {
	case <-notify:
	default:
		t.Fatal("finish did not wake readers")
	}
	if _, _, ended, _ := rl.since(0); !ended {
		t.Fatal("not ended")
	}
}

func TestLogsKeepAlive(t *testing.T) {
	old := KeepAlive
	KeepAlive = 30 * time.Millisecond
	t.Cleanup(func() { KeepAlive = old })
	hn := newHarness(t)
	// a queued run that has not logged yet is followed, not ended at once
	id := hn.submit(map[string]any{"config": "version: 1\npipeline:\n  source:\n    type: slow\n    config: {pages: 1, delay_ms: 400}\n  sink:\n    type: stdout\n"})["run_id"].(string)
	res := hn.openSSE(id)
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	keepAlives, ended := 0, false
	for sc.Scan() {
		line := sc.Text()
		if line == ": keep-alive" {
			keepAlives++
		}
		if line == "event: end" {
			ended = true
			break
		}
	}
	if keepAlives == 0 || !ended {
		t.Fatalf("keep-alives %d, ended %v", keepAlives, ended)
	}
}
