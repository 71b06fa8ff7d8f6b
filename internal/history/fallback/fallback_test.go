package fallback_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/fallback"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// proxy is a real TCP forwarder in front of Postgres that the test can cut
// and restore, so the store sees genuine refused and dropped connections.
type proxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        map[net.Conn]bool
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[u] = true, true
			p.mu.Unlock()
			go func() { _, _ = io.Copy(u, c); u.Close() }()
			go func() { _, _ = io.Copy(c, u); c.Close() }()
		}
	}()
}

func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

func (p *proxy) start(t *testing.T) {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
}

func pgURL(t *testing.T) (base string, schema string) {
	base = os.Getenv("FAUCET_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	db, err := sql.Open("pgx", base)
	if err == nil {
		err = db.Ping()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres unreachable under CI=true: %v", err)
		}
		t.Skipf("Postgres unreachable at %s: %v", base, err)
	}
	schema = "fb_" + strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.Exec("DROP SCHEMA " + schema + " CASCADE"); db.Close() })
	return base, schema
}

func TestDegradesOnlyWhenUnreachableAndRecovers(t *testing.T) {
	_, schema := pgURL(t)
	p := newProxy(t, "127.0.0.1:5432")
	url := "postgres://postgres@" + p.addr + "/test?sslmode=disable&connect_timeout=2&search_path=" + schema

	ctx := context.Background()
	opts := history.Options{InstanceID: "fb"}
	connect := func(ctx context.Context) (history.RunHistory, error) { return sqlstore.OpenOptions(ctx, url, opts) }
	fb, err := fallback.Connect(ctx, connect, opts, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	var flips atomic.Int32
	fb.OnChange(func(bool) { flips.Add(1) })

	before := history.NewQueuedRun("before", nil, nil, nil, time.Now())
	if err := fb.Upsert(ctx, before); err != nil {
		t.Fatal(err)
	}
	// A deterministic failure is returned, not degraded.
	s := history.ConnectSession{State: "dup", Tenant: "t", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	if err := fb.ConnectSessionPut(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := fb.ConnectSessionPut(ctx, s); err == nil || history.IsDegraded(err) || fb.Degraded() {
		t.Fatalf("duplicate key must be returned as is: %v degraded=%v", err, fb.Degraded())
	}

	p.stop()
	during := history.NewQueuedRun("during", nil, nil, nil, time.Now())
	if err := fb.Upsert(ctx, during); err != nil {
		t.Fatalf("run records continue in memory: %v", err)
	}
	if !fb.Degraded() || flips.Load() != 1 {
		t.Fatalf("unreachable database must trip the wrapper (flips=%d)", flips.Load())
	}
	if got, err := fb.Get(ctx, "during"); err != nil || got == nil {
		t.Fatalf("memory serves reads: %v %v", got, err)
	}
	if err := fb.RecordAudit(ctx, history.AuditEntry{ID: "a", Timestamp: time.Now(), Principal: "p", Role: "r", Action: "x", Result: "ok"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fb.ClaimIdempotency(ctx, "k", "fp", "during", time.Hour); !history.IsDegraded(err) {
		t.Fatalf("claims fail closed while degraded: %v", err)
	}
	if _, err := fb.TemplateRegister(ctx, history.TemplateDraft{ID: "t", Body: "b"}); !history.IsDegraded(err) {
		t.Fatalf("templates are strict: %v", err)
	}
	if _, err := fb.ClaimPending(ctx, 1); !history.IsDegraded(err) {
		t.Fatalf("leases are strict: %v", err)
	}
	if ok, err := fb.FinalizeOwned(ctx, history.RunRecord{RunID: "before", Status: history.StatusCompleted, SubmittedAt: time.Now()}); !ok || err != nil {
		t.Fatalf("finalize continues in memory: %v %v", ok, err)
	}
	if fb.Probe(ctx) {
		t.Fatal("probe must fail while the database is down")
	}

	p.start(t)
	if !fb.Probe(ctx) || fb.Degraded() || flips.Load() != 2 {
		t.Fatalf("probe must recover (degraded=%v flips=%d)", fb.Degraded(), flips.Load())
	}
	got, err := fb.Get(ctx, "before")
	if err != nil || got == nil || got.Status != history.StatusQueued {
		t.Fatalf("primary serves again: %v %v", got, err)
	}
	if c, err := fb.ClaimIdempotency(ctx, "k", "fp", "r", time.Hour); err != nil || c.Kind != history.ClaimFresh {
		t.Fatalf("claims work again: %v %v", c, err)
	}
}

func TestDegradedAtStartupReconnects(t *testing.T) {
	_, schema := pgURL(t)
	var fail atomic.Bool
	fail.Store(true)
	opts := history.Options{InstanceID: "x"}
	connect := func(ctx context.Context) (history.RunHistory, error) {
		if fail.Load() {
			return nil, history.Unreachable("Postgres connection failed: refused", errors.New("refused"))
		}
		return sqlstore.OpenOptions(ctx, "postgres://postgres@127.0.0.1:5432/test?sslmode=disable&search_path="+schema, opts)
	}
	fb, err := fallback.Connect(context.Background(), connect, opts, "postgres")
	if err == nil || !fb.Degraded() {
		t.Fatal("must start degraded")
	}
	defer fb.Close()
	ctx := context.Background()
	if err := fb.Upsert(ctx, history.NewQueuedRun("m", nil, nil, nil, time.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := fb.ClaimIdempotency(ctx, "k", "f", "m", time.Hour); !history.IsDegraded(err) {
		t.Fatalf("claims refused while degraded: %v", err)
	}
	if fb.Probe(ctx) {
		t.Fatal("still down")
	}
	fail.Store(false)
	// The probe loop reconnects on its own.
	loop, stop := context.WithCancel(ctx)
	defer stop()
	go fb.Run(loop, 20*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for fb.Degraded() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if fb.Degraded() {
		t.Fatal("the probe loop must connect and recover")
	}
	if err := fb.Upsert(ctx, history.NewQueuedRun("p", nil, nil, nil, time.Now())); err != nil {
		t.Fatal(err)
	}
}
