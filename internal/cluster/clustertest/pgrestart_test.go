package clustertest

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

// privatePG is the test's own Postgres (stopped and started mid-run).
type privatePG struct {
	*connectortest.PrivatePostgres
	t *testing.T
}

func startPrivatePG(t *testing.T) *privatePG {
	return &privatePG{PrivatePostgres: connectortest.StartPrivatePostgres(t, ""), t: t}
}

// createDB creates db on the private server and returns its URL.
func (p *privatePG) createDB(db string) string {
	p.t.Helper()
	admin, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		p.t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
		p.t.Fatalf("create database %s on the private server: %v", db, err)
	}
	return p.URL(db)
}

// startTime is the postmaster's start time (pg_postmaster_start_time).
func (p *privatePG) startTime() time.Time {
	p.t.Helper()
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		p.t.Fatal(err)
	}
	defer db.Close()
	var at time.Time
	if err := db.QueryRow("SELECT pg_postmaster_start_time()").Scan(&at); err != nil {
		p.t.Fatalf("private server start time: %v", err)
	}
	return at
}

// slowSources counts the slow runs' source queries still active on the
// shared server.
func (e *env) slowSources() int {
	e.t.Helper()
	var n int
	if err := e.admin.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`,
		e.slowApp()).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestClusterSurvivesPostgresRestartIntegration: the members' history lives
// on a private Postgres server that is stopped (pg_ctl -m fast) and started
// again while slow runs are in flight (their sources use the shared server).
// Members report degraded while it is down and recover by themselves when
// it is back; every run reaches exactly one terminal state, none is left
// pending or running, and a run submitted after the recovery completes.
func TestClusterSurvivesPostgresRestartIntegration(t *testing.T) {
	pg := startPrivatePG(t)
	e := newEnv(t) // source database and callbacks on the shared server
	history := pg.createDB("faucet_history")
	hu, err := url.Parse(history)
	if err != nil {
		t.Fatal(err)
	}
	q := hu.Query()
	q.Set("application_name", memberAppName)
	q.Set("connect_timeout", "2")
	hu.RawQuery = q.Encode()
	openHistory := func() {
		t.Helper()
		e.db.Close()
		if e.db, err = sql.Open("pgx", history); err != nil {
			t.Fatal(err)
		}
	}
	openHistory() // e.runs() now reads the private server
	e.pgURL = history
	ms := []*member{e.start("a", hu.String()), e.start("b", hu.String()), e.start("c", hu.String())}

	var ids []string
	for i := 0; i < 6; i++ {
		ids = append(ids, ms[i%3].submit(e.slowRun(200, map[string]string{"pgrestart": fmt.Sprint(i)})))
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

	before := pg.startTime()
	if n := e.slowSources(); n == 0 {
		t.Fatal("no slow source query in flight before the restart")
	}
	pg.Stop()
	down := time.Now()
	e.waitHistory(ms, false, "every member to report degraded", 30*time.Second)
	if r := ms[0].do("POST", "/v1/runs", e.shortRun(nil, "")); r.code != http.StatusServiceUnavailable {
		t.Fatalf("a submission while the history server is down: %d %s, want 503", r.code, r.body)
	}
	// Keep the history down until every run has read all its rows (its
	// source query on the shared server is over): each run must then record
	// its end against a server that was gone (about 10 s here, longer than
	// the lease TTL; the test logs the measured outage).
	e.waitFor("the slow sources to finish while the history is down", 60*time.Second, func() bool {
		return e.slowSources() == 0
	})
	pg.Start()
	t.Logf("history server down for %s", time.Since(down).Round(time.Millisecond))
	openHistory() // the old pool's sessions died with the server
	if after := pg.startTime(); !after.After(before) {
		t.Fatalf("postmaster start time %s, before the restart %s: the server did not restart", after, before)
	}
	e.waitHistory(ms, true, "every member to recover without help", 60*time.Second)

	got := e.waitTerminal(ids, 120*time.Second)
	for _, id := range ids {
		r := got[id]
		t.Logf("run %s: %s, %d records, attempt %d, error %q", id, r.status, r.records, r.attempt, r.errText)
		switch {
		case r.status == "completed" && r.records == 200:
		case r.status == "failed" && r.errText != "":
		default:
			t.Errorf("run %s: %s, %d records, attempt %d (error %q), want completed with 200 records or failed with a reason",
				id, r.status, r.records, r.attempt, r.errText)
		}
	}
	after := ms[1].submit(e.shortRun(nil, ""))
	if r := e.waitTerminal([]string{after}, 30*time.Second)[after]; r.status != "completed" {
		t.Errorf("a run submitted after the restart: %s (error %q)", r.status, r.errText)
	}
	for id, r := range e.runs() {
		if !terminal(r.status) {
			t.Errorf("run %s is left %s in the history", id, r.status)
		}
	}
	finished, reclaimed := 0.0, 0.0
	for _, m := range ms {
		finished += m.metric("faucet_serve_runs_total")
		reclaimed += m.metric("faucet_serve_runs_reclaimed_total", `outcome="requeued"`)
	}
	t.Logf("after the restart: %v runs requeued", reclaimed)
	if finished != float64(len(ids)+1) {
		t.Errorf("%v terminal writes won for %d runs", finished, len(ids)+1)
	}
	for _, m := range ms {
		m.stop()
	}
	for _, id := range append(ids, after) {
		want := got[id].status
		if id == after {
			want = "completed"
		}
		if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != want {
			t.Errorf("run %s: callbacks %v, want exactly one %s", id, cb, want)
		}
	}
}
