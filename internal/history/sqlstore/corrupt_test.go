package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

func TestCorruptRowsSQLite(t *testing.T)   { corruptRows(t, sqliteURL(t)) }
func TestCorruptRowsPostgres(t *testing.T) { corruptRows(t, pgSchema(t)) }

func corruptRows(t *testing.T, url string) {
	ctx := context.Background()
	h, err := sqlstore.OpenOptions(ctx, url, history.Options{InstanceID: "me"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	raw := rawDB{h.DB(), h.Dialect()}
	for i, id := range []string{"good-1", "good-2"} {
		if err := h.Upsert(ctx, history.NewQueuedRun(id, nil, nil, nil, time.Now().Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	raw.exec(t, `INSERT INTO faucet_serve_runs (run_id,status,submitted_at,body) VALUES ($1,$2,$3,$4)`,
		"bad", "queued", history.FormatTS(time.Now().Add(500*time.Millisecond)), `{"run_id":"bad","status":`)

	_, err = h.Get(ctx, "bad")
	if err == nil || !strings.Contains(err.Error(), "decode run record bad") {
		t.Fatalf("a corrupt body is a clear error for that row: %v", err)
	}
	page, err := h.List(ctx, history.ListFilter{Limit: 10})
	if err != nil {
		t.Fatalf("listing must survive a corrupt row: %v", err)
	}
	if len(page.Runs) != 2 || len(page.Corrupt) != 1 || page.Corrupt[0] != "bad" {
		t.Fatalf("page: %d runs, corrupt %v", len(page.Runs), page.Corrupt)
	}
	// Paging across the corrupt row keeps going.
	p1, _ := h.List(ctx, history.ListFilter{Limit: 1})
	p2, _ := h.List(ctx, history.ListFilter{Limit: 1, Cursor: p1.NextCursor})
	p3, _ := h.List(ctx, history.ListFilter{Limit: 1, Cursor: p2.NextCursor})
	if len(p1.Runs)+len(p2.Runs)+len(p3.Runs) != 2 || p3.NextCursor != nil {
		t.Fatalf("paging through a corrupt row: %v %v %v", p1.Runs, p2.Corrupt, p3.Runs)
	}

	// Unparseable timestamps read as the seed says: audit ts reads as now,
	// a bad claim time is "not expired" (no silent takeover), bad launch rows
	// are skipped.
	raw.exec(t, `INSERT INTO faucet_serve_audit (id, ts, principal, role, action, result) VALUES ($1,$2,$3,$4,$5,$6)`,
		"aud-bad", "yesterday-ish", "p", "r", "run.submit", "ok")
	aud, err := h.ListAudit(ctx, history.AuditFilter{Limit: 10})
	if err != nil || len(aud) != 1 || time.Since(aud[0].Timestamp) > time.Minute {
		t.Fatalf("bad audit ts reads as now: %v %+v", err, aud)
	}
	raw.exec(t, `INSERT INTO faucet_serve_idem (key,run_id,fingerprint,claimed_at) VALUES ($1,$2,$3,$4)`, "k", "good-1", "fp", "not-a-time")
	if c, err := h.ClaimIdempotency(ctx, "k", "other", "x", 0); err != nil || c.Kind != history.ClaimConflict {
		t.Fatalf("bad claim time is never expired: %v %v", c, err)
	}
	raw.exec(t, `INSERT INTO faucet_template_launches (id, seq, version, launched_at) VALUES ($1,$2,$3,$4)`, "tpl", "1", "x", "2026-01-01T00:00:00.000000000Z")
	raw.exec(t, `INSERT INTO faucet_template_launches (id, seq, version, launched_at) VALUES ($1,$2,$3,$4)`, "tpl", "2", "3", "garbage")
	ls, err := h.TemplateLaunches(ctx, "tpl")
	if err != nil || len(ls) != 1 || ls[0].Version != 3 || time.Since(ls[0].LaunchedAt) > time.Minute {
		t.Fatalf("launch rows: %v %+v", err, ls)
	}
	// A corrupt dataset body fails its own read with a named error.
	raw.exec(t, `INSERT INTO faucet_catalog_datasets (id, uri, kind, last_seen, body) VALUES ($1,$2,$3,$4,$5)`, "ds", "u", "k", "x", "[")
	if _, err := h.CatalogGetDataset(ctx, "ds"); err == nil || !strings.Contains(err.Error(), "decode catalog dataset") {
		t.Fatalf("dataset: %v", err)
	}

}
