package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

func TestHistoryVerbListsNewestFirstWithFilters(t *testing.T) {
	ctx := context.Background()
	url := "sqlite:" + filepath.Join(t.TempDir(), "history.db")
	h, err := sqlstore.Open(ctx, url, "test")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i, st := range []history.RunStatus{history.StatusCompleted, history.StatusFailed, history.StatusCompleted} {
		name := "orders"
		if i == 1 {
			name = "users"
		}
		start := base.Add(time.Duration(i) * time.Hour)
		end := start.Add(2 * time.Second)
		el := 2.0
		rec := history.RunRecord{
			RunID: "run-" + string(rune('a'+i)), Name: &name, Status: st,
			SubmittedAt: start, StartedAt: &start, FinishedAt: &end, ElapsedSecs: &el,
			RecordsWritten: uint64(1000 * (i + 1)),
		}
		if err := h.Upsert(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	h.Close()

	run := func(args ...string) string {
		var out, errb bytes.Buffer
		code := Main(ctx, append([]string{"history", "--history", url}, args...), nil, &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	out := run()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "run-c") || !strings.HasPrefix(lines[3], "run-a") {
		t.Fatalf("want header + 3 runs newest first:\n%s", out)
	}
	if !strings.Contains(lines[1], "3000") || !strings.Contains(lines[1], "1500.0") || !strings.Contains(lines[1], "2s") {
		t.Fatalf("rows, rows/s or duration missing:\n%s", out)
	}
	out = run("--status", "failed")
	if !strings.Contains(out, "run-b") || strings.Contains(out, "run-a") {
		t.Fatalf("status filter:\n%s", out)
	}
	out = run("--name", "orders", "--limit", "1", "--json")
	if !strings.Contains(out, `"run_id": "run-c"`) || strings.Contains(out, "run-a") {
		t.Fatalf("name/limit/json:\n%s", out)
	}

	var out2, errb bytes.Buffer
	code := Main(ctx, []string{"history", "--history", "sqlite:/nonexistent/h.db"}, nil, &out2, &errb)
	if code != 1 || !strings.Contains(errb.String(), "no history database at /nonexistent/h.db") {
		t.Fatalf("missing db: exit %d %s", code, errb.String())
	}
}
