package historytest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func init() {
	register("tenants_connections_sessions", func(e *env) {
		h := e.open("a")
		t := history.TenantRecord{ID: "acme", Name: sp("Acme"), Labels: map[string]string{"tier": "gold"}, CreatedAt: base, UpdatedAt: base, CreatedBy: "root"}
		ok(e.t, h.TenantUpsert(e.ctx, t))
		ok(e.t, h.TenantUpsert(e.ctx, history.TenantRecord{ID: "beta", CreatedAt: base, UpdatedAt: base}))
		t.Suspended = true
		ok(e.t, h.TenantUpsert(e.ctx, t))
		got := must(h.TenantGet(e.ctx, "acme"))(e.t)
		eq(e.t, "suspended", got.Suspended, true)
		eq(e.t, "labels", got.Labels["tier"], "gold")
		tl := must(h.TenantList(e.ctx))(e.t)
		eq(e.t, "list", len(tl), 2)
		eq(e.t, "ordered", tl[0].ID, "acme")
		for _, n := range []string{"zeta", "alpha"} {
			ok(e.t, h.ConnectionUpsert(e.ctx, history.ConnectionRecord{Tenant: "acme", Name: n, ProviderType: "postgres", Sealed: "FCT1...", Status: history.ConnectionActive, CreatedAt: base, UpdatedAt: base}))
		}
		ok(e.t, h.ConnectionUpsert(e.ctx, history.ConnectionRecord{Tenant: "acme", Name: "zeta", ProviderType: "postgres", Sealed: "x", Status: history.ConnectionNeedsReauth, CreatedAt: base, UpdatedAt: base}))
		cl := must(h.ConnectionList(e.ctx, "acme"))(e.t)
		eq(e.t, "connections", len(cl), 2)
		eq(e.t, "by name", cl[0].Name, "alpha")
		eq(e.t, "status updated", must(h.ConnectionGet(e.ctx, "acme", "zeta"))(e.t).Status, history.ConnectionNeedsReauth)
		eq(e.t, "delete conn", must(h.ConnectionDelete(e.ctx, "acme", "alpha"))(e.t), true)
		eq(e.t, "delete conn again", must(h.ConnectionDelete(e.ctx, "acme", "alpha"))(e.t), false)
		now := e.clk.Now()
		ok(e.t, h.ConnectSessionPut(e.ctx, history.ConnectSession{State: "old", Tenant: "beta", CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(-time.Minute)}))
		ok(e.t, h.ConnectSessionPut(e.ctx, history.ConnectSession{State: "s1", Tenant: "acme", Provider: "google", CreatedAt: now, ExpiresAt: now.Add(10 * time.Minute)}))
		if must(h.ConnectSessionTake(e.ctx, "old"))(e.t) != nil {
			e.t.Fatal("expired session must be purged by the next put")
		}
		if err := h.ConnectSessionPut(e.ctx, history.ConnectSession{State: "s1", Tenant: "acme", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}); err == nil {
			e.t.Fatal("duplicate session state must be an error")
		}
		s := must(h.ConnectSessionTake(e.ctx, "s1"))(e.t)
		eq(e.t, "taken", s.Provider, "google")
		if must(h.ConnectSessionTake(e.ctx, "s1"))(e.t) != nil {
			e.t.Fatal("a session is single use")
		}
		ok(e.t, h.TenantStateRefAdd(e.ctx, history.TenantStateRef{Tenant: "acme", Key: "k2", Spec: sp("plain:{}")}))
		ok(e.t, h.TenantStateRefAdd(e.ctx, history.TenantStateRef{Tenant: "acme", Key: "k1"}))
		ok(e.t, h.TenantStateRefAdd(e.ctx, history.TenantStateRef{Tenant: "acme", Key: "k2", Spec: sp("plain:changed")}))
		refs := must(h.TenantStateRefs(e.ctx, "acme"))(e.t)
		eq(e.t, "refs", len(refs), 2)
		eq(e.t, "ordered", refs[0].Key, "k1")
		eq(e.t, "first writer wins", *refs[1].Spec, "plain:{}")
	})

	register("tenant_delete_cascades", func(e *env) {
		h := e.open("a")
		now := e.clk.Now()
		for _, id := range []string{"acme", "beta"} {
			ok(e.t, h.TenantUpsert(e.ctx, history.TenantRecord{ID: id, CreatedAt: base, UpdatedAt: base}))
			ok(e.t, h.ConnectionUpsert(e.ctx, history.ConnectionRecord{Tenant: id, Name: "c", CreatedAt: base, UpdatedAt: base}))
			ok(e.t, h.ConnectSessionPut(e.ctx, history.ConnectSession{State: "st-" + id, Tenant: id, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))
			ok(e.t, h.TenantStateRefAdd(e.ctx, history.TenantStateRef{Tenant: id, Key: "k"}))
			r := run("run-"+id, history.StatusCompleted, base)
			r.Tenant = sp(id)
			ok(e.t, h.Upsert(e.ctx, r))
			ok(e.t, h.TenantRunLink(e.ctx, "run-"+id, id))
		}
		eq(e.t, "deleted", must(h.TenantDelete(e.ctx, "acme"))(e.t), true)
		eq(e.t, "again", must(h.TenantDelete(e.ctx, "acme"))(e.t), false)
		if must(h.TenantGet(e.ctx, "acme"))(e.t) != nil {
			e.t.Fatal("tenant remains")
		}
		eq(e.t, "connections", len(must(h.ConnectionList(e.ctx, "acme"))(e.t)), 0)
		eq(e.t, "state refs", len(must(h.TenantStateRefs(e.ctx, "acme"))(e.t)), 0)
		if must(h.ConnectSessionTake(e.ctx, "st-acme"))(e.t) != nil {
			e.t.Fatal("session remains")
		}
		eq(e.t, "run links", len(must(h.List(e.ctx, history.ListFilter{Limit: 10, Tenant: sp("acme")}))(e.t).Runs), 0)
		if must(h.Get(e.ctx, "run-acme"))(e.t) == nil {
			e.t.Fatal("run records are the caller's to delete")
		}
		// The other tenant is untouched.
		eq(e.t, "beta conns", len(must(h.ConnectionList(e.ctx, "beta"))(e.t)), 1)
		eq(e.t, "beta refs", len(must(h.TenantStateRefs(e.ctx, "beta"))(e.t)), 1)
		eq(e.t, "beta runs", len(must(h.List(e.ctx, history.ListFilter{Limit: 10, Tenant: sp("beta")}))(e.t).Runs), 1)
		if must(h.ConnectSessionTake(e.ctx, "st-beta"))(e.t) == nil {
			e.t.Fatal("beta session removed")
		}
	})

	register("local_outputs_ledger", func(e *env) {
		h := e.open("a")
		obs := func(path, pipe string, at time.Time, pre, repl bool) history.LocalOutputObservation {
			return history.LocalOutputObservation{Path: path, DatasetURI: "file://" + path, DatasetID: history.DatasetID("file://" + path),
				Kind: "jsonl", Pipeline: pipe, Row: "default", RunID: "r", PreExisting: pre, Replaced: repl, ObservedAt: at}
		}
		ok(e.t, h.LocalOutputRecord(e.ctx, obs("/data/b.jsonl", "p1", base, false, false)))
		ok(e.t, h.LocalOutputRecord(e.ctx, obs("/data/a.jsonl", "p1", base, true, false)))
		ok(e.t, h.LocalOutputRecord(e.ctx, obs("/data/c.jsonl", "p2", base.Add(time.Minute), false, false)))
		ok(e.t, h.LocalOutputRecord(e.ctx, obs("/data/a.jsonl", "p1", base.Add(-time.Minute), false, true)))
		id := history.OutputID("/data/a.jsonl")
		a := must(h.LocalOutputGet(e.ctx, id))(e.t)
		eq(e.t, "pre_existing sticky", a.PreExisting, true)
		eq(e.t, "replaced flips for pre-existing", a.Replaced, true)
		eq(e.t, "first written min", a.FirstWrittenAt.Equal(base.Add(-time.Minute)), true)
		eq(e.t, "last written max", a.LastWrittenAt.Equal(base), true)
		all := must(h.LocalOutputList(e.ctx, history.LocalOutputFilter{}))(e.t)
		got := []string{}
		for _, r := range all {
			got = append(got, r.Path)
		}
		sameStrings(e.t, "order", got, []string{"/data/c.jsonl", "/data/a.jsonl", "/data/b.jsonl"})
		eq(e.t, "limit", len(must(h.LocalOutputList(e.ctx, history.LocalOutputFilter{Limit: 1}))(e.t)), 1)
		eq(e.t, "pipeline", len(must(h.LocalOutputList(e.ctx, history.LocalOutputFilter{Pipeline: sp("p1")}))(e.t)), 2)
		eq(e.t, "mark deleted", must(h.LocalOutputMarkDeleted(e.ctx, id, base.Add(time.Hour), 123))(e.t), true)
		eq(e.t, "mark missing", must(h.LocalOutputMarkDeleted(e.ctx, "nope", base, 1))(e.t), false)
		eq(e.t, "hidden", len(must(h.LocalOutputList(e.ctx, history.LocalOutputFilter{}))(e.t)), 2)
		eq(e.t, "included", len(must(h.LocalOutputList(e.ctx, history.LocalOutputFilter{IncludeDeleted: true}))(e.t)), 3)
		a = must(h.LocalOutputGet(e.ctx, id))(e.t)
		eq(e.t, "bytes", *a.DeletedBytes, uint64(123))
		ok(e.t, h.LocalOutputRecord(e.ctx, obs("/data/a.jsonl", "p1", base.Add(2*time.Hour), false, false)))
		if must(h.LocalOutputGet(e.ctx, id))(e.t).DeletedAt != nil {
			e.t.Fatal("a rewrite un-expires the row")
		}
	})

	register("usage_and_changes", func(e *env) {
		h := e.open("a")
		for i := 0; i < 4; i++ {
			u := history.UsageRecord{RunID: fmt.Sprint("r", i), Row: "default", Pipeline: []string{"p", "q"}[i%2], SourceKind: "csv", SinkKind: "jsonl",
				RecordedAt: base.Add(time.Duration(i) * time.Minute), DurationMS: 5, Usage: json.RawMessage(`{"records":3}`),
				Cost: history.CostEstimate{Currency: "USD", Total: 0.5}}
			if i == 3 {
				u.Tenant = sp("acme")
			}
			ok(e.t, h.UsageRecord(e.ctx, u))
		}
		ok(e.t, h.UsageRecord(e.ctx, history.UsageRecord{RunID: "r0", Row: "default", Pipeline: "zzz", RecordedAt: base}))
		all := must(h.UsageList(e.ctx, history.UsageFilter{}))(e.t)
		eq(e.t, "dedup per (run,row)", len(all), 4)
		eq(e.t, "newest first", all[0].RunID, "r3")
		eq(e.t, "body kept", string(all[0].Usage), `{"records":3}`)
		s, u := base.Add(time.Minute), base.Add(3*time.Minute)
		eq(e.t, "half-open", len(must(h.UsageList(e.ctx, history.UsageFilter{Since: &s, Until: &u}))(e.t)), 2)
		eq(e.t, "pipeline", len(must(h.UsageList(e.ctx, history.UsageFilter{Pipeline: sp("p")}))(e.t)), 2)
		eq(e.t, "tenant", len(must(h.UsageList(e.ctx, history.UsageFilter{Tenant: sp("acme")}))(e.t)), 1)
		eq(e.t, "limit", len(must(h.UsageList(e.ctx, history.UsageFilter{Limit: 3}))(e.t)), 3)
		eq(e.t, "delete runs", must(h.UsageDeleteRuns(e.ctx, []string{"r0", "r1", "zz"}))(e.t), 2)
		eq(e.t, "left", len(must(h.UsageList(e.ctx, history.UsageFilter{}))(e.t)), 2)

		for i := 0; i < 4; i++ {
			c := history.ChangeRequest{ID: fmt.Sprint("c", i), Kind: history.ChangeRun, Status: history.ChangePending, Requester: []string{"ann", "ben"}[i%2],
				RequesterRole: "operator", Payload: json.RawMessage(`{"config":"x"}`), RequiredApprovals: 1,
				CreatedAt: base.Add(time.Duration(i/2) * time.Minute), UpdatedAt: base, ExpiresAt: base.Add(time.Hour)}
			if i == 0 {
				c.Tenant = sp("acme")
			}
			ok(e.t, h.ChangeUpsert(e.ctx, c))
		}
		c1 := must(h.ChangeGet(e.ctx, "c1"))(e.t)
		c1.Status = history.ChangeApproved
		c1.Approvals = []history.ChangeApproval{{Principal: "boss", Role: "admin", At: base}}
		ok(e.t, h.ChangeUpsert(e.ctx, *c1))
		cl := must(h.ChangeList(e.ctx, history.ChangeListFilter{}))(e.t)
		got := []string{}
		for _, c := range cl {
			got = append(got, c.ID)
		}
		sameStrings(e.t, "created desc, id asc", got, []string{"c2", "c3", "c0", "c1"})
		st := history.ChangeApproved
		eq(e.t, "status", len(must(h.ChangeList(e.ctx, history.ChangeListFilter{Status: &st}))(e.t)), 1)
		eq(e.t, "requester", len(must(h.ChangeList(e.ctx, history.ChangeListFilter{Requester: sp("ann")}))(e.t)), 2)
		eq(e.t, "tenant", len(must(h.ChangeList(e.ctx, history.ChangeListFilter{Tenant: sp("acme"), Limit: 1}))(e.t)), 1)
		eq(e.t, "limit", len(must(h.ChangeList(e.ctx, history.ChangeListFilter{Limit: 2}))(e.t)), 2)
		eq(e.t, "approvals", len(must(h.ChangeGet(e.ctx, "c1"))(e.t).Approvals), 1)
		eq(e.t, "delete", must(h.ChangeDelete(e.ctx, "c1"))(e.t), true)
		eq(e.t, "delete again", must(h.ChangeDelete(e.ctx, "c1"))(e.t), false)
		if must(h.ChangeGet(e.ctx, "c1"))(e.t) != nil {
			e.t.Fatal("deleted change readable")
		}
	})
}
