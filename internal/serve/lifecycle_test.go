package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/fallback"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// Runs left queued or running by a dead process are failed with the lease
// reason when a new server starts on the same database.
func TestOrphanRecoveryAtStart(t *testing.T) {
	ctx := context.Background()
	url := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	dead, err := sqlstore.OpenOptions(ctx, url, history.Options{InstanceID: "dead", LeaseTTL: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now().UTC()
	for _, st := range []history.RunStatus{history.StatusQueued, history.StatusRunning} {
		rec := history.NewQueuedRun("orphan-"+string(st), nil, nil, nil, started)
		rec.Status = st
		if st == history.StatusRunning {
			rec.StartedAt = &started
		}
		if err := dead.Upsert(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	done := history.NewQueuedRun("finished", nil, nil, nil, started)
	done.Status = history.StatusCompleted
	if err := dead.Upsert(ctx, done); err != nil {
		t.Fatal(err)
	}
	dead.Close()
	time.Sleep(100 * time.Millisecond)
	h, err := sqlstore.OpenOptions(ctx, url, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hn := newHarness(t, func(c *Config) { c.History = h })
	for _, st := range []string{"queued", "running"} {
		m := hn.do("GET", "/v1/runs/orphan-"+st, readTok, nil).json(t)
		if m["status"] != "failed" || m["error"] != history.OrphanLeaseExpiredError || m["finished_at"] == nil {
			t.Fatalf("orphan %s: %v", st, m)
		}
	}
	if m := hn.do("GET", "/v1/runs/finished", readTok, nil).json(t); m["status"] != "completed" {
		t.Fatalf("terminal run touched: %v", m)
	}
	// new submissions work
	hn.wait(hn.submit(map[string]any{"config": slowPipeline(1)})["run_id"].(string))
}

func TestDefaultConfigMergeAndReload(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("a\n1\n2\n"), 0o644)
	base := filepath.Join(dir, "defaults.yaml")
	os.WriteFile(base, []byte("version: 1\npipeline:\n  sink:\n    type: jsonl\n    config: {path: "+out+"}\n"), 0o644)
	hn := newHarness(t, func(c *Config) { c.DefaultConfigPath = base })
	cfg := "pipeline:\n  source:\n    type: csv\n    config: {path: " + in + "}\n"
	rec := hn.wait(hn.submit(map[string]any{"config": cfg})["run_id"].(string))
	if rec["status"] != "completed" || rec["records_written"] != float64(2) {
		t.Fatalf("merged run: %v", rec)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") != 2 {
		t.Fatalf("output %q", b)
	}
	// reload: invalid keeps the previous base
	os.WriteFile(base, []byte("- not a mapping\n"), 0o644)
	r := hn.do("POST", "/v1/reload", adminTok, nil)
	if r.code != 422 || r.errCode(t) != CodeUnprocessable {
		t.Fatalf("bad reload: %d %s", r.code, r.body)
	}
	out2 := filepath.Join(dir, "out2.jsonl")
	os.WriteFile(base, []byte("version: 1\npipeline:\n  sink:\n    type: jsonl\n    config: {path: "+out2+"}\n"), 0o644)
	r = hn.do("POST", "/v1/reload", adminTok, nil)
	if m := r.json(t); r.code != 200 || m["reloaded"] != true {
		t.Fatalf("reload: %d %s", r.code, r.body)
	}
	hn.wait(hn.submit(map[string]any{"config": cfg})["run_id"].(string))
	if _, err := os.Stat(out2); err != nil {
		t.Fatalf("reloaded base not used: %v", err)
	}
	actions := map[string]int{}
	for _, e := range hn.do("GET", "/v1/audit?principal=admin", adminTok, nil).json(t)["entries"].([]any) {
		m := e.(map[string]any)
		actions[m["action"].(string)+"/"+m["result"].(string)]++
	}
	if actions["config.reload/ok"] != 1 || actions["config.reload/rejected"] != 1 {
		t.Fatalf("reload audits: %v", actions)
	}
}

func TestReloadWithoutDefaultConfig(t *testing.T) {
	hn := newHarness(t)
	r := hn.do("POST", "/v1/reload", adminTok, nil)
	if m := r.json(t); r.code != 200 || m["reloaded"] != false {
		t.Fatalf("%d %s", r.code, r.body)
	}
}

// A degraded history refuses idempotent submissions with 503 and reports
// not ready.
func TestDegradedHistory(t *testing.T) {
	dir := t.TempDir()
	connect := func(ctx context.Context) (history.RunHistory, error) {
		return nil, history.Unreachable("no database", nil)
	}
	h := fallback.DegradedAtStartup(connect, history.Options{}, "sqlite")
	_ = dir
	hn := newHarness(t, func(c *Config) { c.History = h })
	r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": slowPipeline(1), "idempotency_key": "x"})
	if r.code != 503 || r.errCode(t) != CodeUnavailable {
		t.Fatalf("degraded idempotent submit: %d %s", r.code, r.body)
	}
	if r := hn.do("GET", "/readyz", "", nil); r.code != 503 || r.json(t)["history_ok"] != false {
		t.Fatalf("readyz: %d %s", r.code, r.body)
	}
	// without a key the run goes to memory
	hn.wait(hn.submit(map[string]any{"config": slowPipeline(1)})["run_id"].(string))
	if r := hn.do("GET", "/metrics", "", nil); !strings.Contains(string(r.body), "faucet_serve_history_degraded 1") {
		t.Fatal("degraded gauge")
	}
	// the queue slot of the refused submit was released
	if q := hn.s.Runner().Queued(); q != 0 {
		t.Fatalf("queued %d", q)
	}
}

func TestSubmitWhileShuttingDown(t *testing.T) {
	hn := newHarness(t)
	hn.s.runner.mu.Lock()
	hn.s.runner.closing = true
	hn.s.runner.mu.Unlock()
	r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": slowPipeline(1)})
	if r.code != 503 || r.errCode(t) != CodeUnavailable {
		t.Fatalf("%d %s", r.code, r.body)
	}
}

func TestMaintenancePurges(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.RetainTerminal = 200 * time.Millisecond; c.LogRetention = 200 * time.Millisecond })
	id := hn.submit(map[string]any{"config": slowPipeline(1)})["run_id"].(string)
	hn.wait(id)
	if r := hn.do("GET", "/v1/runs/"+id+"/logs?format=jsonl", readTok, nil); len(r.body) == 0 {
		t.Fatal("no logs before purge")
	}
	time.Sleep(300 * time.Millisecond)
	hn.s.maintenanceTick(context.Background())
	if r := hn.do("GET", "/v1/runs/"+id, readTok, nil); r.code != 404 {
		t.Fatalf("run not purged: %d", r.code)
	}
	page, err := hn.h.ListRunLogs(context.Background(), id, nil, 100)
	if err != nil || len(page.Lines) != 0 {
		t.Fatalf("logs not purged: %v %d", err, len(page.Lines))
	}
	if m := hn.do("GET", "/metrics", "", nil); !strings.Contains(string(m.body), "faucet_serve_run_logs_purged_total") {
		t.Fatal("purge metric")
	}
}

func TestCallbackDialGuard(t *testing.T) {
	hn := newHarness(t)
	res, err := hn.s.callbacks.Get("http://169.254.0.1:9/")
	if err == nil {
		res.Body.Close()
		t.Fatal("link-local dial allowed")
	}
	if !strings.Contains(err.Error(), "link-local") {
		t.Fatalf("error: %v", err)
	}
}
