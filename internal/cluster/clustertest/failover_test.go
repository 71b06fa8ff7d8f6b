package clustertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

const slowRows = 100 // about 5 s per slow run

// TestClusterFailoverAfterKillIntegration: a member is killed (-9) while it
// owns running runs; after the lease the others requeue them (attempt 1)
// and complete them, each once, with one callback. The killed member
// restarts as a new member and rejoins; the dead one leaves the live set.
func TestClusterFailoverAfterKillIntegration(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.start("a", ""), e.start("b", ""), e.start("c", "")
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, a.submit(e.slowRun(slowRows, map[string]string{"slow": fmt.Sprint(i)})))
	}
	owned := e.ownedRunning(a, ids, 1)
	a.signal(syscall.SIGKILL)
	<-a.exited

	got := e.waitTerminal(ids, 90*time.Second)
	for _, id := range ids {
		r := got[id]
		if r.status != "completed" || r.records != slowRows {
			t.Errorf("run %s: %s with %d records (error %q)", id, r.status, r.records, r.errText)
		}
	}
	for _, id := range owned {
		if r := got[id]; r.attempt != 1 || r.owner == a.id {
			t.Errorf("run %s owned by the killed member: attempt %d, owner %s; want attempt 1 on a survivor", id, r.attempt, r.owner)
		}
	}
	// owned is a snapshot taken before the kill (the member may have claimed
	// more since): every run taken over shows attempt 1, and the survivors
	// counted exactly those.
	takenOver := 0
	for _, id := range ids {
		if got[id].attempt == 1 {
			takenOver++
		}
	}
	requeued := b.metric("faucet_serve_runs_reclaimed_total", `outcome="requeued"`) +
		c.metric("faucet_serve_runs_reclaimed_total", `outcome="requeued"`)
	if requeued != float64(takenOver) || takenOver < len(owned) {
		t.Errorf("survivors requeued %v runs; %d runs show attempt 1; the killed member owned at least %d", requeued, takenOver, len(owned))
	}
	t.Logf("the killed member owned %d running runs; all completed on the survivors", takenOver)
	// The second attempt's log lines are persisted under their own sequence
	// range (attempt<<40) and readable from any member.
	logs := b.do("GET", "/v1/runs/"+owned[0]+"/logs?format=jsonl", nil)
	var first struct {
		Seq  uint64 `json:"seq"`
		Line string `json:"line"`
	}
	if line, _, _ := strings.Cut(string(logs.body), "\n"); logs.code != 200 || json.Unmarshal([]byte(line), &first) != nil ||
		first.Seq != 1<<40 || !strings.Contains(first.Line, "pipeline run starting") {
		t.Errorf("persisted log of a taken-over run: %d %s", logs.code, logs.body)
	}

	// The killed member restarts: a new member id, visible everywhere; the
	// dead id ages out of the live set.
	a2 := e.start("a2", "")
	if a2.id == a.id {
		t.Fatal("a restarted process must be a new member")
	}
	e.waitFor("the restarted member to join and the dead one to leave", 20*time.Second, func() bool {
		for _, m := range []*member{b, c, a2} {
			v := m.view()
			if !v.has(a2.id) || v.has(a.id) || len(v.Instances) != 3 {
				return false
			}
		}
		return true
	})
	if r := b.do("GET", "/readyz", nil).json(t); r["cluster"].(map[string]any)["instances"] != 3.0 {
		t.Fatalf("readyz after the rejoin: %v", r)
	}
	// It takes work again.
	more := []string{a2.submit(e.shortRun(nil, "")), a2.submit(e.shortRun(nil, ""))}
	for id, r := range e.waitTerminal(more, 30*time.Second) {
		if (id == more[0] || id == more[1]) && r.status != "completed" {
			t.Errorf("run %s after the rejoin: %s", id, r.status)
		}
	}

	for _, m := range []*member{a2, b, c} {
		m.stop()
	}
	for _, id := range append(ids, more...) {
		if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "completed" {
			t.Errorf("run %s: callbacks %v, want exactly one completed", id, cb)
		}
	}
}
