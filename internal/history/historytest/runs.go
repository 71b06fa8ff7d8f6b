package historytest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func init() {
	register("upsert_get_roundtrip", func(e *env) {
		h := e.open("a")
		r := run("r1", history.StatusRunning, base)
		started := base.Add(time.Second)
		r.StartedAt = &started
		r.Invocations = []history.InvocationRecord{{RowID: "default", RecordsWritten: 7, DurationMS: 12, Error: sp("boom")}}
		r.RecordsWritten = 7
		r.ConfigBody = sp("version: 1")
		f := history.FormatYAML
		r.ConfigFormat = &f
		r.Attempt = 2
		r.Tenant = sp("acme")
		r.Callback = &history.CallbackSpec{URL: "http://x", On: []history.RunStatus{history.StatusFailed}}
		r.DoctorReport = json.RawMessage(`{"ok":true}`)
		ok(e.t, h.Upsert(e.ctx, r))
		got := must(h.Get(e.ctx, "r1"))(e.t)
		if got == nil {
			e.t.Fatal("record missing after upsert")
		}
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(*got)
		eq(e.t, "body", string(b), string(a))
		missing := must(h.Get(e.ctx, "nope"))(e.t)
		if missing != nil {
			e.t.Fatal("unknown run should be nil")
		}
		// Full replace.
		r.Status = history.StatusCompleted
		r.Labels = nil
		ok(e.t, h.Upsert(e.ctx, r))
		got = must(h.Get(e.ctx, "r1"))(e.t)
		eq(e.t, "status", got.Status, history.StatusCompleted)
		eq(e.t, "labels", len(got.Labels), 0)
	})

	register("idempotency_claims", func(e *env) {
		h := e.open("a")
		w := time.Hour
		c := must(h.ClaimIdempotency(e.ctx, "k", "fp1", "r1", w))(e.t)
		eq(e.t, "first", c.Kind, history.ClaimFresh)
		c = must(h.ClaimIdempotency(e.ctx, "k", "fp1", "r2", w))(e.t)
		eq(e.t, "replay", c, history.Claim{Kind: history.ClaimReplay, RunID: "r1"})
		c = must(h.ClaimIdempotency(e.ctx, "k", "fp2", "r3", w))(e.t)
		eq(e.t, "conflict", c.Kind, history.ClaimConflict)
		// Expired claim is taken over.
		e.clk.Advance(2 * w)
		c = must(h.ClaimIdempotency(e.ctx, "k", "fp2", "r4", w))(e.t)
		eq(e.t, "takeover", c.Kind, history.ClaimFresh)
		c = must(h.ClaimIdempotency(e.ctx, "k", "fp2", "r5", w))(e.t)
		eq(e.t, "replay new owner", c, history.Claim{Kind: history.ClaimReplay, RunID: "r4"})
		// Window 0 disables dedup.
		c = must(h.ClaimIdempotency(e.ctx, "k", "fp9", "r6", 0))(e.t)
		eq(e.t, "window 0", c.Kind, history.ClaimFresh)
		// Release undoes a fresh claim.
		ok(e.t, h.ReleaseIdempotency(e.ctx, "r6"))
		c = must(h.ClaimIdempotency(e.ctx, "k", "fpX", "r7", w))(e.t)
		eq(e.t, "after release", c.Kind, history.ClaimFresh)
	})

	register("list_filters_and_keyset", func(e *env) {
		h := e.open("a")
		sts := []history.RunStatus{history.StatusCompleted, history.StatusFailed, history.StatusRunning, history.StatusQueued}
		for i := 0; i < 12; i++ {
			r := run(fmt.Sprintf("r%02d", i), sts[i%4], base.Add(time.Duration(i/2)*time.Minute))
			if i%3 == 0 {
				r.Name = sp("special")
			}
			ok(e.t, h.Upsert(e.ctx, r))
		}
		ok(e.t, h.TenantRunLink(e.ctx, "r03", "acme"))
		ok(e.t, h.TenantRunLink(e.ctx, "r04", "acme"))
		all := must(h.List(e.ctx, history.ListFilter{Limit: 100}))(e.t)
		sameStrings(e.t, "order", ids(all.Runs), []string{"r11", "r10", "r09", "r08", "r07", "r06", "r05", "r04", "r03", "r02", "r01", "r00"})
		if all.NextCursor != nil {
			e.t.Fatal("no next cursor on the last page")
		}
		one := must(h.List(e.ctx, history.ListFilter{Limit: 0}))(e.t)
		eq(e.t, "limit 0 means 1", len(one.Runs), 1)
		eq(e.t, "cursor", *one.NextCursor, "r11")
		// Paging covers everything exactly once.
		var seen []string
		var cur *string
		for {
			p := must(h.List(e.ctx, history.ListFilter{Limit: 5, Cursor: cur}))(e.t)
			seen = append(seen, ids(p.Runs)...)
			if p.NextCursor == nil {
				break
			}
			cur = p.NextCursor
		}
		sameStrings(e.t, "paged", seen, ids(all.Runs))
		st := must(h.List(e.ctx, history.ListFilter{Limit: 100, Status: []history.RunStatus{history.StatusCompleted, history.StatusFailed}}))(e.t)
		sameStrings(e.t, "status OR", ids(st.Runs), []string{"r09", "r08", "r05", "r04", "r01", "r00"})
		nm := must(h.List(e.ctx, history.ListFilter{Limit: 100, Name: sp("special")}))(e.t)
		sameStrings(e.t, "name", ids(nm.Runs), []string{"r09", "r06", "r03", "r00"})
		since, until := base.Add(2*time.Minute), base.Add(3*time.Minute)
		rg := must(h.List(e.ctx, history.ListFilter{Limit: 100, Since: &since, Until: &until}))(e.t)
		sameStrings(e.t, "inclusive range", ids(rg.Runs), []string{"r07", "r06", "r05", "r04"})
		tn := must(h.List(e.ctx, history.ListFilter{Limit: 100, Tenant: sp("acme")}))(e.t)
		sameStrings(e.t, "tenant", ids(tn.Runs), []string{"r04", "r03"})
		unk := must(h.List(e.ctx, history.ListFilter{Limit: 2, Cursor: sp("nope")}))(e.t)
		sameStrings(e.t, "unknown cursor ignored", ids(unk.Runs), []string{"r11", "r10"})
	})

	register("delete_outcomes", func(e *env) {
		h := e.open("a")
		eq(e.t, "missing", must(h.Delete(e.ctx, "x"))(e.t), history.NotFound)
		ok(e.t, h.Upsert(e.ctx, run("live", history.StatusRunning, base)))
		eq(e.t, "running", must(h.Delete(e.ctx, "live"))(e.t), history.StillRunning)
		r := run("done", history.StatusCompleted, base)
		ok(e.t, h.Upsert(e.ctx, r))
		must(h.ClaimIdempotency(e.ctx, "key-done", "fp", "done", time.Hour))(e.t)
		must(h.ClaimIdempotency(e.ctx, "key-other", "fp", "other", time.Hour))(e.t)
		ok(e.t, h.TenantRunLink(e.ctx, "done", "acme"))
		must(h.InsertShards(e.ctx, "done", []history.ShardInsert{{ShardID: "s1", Descriptor: json.RawMessage(`{}`)}}))(e.t)
		eq(e.t, "deleted", must(h.Delete(e.ctx, "done"))(e.t), history.Deleted)
		if g := must(h.Get(e.ctx, "done"))(e.t); g != nil {
			e.t.Fatal("deleted run still readable")
		}
		eq(e.t, "claim freed", must(h.ClaimIdempotency(e.ctx, "key-done", "fp2", "new", time.Hour))(e.t).Kind, history.ClaimFresh)
		eq(e.t, "other claim kept", must(h.ClaimIdempotency(e.ctx, "key-other", "fp", "z", time.Hour))(e.t).Kind, history.ClaimReplay)
		eq(e.t, "shards gone", must(h.ShardProgress(e.ctx, "done"))(e.t).Total, 0)
		eq(e.t, "tenant link gone", len(must(h.List(e.ctx, history.ListFilter{Limit: 10, Tenant: sp("acme")}))(e.t).Runs), 0)
	})

	register("purge_expired_rules", func(e *env) {
		h := e.open("a")
		old := e.clk.Now().Add(-10 * 24 * time.Hour)
		recent := e.clk.Now().Add(-time.Hour)
		mk := func(id string, st history.RunStatus, fin *time.Time) {
			r := run(id, st, old)
			r.FinishedAt = fin
			ok(e.t, h.Upsert(e.ctx, r))
		}
		mk("old-done", history.StatusCompleted, &old)
		mk("old-failed", history.StatusFailed, &old)
		mk("recent-done", history.StatusCompleted, &recent)
		mk("old-running", history.StatusRunning, nil)
		mk("done-no-finish", history.StatusCancelled, nil)
		must(h.InsertShards(e.ctx, "old-done", []history.ShardInsert{{ShardID: "s", Descriptor: json.RawMessage(`1`)}}))(e.t)
		must(h.InsertShards(e.ctx, "old-running", []history.ShardInsert{{ShardID: "s", Descriptor: json.RawMessage(`1`)}}))(e.t)
		ok(e.t, h.TenantRunLink(e.ctx, "old-done", "acme"))
		ok(e.t, h.TenantRunLink(e.ctx, "old-running", "acme"))
		// Never-purged data.
		ok(e.t, h.TenantUpsert(e.ctx, history.TenantRecord{ID: "acme", CreatedAt: old, UpdatedAt: old}))
		must(h.TemplateRegister(e.ctx, history.TemplateDraft{ID: "tpl", Body: "x"}))(e.t)
		ok(e.t, h.UsageRecord(e.ctx, history.UsageRecord{RunID: "old-done", Row: "default", Pipeline: "p", RecordedAt: old}))
		ok(e.t, h.ChangeUpsert(e.ctx, history.ChangeRequest{ID: "c1", Kind: history.ChangeRun, Status: history.ChangeExecuted, Requester: "bob", CreatedAt: old, UpdatedAt: old, ExpiresAt: old}))
		ok(e.t, h.CatalogRecord(e.ctx, history.CatalogUpdate{RunID: "old-done", Pipeline: "p", Row: "default", RecordedAt: old,
			Sources: []history.DatasetObservation{{URI: "file:///in", Kind: "csv", Role: history.RoleSource, Records: 1}},
			Sink:    history.DatasetObservation{URI: "file:///out", Kind: "jsonl", Role: history.RoleSink, Records: 1}}))
		ok(e.t, h.RecordAudit(e.ctx, history.AuditEntry{ID: "a-old", Timestamp: old, Principal: "p", Role: "admin", Action: "run.submit", Result: "ok"}))
		ok(e.t, h.RecordAudit(e.ctx, history.AuditEntry{ID: "a-new", Timestamp: recent, Principal: "p", Role: "admin", Action: "run.submit", Result: "ok"}))

		n := must(h.PurgeExpired(e.ctx, 7*24*time.Hour))(e.t)
		eq(e.t, "purged runs", n, 2)
		for id, want := range map[string]bool{"old-done": false, "old-failed": false, "recent-done": true, "old-running": true, "done-no-finish": true} {
			got := must(h.Get(e.ctx, id))(e.t) != nil
			eq(e.t, "kept "+id, got, want)
		}
		eq(e.t, "orphan shards swept", must(h.ShardProgress(e.ctx, "old-done"))(e.t).Total, 0)
		eq(e.t, "live shards kept", must(h.ShardProgress(e.ctx, "old-running"))(e.t).Total, 1)
		sameStrings(e.t, "tenant links", ids(must(h.List(e.ctx, history.ListFilter{Limit: 10, Tenant: sp("acme")}))(e.t).Runs), []string{"old-running"})
		if must(h.TenantGet(e.ctx, "acme"))(e.t) == nil {
			e.t.Fatal("tenant purged")
		}
		eq(e.t, "templates kept", len(must(h.TemplateList(e.ctx))(e.t)), 1)
		eq(e.t, "usage kept", len(must(h.UsageList(e.ctx, history.UsageFilter{}))(e.t)), 1)
		if must(h.ChangeGet(e.ctx, "c1"))(e.t) == nil {
			e.t.Fatal("change purged")
		}
		eq(e.t, "catalog kept", len(must(h.CatalogListDatasets(e.ctx, history.CatalogListFilter{Limit: 10}))(e.t).Datasets), 2)
		aud := must(h.ListAudit(e.ctx, history.AuditFilter{Limit: 10}))(e.t)
		eq(e.t, "audit trimmed", len(aud), 1)
		eq(e.t, "audit kept", aud[0].ID, "a-new")
	})

	register("purge_idempotency_retention", func(e *env) {
		h := e.b.Open(e.t, history.Options{InstanceID: "a", Now: e.clk.Now, IdemRetention: time.Hour})
		must(h.ClaimIdempotency(e.ctx, "old", "fp", "r1", 24*time.Hour))(e.t)
		e.clk.Advance(2 * time.Hour)
		must(h.ClaimIdempotency(e.ctx, "new", "fp", "r2", 24*time.Hour))(e.t)
		must(h.PurgeExpired(e.ctx, 7*24*time.Hour))(e.t)
		eq(e.t, "old claim purged", must(h.ClaimIdempotency(e.ctx, "old", "other", "r3", 24*time.Hour))(e.t).Kind, history.ClaimFresh)
		eq(e.t, "new claim kept", must(h.ClaimIdempotency(e.ctx, "new", "other", "r4", 24*time.Hour))(e.t).Kind, history.ClaimConflict)
	})
}
