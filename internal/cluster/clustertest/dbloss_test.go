package clustertest

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

const memberAppName = "faucet_cluster_member"

// terminateMembers kills the members' database sessions server-side and
// returns how many it ended.
func (e *env) terminateMembers() int {
	e.t.Helper()
	var n int
	err := e.db.QueryRow(`SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = $1 AND application_name = $2) k`, e.dbName, memberAppName).Scan(&n)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (m *member) ready() (int, map[string]any, error) {
	r, err := m.try("GET", "/readyz", nil)
	if err != nil {
		return 0, nil, err
	}
	return r.code, r.json(m.e.t), nil
}

// TestClusterSurvivesLosingTheDatabaseIntegration: while members run
// pipelines, their database sessions are killed server-side
// (pg_terminate_backend); then the database is taken away for longer than
// the lease (sessions killed and the network path cut). Members report
// degraded (/readyz 503, submissions 503) while they cannot reach it and
// recover by themselves when it is back; no run is lost and none finishes
// twice.
func TestClusterSurvivesLosingTheDatabaseIntegration(t *testing.T) {
	e := newEnv(t)
	target, err := url.Parse(e.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, target.Host)
	via := *target
	via.Host = p.addr
	q := via.Query()
	q.Set("application_name", memberAppName)
	q.Set("connect_timeout", "2")
	via.RawQuery = q.Encode()
	ms := []*member{e.start("a", via.String()), e.start("b", via.String()), e.start("c", via.String())}

	var ids []string
	for i := 0; i < 6; i++ {
		ids = append(ids, ms[i%3].submit(e.slowRun(100, map[string]string{"dbloss": fmt.Sprint(i)})))
	}
	e.waitFor("the slow runs to start", 30*time.Second, func() bool {
		rs := e.runs()
		for _, id := range ids {
			if rs[id].status != "running" {
				return false
			}
		}
		return true
	})

	// 1. Sessions killed once: the pools reconnect.
	if n := e.terminateMembers(); n == 0 {
		t.Fatal("no member session to terminate")
	}
	e.waitFor("the members to use the database again", 30*time.Second, func() bool {
		var n int
		_ = e.db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
			e.dbName, memberAppName).Scan(&n)
		return n > 0
	})

	// 2. The database goes away: sessions killed and the path cut.
	p.cut()
	e.terminateMembers()
	e.waitHistory(ms, false, "every member to report degraded", 30*time.Second)
	if r := ms[0].do("POST", "/v1/runs", e.shortRun(nil, "")); r.code != http.StatusServiceUnavailable {
		t.Fatalf("a submission while degraded: %d %s, want 503", r.code, r.body)
	}
	// Keep it away until the leases of the runs still running lapsed.
	e.waitFor("the running runs' leases to lapse", 30*time.Second, func() bool {
		for _, id := range ids {
			if r := e.run(id); r.status == "running" && !r.leaseExpired {
				return false
			}
		}
		return true
	})
	p.restore()
	e.waitHistory(ms, true, "every member to recover without help", 60*time.Second)

	got := e.waitTerminal(ids, 120*time.Second)
	for _, id := range ids {
		if r := got[id]; r.status != "completed" || r.records != 100 {
			t.Errorf("run %s: %s, %d records, attempt %d (error %q)", id, r.status, r.records, r.attempt, r.errText)
		}
	}
	after := ms[1].submit(e.shortRun(nil, ""))
	if r := e.waitTerminal([]string{after}, 30*time.Second)[after]; r.status != "completed" {
		t.Errorf("a run submitted after the recovery: %s", r.status)
	}
	finished, fenced, reclaimed := 0.0, 0.0, 0.0
	for _, m := range ms {
		finished += m.metric("faucet_serve_runs_total")
		fenced += m.metric("faucet_serve_cluster_fenced_writes_total")
		reclaimed += m.metric("faucet_serve_runs_reclaimed_total", `outcome="requeued"`)
	}
	t.Logf("after the outage: %v runs requeued, %v results fenced", reclaimed, fenced)
	if finished != float64(len(ids)+1) {
		t.Errorf("%v terminal writes won for %d runs", finished, len(ids)+1)
	}
	for _, m := range ms {
		m.stop()
	}
	for _, id := range append(ids, after) {
		if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "completed" {
			t.Errorf("run %s: callbacks %v, want exactly one completed", id, cb)
		}
	}
}
