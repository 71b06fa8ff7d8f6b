package fallback_test

import (
	"context"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/fallback"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// TestStrictViewNeverFallsBackToMemory: the cluster view refuses run records
// and fenced writes while the database is unreachable (nothing lands in
// memory), keeps the soft policy for logs, and works again after the probe.
func TestStrictViewNeverFallsBackToMemory(t *testing.T) {
	_, schema := pgURL(t)
	p := newProxy(t, "127.0.0.1:5432")
	url := "postgres://postgres@" + p.addr + "/test?sslmode=disable&connect_timeout=2&search_path=" + schema
	ctx := context.Background()
	opts := history.Options{InstanceID: "strict"}
	connect := func(ctx context.Context) (history.RunHistory, error) { return sqlstore.OpenOptions(ctx, url, opts) }
	fb, err := fallback.Connect(ctx, connect, opts, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	h := fb.Strict()

	running := history.NewQueuedRun("r1", nil, nil, nil, time.Now())
	running.Status = history.StatusRunning
	if err := h.Upsert(ctx, running); err != nil {
		t.Fatal(err)
	}

	p.stop()
	pending := history.NewQueuedRun("p1", nil, nil, nil, time.Now())
	pending.Status = history.StatusPending
	if err := h.Upsert(ctx, pending); !history.IsDegraded(err) {
		t.Fatalf("a pending run must not be accepted into memory: %v", err)
	}
	if !h.Degraded() {
		t.Fatal("the strict view shares the degraded flag")
	}
	done := running
	done.Status = history.StatusCompleted
	if ok, err := h.FinalizeOwned(ctx, done); ok || !history.IsDegraded(err) {
		t.Fatalf("a fenced write must not be won in memory: %v %v", ok, err)
	}
	for name, call := range map[string]func() error{
		"Get":         func() error { _, err := h.Get(ctx, "r1"); return err },
		"List":        func() error { _, err := h.List(ctx, history.ListFilter{Limit: 5}); return err },
		"Delete":      func() error { _, err := h.Delete(ctx, "r1"); return err },
		"RenewLeases": func() error { _, err := h.RenewLeases(ctx); return err },
		"Recover":     func() error { _, err := h.RecoverOrphans(ctx); return err },
		"Purge":       func() error { _, err := h.PurgeExpired(ctx, time.Hour); return err },
		"Release":     func() error { return h.ReleaseIdempotency(ctx, "r1") },
	} {
		if err := call(); !history.IsDegraded(err) {
			t.Errorf("%s while degraded: want a Degraded error, got %v", name, err)
		}
	}
	if err := h.RecordRunLogs(ctx, "r1", []history.RunLogLine{{Seq: 0, TS: "t", Level: "INFO", Line: "x"}}); err != nil {
		t.Fatalf("run logs keep the soft policy: %v", err)
	}
	if got, err := fb.Get(ctx, "p1"); err != nil || got != nil {
		t.Fatalf("memory must not hold the refused pending run: %v %v", got, err)
	}

	p.start(t)
	if !fb.Probe(ctx) {
		t.Fatal("probe must recover")
	}
	if ok, err := h.FinalizeOwned(ctx, done); !ok || err != nil {
		t.Fatalf("the owner finalizes in the database after recovery: %v %v", ok, err)
	}
	got, err := h.Get(ctx, "r1")
	if err != nil || got == nil || got.Status != history.StatusCompleted {
		t.Fatalf("database holds the terminal record: %+v %v", got, err)
	}
}
