package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// A keyset page is an index range from the cursor, not a scan of every newer
// run (the bench measures the cost; this pins the plan).
func TestKeysetPagePlanSQLite(t *testing.T) {
	planCheck(t, sqliteURL(t), "SEARCH faucet_serve_runs USING INDEX faucet_serve_runs_submitted_idx (submitted_at<?)")
}

func TestKeysetPagePlanPostgres(t *testing.T) {
	planCheck(t, pgSchema(t), "Index Cond: (submitted_at <=")
}

func planCheck(t *testing.T, url, want string) {
	ctx := context.Background()
	s, err := sqlstore.OpenOptions(ctx, url, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []history.RunRecord
	for i := 0; i < 5000; i++ {
		r := history.NewQueuedRun(fmt.Sprintf("r%06d", i), nil, nil, nil, base.Add(time.Duration(i)*time.Second))
		r.Status = history.StatusCompleted
		recs = append(recs, r)
	}
	if err := s.UpsertBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	cur := "r001000"
	plan, err := s.ExplainList(ctx, history.ListFilter{Limit: 50, Cursor: &cur})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), want) {
		t.Fatalf("deep page plan does not range over the index:\n%s", strings.Join(plan, "\n"))
	}
	page, err := s.List(ctx, history.ListFilter{Limit: 50, Cursor: &cur})
	if err != nil || len(page.Runs) != 50 || page.Runs[0].RunID != "r000999" {
		t.Fatalf("page after the cursor: %v %v", err, page.Runs[:1])
	}
}
