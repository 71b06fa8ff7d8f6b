package clustertest

import (
	"net/http"
	"testing"
	"time"
)

// TestClusterCrossInstanceCancelIntegration: a cancel sent to a member that
// does not run the run reaches its owner through the database (it stops the
// run within a poll and writes cancelled); a pending run is cancelled at
// once by the member that received the cancel. One callback each.
func TestClusterCrossInstanceCancelIntegration(t *testing.T) {
	e := newEnv(t)
	one := []string{"--max-concurrent-runs", "1"}
	a, b := e.start("a", "", one...), e.start("b", "", one...)
	byID := map[string]*member{a.id: a, b.id: b}

	first := a.submit(e.slowRun(2000, map[string]string{"n": "1"}))
	second := b.submit(e.slowRun(2000, map[string]string{"n": "2"}))
	var owner1, owner2 *member
	e.waitFor("both slow runs to run, one per member", 30*time.Second, func() bool {
		rs := e.runs()
		owner1, owner2 = byID[rs[first].owner], byID[rs[second].owner]
		return rs[first].status == "running" && rs[second].status == "running" && owner1 != nil && owner2 != nil
	})
	if owner1 == owner2 {
		t.Fatalf("one slot per member, yet %s runs both", owner1.name)
	}
	// Both slots are taken: the third run stays pending.
	third := a.submit(e.slowRun(10, map[string]string{"n": "3"}))
	if r := e.run(third); r.status != "pending" {
		t.Fatalf("third run: %s, want pending", r.status)
	}

	// A pending run is cancelled at once, by the member that receives the
	// cancel (its guarded write is the terminal one).
	if r := owner2.do("POST", "/v1/runs/"+third+"/cancel", nil); r.code != http.StatusAccepted {
		t.Fatalf("cancel of the pending run: %d %s", r.code, r.body)
	}
	if r := e.run(third); r.status != "cancelled" {
		t.Fatalf("pending run after its cancel: %s, want cancelled", r.status)
	}
	if claimed := a.metric("faucet_serve_runs_claimed_total") + b.metric("faucet_serve_runs_claimed_total"); claimed != 2 {
		t.Fatalf("%v runs claimed; the cancelled pending run must never be", claimed)
	}

	// Cancel the first run through the member that does not own it.
	if r := owner2.do("POST", "/v1/runs/"+first+"/cancel", nil); r.code != http.StatusAccepted {
		t.Fatalf("cross-instance cancel: %d %s", r.code, r.body)
	}
	e.waitFor("the owner to stop the cancelled run", 15*time.Second, func() bool { return e.run(first).status == "cancelled" })
	if n := owner1.stderr.count("cancel requested on another instance"); n != 1 {
		t.Errorf("the owner logged %d cross-instance stops, want 1", n)
	}

	// A second cancel of a finished run is a no-op (200 with its status).
	if r := b.do("POST", "/v1/runs/"+first+"/cancel", nil); r.code != http.StatusOK || r.json(t)["status"] != "cancelled" {
		t.Fatalf("cancel of a cancelled run: %d %s", r.code, r.body)
	}
	if r := a.do("POST", "/v1/runs/"+second+"/cancel", nil); r.code != http.StatusAccepted {
		t.Fatalf("cancel of the second run: %d %s", r.code, r.body)
	}
	got := e.waitTerminal([]string{first, second, third}, 15*time.Second)
	for _, id := range []string{first, second, third} {
		if got[id].status != "cancelled" {
			t.Errorf("run %s: %s", id, got[id].status)
		}
	}
	cancelled := a.metric("faucet_serve_runs_total", `status="cancelled"`) + b.metric("faucet_serve_runs_total", `status="cancelled"`)
	if cancelled != 3 {
		t.Errorf("%v cancelled runs counted, want 3", cancelled)
	}
	a.stop()
	b.stop()
	for _, id := range []string{first, second, third} {
		if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "cancelled" {
			t.Errorf("run %s: callbacks %v, want exactly one cancelled", id, cb)
		}
	}
}
