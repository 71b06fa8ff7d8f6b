package historytest

import (
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func init() {
	register("audit_filters", func(e *env) {
		h := e.open("a")
		for i := 0; i < 6; i++ {
			en := history.AuditEntry{ID: fmt.Sprintf("id%d", i), Timestamp: base.Add(time.Duration(i) * time.Minute),
				Principal: []string{"alice", "bob"}[i%2], Role: "admin", Action: []string{"run.submit", "run.cancel", "run.delete"}[i%3],
				RunID: sp("r"), Result: "ok"}
			if i < 2 {
				en.Tenant = sp("acme")
			}
			ok(e.t, h.RecordAudit(e.ctx, en))
		}
		ok(e.t, h.RecordAudit(e.ctx, history.AuditEntry{ID: "id9", Timestamp: base.Add(5 * time.Minute), Principal: "carol", Role: "viewer", Action: "auth.denied", Result: "denied"}))
		all := must(h.ListAudit(e.ctx, history.AuditFilter{Limit: 100}))(e.t)
		got := []string{}
		for _, a := range all {
			got = append(got, a.ID)
		}
		sameStrings(e.t, "newest first, id tiebreak", got, []string{"id9", "id5", "id4", "id3", "id2", "id1", "id0"})
		eq(e.t, "limit >= 1", len(must(h.ListAudit(e.ctx, history.AuditFilter{}))(e.t)), 1)
		eq(e.t, "principal", len(must(h.ListAudit(e.ctx, history.AuditFilter{Limit: 100, Principal: sp("alice")}))(e.t)), 3)
		eq(e.t, "action", len(must(h.ListAudit(e.ctx, history.AuditFilter{Limit: 100, Action: sp("run.cancel")}))(e.t)), 2)
		tn := must(h.ListAudit(e.ctx, history.AuditFilter{Limit: 100, Tenant: sp("acme")}))(e.t)
		eq(e.t, "tenant", len(tn), 2)
		eq(e.t, "tenant read back", *tn[0].Tenant, "acme")
		s, u := base.Add(time.Minute), base.Add(3*time.Minute)
		eq(e.t, "inclusive range", len(must(h.ListAudit(e.ctx, history.AuditFilter{Limit: 100, Since: &s, Until: &u}))(e.t)), 3)
		eq(e.t, "fields", all[0].Result, "denied")
		if all[0].RunID != nil || all[1].RunID == nil {
			e.t.Fatal("optional run id not preserved")
		}
	})

	register("run_logs_paging_and_sentinel", func(e *env) {
		h := e.open("a")
		ok(e.t, h.RecordRunLogs(e.ctx, "r", nil))
		var lines []history.RunLogLine
		for i := 1; i <= 12; i++ {
			lines = append(lines, history.RunLogLine{Seq: uint64(i), TS: history.FormatTS(e.clk.Now()), Level: "info", Line: fmt.Sprintf("line %d", i)})
		}
		ok(e.t, h.RecordRunLogs(e.ctx, "r", lines))
		ok(e.t, h.RecordRunLogs(e.ctx, "r", []history.RunLogLine{{Seq: 3, TS: lines[0].TS, Level: "warn", Line: "dup"}}))
		p := must(h.ListRunLogs(e.ctx, "r", nil, 5))(e.t)
		eq(e.t, "page", len(p.Lines), 5)
		eq(e.t, "first", p.Lines[0].Line, "line 1")
		eq(e.t, "dup ignored", p.Lines[2].Line, "line 3")
		eq(e.t, "not truncated", p.Truncated, false)
		after := uint64(9)
		p = must(h.ListRunLogs(e.ctx, "r", &after, 100))(e.t)
		eq(e.t, "after", len(p.Lines), 3)
		eq(e.t, "seq", p.Lines[0].Seq, uint64(10))
		ok(e.t, h.RecordRunLogs(e.ctx, "r", []history.RunLogLine{{Seq: history.RunLogTruncatedSeq, TS: lines[0].TS, Level: "warn", Line: "truncated"}}))
		p = must(h.ListRunLogs(e.ctx, "r", &after, 100))(e.t)
		eq(e.t, "sentinel hidden", len(p.Lines), 3)
		eq(e.t, "truncated", p.Truncated, true)
		eq(e.t, "limit >= 1", len(must(h.ListRunLogs(e.ctx, "r", nil, 0))(e.t).Lines), 1)
		ok(e.t, h.RecordRunLogs(e.ctx, "old", []history.RunLogLine{{Seq: 1, TS: history.FormatTS(e.clk.Now().Add(-48 * time.Hour)), Level: "info", Line: "old"}}))
		eq(e.t, "purged", must(h.PurgeRunLogs(e.ctx, 24*time.Hour))(e.t), 1)
		eq(e.t, "old gone", len(must(h.ListRunLogs(e.ctx, "old", nil, 10))(e.t).Lines), 0)
		eq(e.t, "recent kept", len(must(h.ListRunLogs(e.ctx, "r", nil, 100))(e.t).Lines), 12)
	})
}
