package clustertest

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

const defaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Cluster settings of every test: short leases so failover is quick.
const (
	leaseTTLSecs = 3
	pollSecs     = 1
)

var faucetBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "faucet-cluster-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	faucetBin = filepath.Join(dir, "faucet")
	cmd := exec.Command("go", "build", "-o", faucetBin, "./cmd/faucet")
	cmd.Dir = filepath.Join("..", "..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build faucet: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var dbSeq atomic.Int64

// env is one test's cluster: a fresh database, a callback receiver, a work
// directory and the member processes.
type env struct {
	t       *testing.T
	admin   *sql.DB // the server's maintenance database
	db      *sql.DB // the test's own database
	dbName  string
	pgURL   string // the test database, direct
	baseURL string // the maintenance database URL
	dir     string
	hooks   *callbacks
	client  *http.Client

	mu      sync.Mutex
	members []*member
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("cluster end-to-end test: skipped with -short")
	}
	base := connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", defaultPostgres, func(ctx context.Context, u string) error {
		db, err := sql.Open("pgx", u)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return db.PingContext(ctx)
	})
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, admin: admin, baseURL: base, dir: t.TempDir(), client: &http.Client{Timeout: 30 * time.Second}}
	e.dbName = fmt.Sprintf("faucet_cluster_%d_%d", os.Getpid(), dbSeq.Add(1))
	if _, err := admin.Exec("DROP DATABASE IF EXISTS " + e.dbName + " WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + e.dbName); err != nil {
		t.Fatal(err)
	}
	e.pgURL = withDatabase(t, base, e.dbName)
	if e.db, err = sql.Open("pgx", e.pgURL); err != nil {
		t.Fatal(err)
	}
	e.hooks = newCallbacks(t)
	t.Cleanup(func() {
		e.mu.Lock()
		ms := append([]*member(nil), e.members...)
		e.mu.Unlock()
		for _, m := range ms {
			m.kill()
		}
		if t.Failed() {
			for _, m := range ms {
				t.Logf("---- %s (%s) stderr, last lines:\n%s", m.name, m.id, m.stderr.tail(60))
			}
		}
		e.db.Close()
		// Slow-source queries of killed members would run on until the
		// server notices their client is gone.
		if _, err := admin.Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", e.slowApp()); err != nil {
			t.Logf("terminate slow sources: %v", err)
		}
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + e.dbName + " WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", e.dbName, err)
		}
		admin.Close()
	})
	if err := os.WriteFile(filepath.Join(e.dir, "in.csv"), []byte("id,name\n1,ada\n2,grace\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// withDatabase returns base with its path (database) replaced.
func withDatabase(t *testing.T, base, db string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	return u.String()
}

// run is one row of faucet_serve_runs as the database holds it.
type run struct {
	id, status, owner string
	attempt           int
	records           int
	errText           string
	leaseExpired      bool
}

func (e *env) runs() map[string]run {
	e.t.Helper()
	rows, err := e.db.Query(`SELECT run_id, status, COALESCE(owner, ''), body,
		COALESCE(lease_expires_at < to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"000Z"'), true)
		FROM faucet_serve_runs`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]run{}
	for rows.Next() {
		var r run
		var body string
		if err := rows.Scan(&r.id, &r.status, &r.owner, &body, &r.leaseExpired); err != nil {
			e.t.Fatal(err)
		}
		var b struct {
			Attempt        int     `json:"attempt"`
			RecordsWritten int     `json:"records_written"`
			Error          *string `json:"error"`
			Status         string  `json:"status"`
		}
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			e.t.Fatalf("run %s: body %v", r.id, err)
		}
		if b.Status != r.status {
			e.t.Fatalf("run %s: status column %q but body %q", r.id, r.status, b.Status)
		}
		r.attempt, r.records = b.Attempt, b.RecordsWritten
		if b.Error != nil {
			r.errText = *b.Error
		}
		out[r.id] = r
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *env) run(id string) run {
	e.t.Helper()
	r, ok := e.runs()[id]
	if !ok {
		e.t.Fatalf("run %s is not in the history", id)
	}
	return r
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// waitFor polls cond until it holds or the deadline passes.
func (e *env) waitFor(what string, deadline time.Duration, cond func() bool) {
	e.t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			e.t.Fatalf("timed out after %s waiting for %s", deadline, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitHistory waits until every member's /readyz reports the history
// healthy (200, history_ok true) or, with ok false, degraded (503,
// history_ok false).
func (e *env) waitHistory(ms []*member, ok bool, what string, deadline time.Duration) {
	e.t.Helper()
	code := http.StatusServiceUnavailable
	if ok {
		code = http.StatusOK
	}
	e.waitFor(what, deadline, func() bool {
		for _, m := range ms {
			c, body, err := m.ready()
			if err != nil || c != code || body["history_ok"] != ok {
				return false
			}
		}
		return true
	})
}

// waitTerminal waits until every id is terminal.
func (e *env) waitTerminal(ids []string, deadline time.Duration) map[string]run {
	e.t.Helper()
	var got map[string]run
	e.waitFor(fmt.Sprintf("%d runs to finish", len(ids)), deadline, func() bool {
		got = e.runs()
		for _, id := range ids {
			if !terminal(got[id].status) {
				return false
			}
		}
		return true
	})
	return got
}

// ownedRunning waits until m owns at least n running runs among ids.
func (e *env) ownedRunning(m *member, ids []string, n int) []string {
	e.t.Helper()
	var owned []string
	e.waitFor(fmt.Sprintf("%s to own %d running runs", m.name, n), 30*time.Second, func() bool {
		owned = owned[:0]
		rs := e.runs()
		for _, id := range ids {
			if r := rs[id]; r.status == "running" && r.owner == m.id {
				owned = append(owned, id)
			}
		}
		return len(owned) >= n
	})
	return append([]string(nil), owned...)
}
