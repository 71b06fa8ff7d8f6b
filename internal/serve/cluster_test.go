package serve

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// Cluster mode in process (two servers on one Postgres schema), so the
// server's cluster paths run under the race detector. The real-process
// proof (kill, pause, database loss) is internal/cluster/clustertest.

func newClusterServer(t *testing.T, url, id string, capacity int, env map[string]string) *harness {
	t.Helper()
	st, err := sqlstore.OpenOptions(context.Background(), url, history.Options{InstanceID: id, LeaseTTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, func(c *Config) {
		c.History = st
		c.LeaseTTL = 3 * time.Second
		c.MaxConcurrentRuns, c.MaxQueuedRuns = capacity, 8
		c.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		c.Cluster = &ClusterConfig{InstanceID: id, Listen: id + ":8080", PollInterval: 50 * time.Millisecond, MaxAttempts: 3}
	})
}

func TestClusterModeSharesRunsAcrossServers(t *testing.T) {
	url := pgURL(t)
	a := newClusterServer(t, url, "member-a", 2, nil)
	b := newClusterServer(t, url, "member-b", 2, nil)
	cfg, _ := a.csvPipeline("shared", 3)
	ids := map[string]bool{}
	for i := 0; i < 12; i++ {
		to, other := a, b
		if i%2 == 1 {
			to, other = b, a
		}
		body := map[string]any{"config": cfg, "idempotency_key": fmt.Sprintf("k%d", i), "labels": map[string]string{"i": fmt.Sprint(i)}}
		got := to.submit(body)
		// Claimed at once by the receiving server when it has a free slot
		// (running), else stored for the claim loops (pending).
		if got["status"] != "pending" && got["status"] != "running" {
			t.Fatalf("a cluster submission answers pending or running, got %v", got)
		}
		if again := other.submit(body); again["run_id"] != got["run_id"] {
			t.Fatalf("replay on the other server: %v, want %v", again["run_id"], got["run_id"])
		}
		ids[got["run_id"].(string)] = true
	}
	for id := range ids {
		m := a.wait(id)
		if m["status"] != "completed" || m["records_written"] != 3.0 || m["config_body"] != cfg || m["attempt"] != 0.0 {
			t.Fatalf("run %s: %v", id, m)
		}
	}
	finished := 0.0
	for _, hn := range []*harness{a, b} {
		finished += counterValue(t, hn, "faucet_serve_runs_total")
	}
	if finished != float64(len(ids)) {
		t.Fatalf("%v terminal writes for %d runs", finished, len(ids))
	}
	r := a.do("GET", "/v1/cluster", readTok, nil)
	if r.code != 200 {
		t.Fatalf("GET /v1/cluster: %d %s", r.code, r.body)
	}
	v := r.json(t)
	if v["instance_id"] != "member-a" || len(v["instances"].([]any)) != 2 {
		t.Fatalf("GET /v1/cluster: %s", r.body)
	}
	rz := b.do("GET", "/readyz", "", nil).json(t)["cluster"].(map[string]any)
	if rz["enabled"] != true || rz["instances"] != 2.0 || len(rz["members"].([]any)) != 2 {
		t.Fatalf("readyz cluster: %v", rz)
	}
}

// TestClusterModeReloadsOnTheClaimingServer: the server that claims a run
// loads its stored config with its own environment; one that cannot fails
// the run with the reason. A cancel sent to the other server stops a run.
func TestClusterModeReloadsOnTheClaimingServer(t *testing.T) {
	url := pgURL(t)
	dir := t.TempDir()
	write := func(name string, rows int) string {
		p := filepath.Join(dir, name)
		data := "id\n"
		for i := 0; i < rows; i++ {
			data += fmt.Sprintf("%d\n", i)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := newClusterServer(t, url, "member-a", 1, map[string]string{"CL_IN": write("a.csv", 2), "CL_ONLY_A": write("only.csv", 1)})
	b := newClusterServer(t, url, "member-b", 1, map[string]string{"CL_IN": write("b.csv", 5)})

	busy := a.submit(map[string]any{"config": slowPipeline(0)})["run_id"].(string)
	waitOwner(t, a, busy, "member-a")

	// a has no free slot: b claims the next runs and loads them itself.
	envRun := a.submit(map[string]any{"config": "version: 1\npipeline:\n  source: {type: csv, config: {path: \"${env:CL_IN}\"}}\n  sink: {type: stdout}\n"})["run_id"].(string)
	if m := a.wait(envRun); m["status"] != "completed" || m["records_written"] != 5.0 {
		t.Fatalf("the run must read b's input (5 rows): %v", m)
	}
	missing := a.submit(map[string]any{"config": "version: 1\npipeline:\n  source: {type: csv, config: {path: \"${env:CL_ONLY_A}\"}}\n  sink: {type: stdout}\n"})["run_id"].(string)
	m := a.wait(missing)
	if msg, _ := m["error"].(string); m["status"] != "failed" || len(msg) < 30 || msg[:30] != "re-loading claimed config: inv" {
		t.Fatalf("a run the claimer cannot load: %v", m)
	}

	if r := b.do("POST", "/v1/runs/"+busy+"/cancel", writeTok, nil); r.code != http.StatusAccepted {
		t.Fatalf("cross-server cancel: %d %s", r.code, r.body)
	}
	if m := b.wait(busy); m["status"] != "cancelled" {
		t.Fatalf("cancelled run: %v", m)
	}
}

func TestClusterModeRefusesWhatItCannotStore(t *testing.T) {
	url := pgURL(t)
	a := newClusterServer(t, url, "member-a", 1, nil)
	cfg, _ := a.csvPipeline("refuse", 1)
	r := a.do("POST", "/v1/runs", writeTok, map[string]any{"config": cfg,
		"callback": map[string]any{"url": "http://127.0.0.1:9/cb", "headers": map[string]string{"Authorization": "x"}}})
	if r.code != http.StatusUnprocessableEntity || r.errCode(t) != CodeUnprocessable {
		t.Fatalf("callback headers in cluster mode: %d %s", r.code, r.body)
	}
	secret := "version: 1\nparams:\n  pw: {type: string, secret: true}\npipeline:\n  source: {type: csv, config: {path: " +
		fmt.Sprintf("%q", filepath.Join(a.dir, "refuse.csv")) + "}}\n  sink: {type: stdout}\n"
	r = a.do("POST", "/v1/runs", writeTok, map[string]any{"config": secret, "params": map[string]any{"pw": "hunter2"}})
	if r.code != http.StatusUnprocessableEntity {
		t.Fatalf("secret param in cluster mode: %d %s", r.code, r.body)
	}
	// A plain param is stored with the run and bound by the claimer.
	plain := "version: 1\nparams:\n  in: {type: string, required: true}\npipeline:\n  source: {type: csv, config: {path: \"${param.in}\"}}\n  sink: {type: stdout}\n"
	in := filepath.Join(a.dir, "refuse.csv")
	id := a.submit(map[string]any{"config": plain, "params": map[string]any{"in": in}})["run_id"].(string)
	if m := a.wait(id); m["status"] != "completed" || m["records_written"] != 1.0 || m["params"].(map[string]any)["in"] != in {
		t.Fatalf("run with a param: %v", m)
	}
}

func waitOwner(t *testing.T, hn *harness, id, owner string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if hn.s.Runner().InFlight() == 1 {
			if m := hn.do("GET", "/v1/runs/"+id, readTok, nil).json(t); m["status"] == "running" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("run %s never ran on %s", id, owner)
}

// counterValue sums a series family in the server's /metrics.
func counterValue(t *testing.T, hn *harness, name string) float64 {
	t.Helper()
	mfs, err := hn.s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// TestClusterModeClaimsAtSubmissionWithAFreeSlot: with a free slot and no
// pending run waiting, a submission is stored already claimed by the
// receiving server (running, with its started_at) and runs from the
// submission as loaded; every run is still claimed exactly once.
func TestClusterModeClaimsAtSubmissionWithAFreeSlot(t *testing.T) {
	url := pgURL(t)
	a := newClusterServer(t, url, "member-a", 1, nil)
	cfg, _ := a.csvPipeline("local", 2)
	// The first submission finds the queue state unknown: pending, then
	// claimed by the loop, which learns that nothing else is pending.
	first := a.submit(map[string]any{"config": cfg})
	if m := a.wait(first["run_id"].(string)); m["status"] != "completed" {
		t.Fatalf("first run: %v", m)
	}
	// The first run's terminal record is written before its job gives
	// the slot back, and the claim loop learns that no pending run is left
	// only on its next claim: until both, a submission is rightly stored
	// pending. It must answer running once they have happened.
	runs := 1
	var got map[string]any
	for try := 1; ; try++ {
		got = a.submit(map[string]any{"config": cfg})
		runs++
		if got["status"] == "running" {
			break
		}
		if try == 10 {
			t.Fatalf("a submission with a free slot and no backlog answers running, got %v (try %d)", got, try)
		}
		if m := a.wait(got["run_id"].(string)); m["status"] != "completed" {
			t.Fatalf("run submitted pending: %v", m)
		}
	}
	m := a.wait(got["run_id"].(string))
	if m["status"] != "completed" || m["records_written"] != 2.0 || m["config_body"] != cfg || m["attempt"] != 0.0 {
		t.Fatalf("claimed at submission: %v", m)
	}
	sub, err1 := time.Parse(time.RFC3339Nano, m["submitted_at"].(string))
	st, err2 := time.Parse(time.RFC3339Nano, m["started_at"].(string))
	if err1 != nil || err2 != nil || st.Before(sub) {
		t.Fatalf("submitted_at %v, started_at %v", m["submitted_at"], m["started_at"])
	}
	if c := counterValue(t, a, "faucet_serve_runs_claimed_total"); c != float64(runs) {
		t.Fatalf("%v claims for %d runs", c, runs)
	}
}
