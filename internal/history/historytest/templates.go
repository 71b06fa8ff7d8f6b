package historytest

import (
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func u32(n uint32) *uint32 { return &n }

func init() {
	register("templates_registry", func(e *env) {
		h := e.open("a")
		d := history.TemplateDraft{ID: "orders", Kind: history.KindPipeline, Name: sp("Orders"), Body: "source: ${env:X}", Format: history.FormatYAML,
			Params: map[string]history.ParamSpec{"day": {Type: "string", Required: true}}}
		r1 := must(h.TemplateRegister(e.ctx, d))(e.t)
		eq(e.t, "v1", r1.Version, uint32(1))
		d.Body = "v2 body"
		eq(e.t, "v2", must(h.TemplateRegister(e.ctx, d))(e.t).Version, uint32(2))
		must(h.TemplateRegister(e.ctx, history.TemplateDraft{ID: "other", Body: "b"}))(e.t)
		eq(e.t, "latest", must(h.TemplateGet(e.ctx, "orders", nil))(e.t).Body, "v2 body")
		eq(e.t, "pinned", must(h.TemplateGet(e.ctx, "orders", u32(1)))(e.t).Body, "source: ${env:X}")
		if must(h.TemplateGet(e.ctx, "orders", u32(9)))(e.t) != nil || must(h.TemplateGet(e.ctx, "none", nil))(e.t) != nil {
			e.t.Fatal("missing template must be nil")
		}
		ls := must(h.TemplateList(e.ctx))(e.t)
		eq(e.t, "list", len(ls), 2)
		for _, s := range ls {
			if s.ID == "orders" {
				eq(e.t, "latest per id", s.Version, uint32(2))
			}
		}
		sameU32(e, "versions", must(h.TemplateVersions(e.ctx, "orders"))(e.t), []uint32{2, 1})
		// Launches.
		s1 := must(h.TemplateLaunch(e.ctx, "orders", 1, sp("alice")))(e.t)
		eq(e.t, "seq 1", *s1, uint32(1))
		if must(h.TemplateLaunch(e.ctx, "orders", 1, nil))(e.t) != nil {
			e.t.Fatal("re-launching the stable version must be a no-op")
		}
		eq(e.t, "seq 2", *must(h.TemplateLaunch(e.ctx, "orders", 2, nil))(e.t), uint32(2))
		ll := must(h.TemplateLaunches(e.ctx, "orders"))(e.t)
		eq(e.t, "launches", len(ll), 2)
		eq(e.t, "newest first", ll[0].Version, uint32(2))
		eq(e.t, "by", *ll[1].LaunchedBy, "alice")
		// Tags.
		ok(e.t, h.TemplateSetTag(e.ctx, "orders", "prod", 1))
		ok(e.t, h.TemplateSetTag(e.ctx, "orders", "dev", 2))
		ok(e.t, h.TemplateSetTag(e.ctx, "orders", "prod", 2))
		tg := must(h.TemplateTags(e.ctx, "orders"))(e.t)
		eq(e.t, "tags", len(tg), 2)
		eq(e.t, "upsert tag", tg["prod"], uint32(2))
		eq(e.t, "delete tag", must(h.TemplateDeleteTag(e.ctx, "orders", "dev"))(e.t), true)
		eq(e.t, "delete tag again", must(h.TemplateDeleteTag(e.ctx, "orders", "dev"))(e.t), false)
		// Deprecations and state.
		st := must(history.TemplateStateOf(e.ctx, h, "orders"))(e.t)
		eq(e.t, "launched", st.Status, history.TemplateLaunchedStatus)
		eq(e.t, "stable", *st.Stable, uint32(2))
		eq(e.t, "previous", *st.Previous, uint32(1))
		ok(e.t, h.TemplateSetVersionDeprecation(e.ctx, "orders", 2, &history.DeprecationRecord{DeprecatedAt: base, Reason: sp("bad")}))
		vd := must(h.TemplateVersionDeprecations(e.ctx, "orders"))(e.t)
		eq(e.t, "version deprecations", len(vd), 1)
		eq(e.t, "reason", *vd[0].Reason, "bad")
		st = must(history.TemplateStateOf(e.ctx, h, "orders"))(e.t)
		eq(e.t, "newest skips deprecated", *st.Newest, uint32(1))
		ok(e.t, h.TemplateSetDeprecation(e.ctx, "orders", &history.DeprecationRecord{DeprecatedAt: base, DeprecatedBy: sp("bob")}))
		dep := must(h.TemplateDeprecation(e.ctx, "orders"))(e.t)
		eq(e.t, "deprecated at", dep.DeprecatedAt.Equal(base), true)
		eq(e.t, "deprecated status", must(history.TemplateStateOf(e.ctx, h, "orders"))(e.t).Status, history.TemplateDeprecatedStatus)
		ok(e.t, h.TemplateSetDeprecation(e.ctx, "orders", nil))
		if must(h.TemplateDeprecation(e.ctx, "orders"))(e.t) != nil {
			e.t.Fatal("deprecation not cleared")
		}
		// Deleting a version drops what points at it.
		eq(e.t, "delete v2", must(h.TemplateDelete(e.ctx, "orders", u32(2)))(e.t), 1)
		eq(e.t, "tags gone", len(must(h.TemplateTags(e.ctx, "orders"))(e.t)), 0)
		eq(e.t, "launches of v2 gone", len(must(h.TemplateLaunches(e.ctx, "orders"))(e.t)), 1)
		eq(e.t, "version deprecation gone", len(must(h.TemplateVersionDeprecations(e.ctx, "orders"))(e.t)), 0)
		eq(e.t, "delete all", must(h.TemplateDelete(e.ctx, "orders", nil))(e.t), 1)
		eq(e.t, "gone", len(must(h.TemplateVersions(e.ctx, "orders"))(e.t)), 0)
		eq(e.t, "launches gone", len(must(h.TemplateLaunches(e.ctx, "orders"))(e.t)), 0)
	})

	register("templates_prune_to_retention", func(e *env) {
		h := e.open("a")
		for i := 0; i < history.TemplateVersionRetain+3; i++ {
			must(h.TemplateRegister(e.ctx, history.TemplateDraft{ID: "t", Body: "b"}))(e.t)
		}
		vs := must(h.TemplateVersions(e.ctx, "t"))(e.t)
		eq(e.t, "kept", len(vs), history.TemplateVersionRetain)
		eq(e.t, "newest", vs[0], uint32(history.TemplateVersionRetain+3))
		eq(e.t, "oldest kept", vs[len(vs)-1], uint32(4))
		r := must(h.TemplateGet(e.ctx, "t", nil))(e.t)
		eq(e.t, "kind default", r.Kind, history.KindPipeline)
		if time.Since(r.CreatedAt) > time.Hour*24*365*10 {
			e.t.Fatal("created_at not stamped")
		}
	})
}

func sameU32(e *env, what string, got, want []uint32) {
	e.t.Helper()
	if len(got) != len(want) {
		e.t.Fatalf("%s: got %v want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			e.t.Fatalf("%s: got %v want %v", what, got, want)
		}
	}
}
