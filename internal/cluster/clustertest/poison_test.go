package clustertest

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClusterPoisonRunIsFailedIntegration: a run that takes its member down
// every time it is claimed (the test kill -9s whichever member owns it, then
// starts a replacement) is requeued --cluster-max-attempts times and then
// failed as a poison run with the reason; the rest of the cluster keeps
// completing runs throughout.
func TestClusterPoisonRunIsFailedIntegration(t *testing.T) {
	const maxAttempts = 2
	e := newEnv(t)
	extra := []string{"--cluster-max-attempts", fmt.Sprint(maxAttempts)}
	live := map[string]*member{}
	for _, n := range []string{"a", "b", "c"} {
		m := e.start(n, "", extra...)
		live[m.id] = m
	}
	someMember := func() *member {
		for _, m := range live {
			return m
		}
		t.Fatal("no live member")
		return nil
	}
	poison := someMember().submit(e.slowRun(2000, map[string]string{"poison": "yes"}))
	var others []string
	kills := 0
	for gen := 0; ; gen++ {
		var owner string
		e.waitFor("the poison run to be claimed or failed", 60*time.Second, func() bool {
			r := e.run(poison)
			owner = ""
			if r.status == "running" && live[r.owner] != nil {
				owner = r.owner
			}
			return owner != "" || terminal(r.status)
		})
		if owner == "" {
			break
		}
		// Work submitted while the poison run is being retried completes.
		// It goes to a member that is not about to be killed: a member
		// with a free slot runs a submission at once, and one killed right
		// after finishing it takes the undelivered callback with it (the
		// terminal write and the callback are not atomic, in any version).
		others = append(others, memberOtherThan(live, owner).submit(e.shortRun(map[string]string{"gen": fmt.Sprint(gen)}, "")))
		m := live[owner]
		m.signal(syscall.SIGKILL)
		<-m.exited
		kills++
		delete(live, owner)
		r := e.start(fmt.Sprintf("r%d", gen), "", extra...)
		live[r.id] = r
		if kills > maxAttempts+1 {
			t.Fatalf("the poison run was claimed %d times with --cluster-max-attempts %d", kills, maxAttempts)
		}
	}

	r := e.run(poison)
	want := fmt.Sprintf("run reclaimed %d times after its owning instance's lease expired; giving up (poison run)", maxAttempts+1)
	if r.status != "failed" || r.errText != want || r.attempt != maxAttempts+1 || kills != maxAttempts+1 {
		t.Fatalf("poison run: %s, attempt %d, error %q after %d kills; want failed, attempt %d, %q",
			r.status, r.attempt, r.errText, kills, maxAttempts+1, want)
	}
	failed := 0.0
	for _, m := range live {
		failed += m.metric("faucet_serve_runs_reclaimed_total", `outcome="failed"`)
	}
	if failed != 1 {
		t.Errorf("live members report %v poison failures, want 1", failed)
	}

	// The cluster keeps working: what was submitted meanwhile, and more.
	for i := 0; i < 6; i++ {
		others = append(others, someMember().submit(e.shortRun(map[string]string{"after": fmt.Sprint(i)}, "")))
	}
	got := e.waitTerminal(others, 60*time.Second)
	for _, id := range others {
		if got[id].status != "completed" {
			t.Errorf("run %s submitted around the poison run: %s (%s)", id, got[id].status, got[id].errText)
		}
	}
	for _, m := range live {
		m.stop()
	}
	// No callback is sent for a poison failure (as in 1.13: callbacks follow
	// the terminal writes of the member that ran the run, and no member
	// finished this one); each other run got one.
	if cb := e.hooks.of(poison); len(cb) != 0 {
		t.Errorf("poison run callbacks: %v", cb)
	}
	for _, id := range others {
		if cb := e.hooks.of(id); len(cb) != 1 || !strings.EqualFold(cb[0], "completed") {
			t.Errorf("run %s: callbacks %v", id, cb)
		}
	}
}

// memberOtherThan is a live member whose id is not id.
func memberOtherThan(live map[string]*member, id string) *member {
	for mid, m := range live {
		if mid != id {
			return m
		}
	}
	return live[id]
}
