package clustertest

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestClusterSharesLoadExactlyOnceIntegration: three members, 300 short
// runs submitted round-robin with idempotency keys (some keys replayed on
// another member, some submitted to two members at once). Every run
// completes exactly once: one row per key, one terminal state per run, one
// claim, one callback, and every member ran some.
func TestClusterSharesLoadExactlyOnceIntegration(t *testing.T) {
	e := newEnv(t)
	ms := []*member{e.start("a", ""), e.start("b", ""), e.start("c", "")}
	e.waitFor("three live members on every member", 20*time.Second, func() bool {
		for _, m := range ms {
			v := m.view()
			if len(v.Instances) != 3 || !v.has(ms[0].id) || !v.has(ms[1].id) || !v.has(ms[2].id) {
				return false
			}
		}
		return true
	})
	if r := ms[1].do("GET", "/readyz", nil); r.code != 200 || r.json(t)["cluster"].(map[string]any)["instances"] != 3.0 {
		t.Fatalf("readyz: %d %s", r.code, r.body)
	}

	const runs = 300
	ids := make([]string, runs)
	var mu sync.Mutex
	replayed := 0
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 12; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				key := fmt.Sprintf("load-%03d", i)
				s := e.shortRun(map[string]string{"i": fmt.Sprint(i)}, key)
				first, second := ms[i%3], ms[(i+1)%3]
				var id string
				if i%25 == 0 {
					// The same key on two members at the same moment.
					var got [2]string
					var both sync.WaitGroup
					for k, m := range []*member{first, second} {
						both.Add(1)
						go func() { defer both.Done(); got[k] = submitTry(t, m, s) }()
					}
					both.Wait()
					if got[0] != got[1] || got[0] == "" {
						t.Errorf("key %s submitted to two members made runs %q and %q", key, got[0], got[1])
					}
					id = got[0]
				} else {
					id = submitTry(t, first, s)
				}
				if i%10 == 0 {
					// A replay on another member answers with the same run.
					if again := submitTry(t, second, s); again != id {
						t.Errorf("replay of %s on %s: run %s, want %s", key, second.name, again, id)
					}
					mu.Lock()
					replayed++
					mu.Unlock()
				}
				mu.Lock()
				ids[i] = id
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < runs; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	got := e.waitTerminal(ids, 120*time.Second)
	if len(got) != runs {
		t.Fatalf("the history holds %d runs for %d keys", len(got), runs)
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Fatalf("key %d shares run %s with another key", i, id)
		}
		seen[id] = true
		r := got[id]
		if r.status != "completed" || r.records != 2 || r.attempt != 0 {
			t.Errorf("run %s (key %d): %s, %d records, attempt %d, error %q", id, i, r.status, r.records, r.attempt, r.errText)
		}
	}
	var idem int
	if err := e.db.QueryRow("SELECT count(DISTINCT run_id) FROM faucet_serve_idem").Scan(&idem); err != nil || idem != runs {
		t.Fatalf("idempotency claims point at %d runs (%v), want %d", idem, err, runs)
	}

	var claimed, finished, reclaimed, fenced float64
	for _, m := range ms {
		c := m.metric("faucet_serve_runs_claimed_total")
		f := m.metric("faucet_serve_runs_total", `status="completed"`)
		t.Logf("%s ran %v runs (claimed %v)", m.name, f, c)
		if f == 0 {
			t.Errorf("%s ran no run: the load was not spread", m.name)
		}
		claimed += c
		finished += f
		reclaimed += m.metric("faucet_serve_runs_reclaimed_total")
		fenced += m.metric("faucet_serve_cluster_fenced_writes_total")
	}
	if claimed != runs || finished != runs || reclaimed != 0 || fenced != 0 {
		t.Fatalf("claimed %v, finished %v, reclaimed %v, fenced %v; want %d, %d, 0, 0", claimed, finished, reclaimed, fenced, runs, runs)
	}

	// A graceful stop delivers every pending callback before exiting.
	for _, m := range ms {
		m.stop()
	}
	for _, id := range ids {
		if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "completed" {
			t.Errorf("run %s: callbacks %v, want exactly one completed", id, cb)
		}
	}
	if n := e.hooks.total(); n != runs {
		t.Fatalf("%d callbacks for %d runs", n, runs)
	}
	t.Logf("%d runs, %d replays, all completed once", runs, replayed)
}

// submitTry submits s to m and returns the run id ("" and an error logged
// on failure), for use from goroutines.
func submitTry(t *testing.T, m *member, s submission) string {
	r, err := m.try("POST", "/v1/runs", s)
	if err != nil || r.code != http.StatusAccepted {
		t.Errorf("submit to %s: %v %d %s", m.name, err, r.code, r.body)
		return ""
	}
	id, _ := r.json(t)["run_id"].(string)
	return id
}
