package clustertest

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// TestClusterPausedMemberIsFencedIntegration: a member is paused (SIGSTOP)
// past its lease while it runs pipelines; the others requeue, run and finish
// them. When it resumes, its late results are refused (fenced), nothing is
// finalized twice, the history shows one terminal state per run, and each
// callback fired once, from the member that finished the run.
func TestClusterPausedMemberIsFencedIntegration(t *testing.T) {
	e := newEnv(t)
	a, b, c := e.start("a", ""), e.start("b", ""), e.start("c", "")
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, a.submit(e.slowRun(60, map[string]string{"pause": fmt.Sprint(i)})))
	}
	e.ownedRunning(a, ids, 2)
	finishedBefore := a.metric("faucet_serve_runs_total")

	a.signal(syscall.SIGSTOP)
	e.waitFor("every run to finish while the member is paused", 90*time.Second, func() bool {
		rs := e.runs()
		for _, id := range ids {
			if r := rs[id]; r.status != "completed" {
				return false
			}
		}
		return true
	})
	// The runs taken over from the paused member are those reclaimed once.
	var owned []string
	for _, id := range ids {
		if r := e.run(id); r.attempt == 1 {
			owned = append(owned, id)
		} else if r.attempt != 0 {
			t.Fatalf("run %s: attempt %d", id, r.attempt)
		}
	}
	if len(owned) < 2 {
		t.Fatalf("%d runs taken over from the paused member, want at least the 2 it ran", len(owned))
	}
	a.signal(syscall.SIGCONT)

	// Back from the pause, the member finds its runs gone: it stops them
	// and discards their results instead of writing them.
	e.waitFor("the resumed member to fence its late results", 30*time.Second, func() bool {
		return a.metric("faucet_serve_cluster_fenced_writes_total") >= float64(len(owned))
	})
	t.Logf("paused member: %d runs taken over; fenced in the database %v, after a lost lease %v",
		len(owned), a.metric("faucet_serve_cluster_fenced_writes_total", `reason="database"`),
		a.metric("faucet_serve_cluster_fenced_writes_total", `reason="lease_lost"`))
	if lost := a.metric("faucet_serve_cluster_leases_lost_total"); lost > float64(len(owned)) {
		t.Errorf("%v leases lost for %d runs", lost, len(owned))
	}
	got := e.waitTerminal(ids, 60*time.Second)
	for _, id := range ids {
		if r := got[id]; r.status != "completed" || r.records != 60 {
			t.Errorf("run %s: %s, %d records (error %q)", id, r.status, r.records, r.errText)
		}
	}
	// The paused member finished none of the runs it lost; across the
	// cluster every run was counted once.
	if after := a.metric("faucet_serve_runs_total"); after-finishedBefore > float64(len(ids)-len(owned)) {
		t.Errorf("the paused member counted %v finished runs, at most %d were its own", after-finishedBefore, len(ids)-len(owned))
	}
	total := 0.0
	for _, m := range []*member{a, b, c} {
		total += m.metric("faucet_serve_runs_total")
	}
	if total != float64(len(ids)) {
		t.Errorf("%v terminal writes won for %d runs", total, len(ids))
	}
	if n := a.stderr.count("discarding result"); n < len(owned) {
		t.Errorf("the paused member logged %d discarded results, want %d", n, len(owned))
	}
	// It is a member again.
	e.waitFor("the resumed member to heartbeat again", 10*time.Second, func() bool { return b.view().has(a.id) })

	for _, m := range []*member{a, b, c} {
		m.stop()
	}
	for _, id := range ids {
		if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "completed" {
			t.Errorf("run %s: callbacks %v, want exactly one completed", id, cb)
		}
	}
}
