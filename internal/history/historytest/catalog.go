package historytest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

func schema(cols string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` + cols + `}}`)
}

func init() {
	register("catalog_record_and_detail", func(e *env) {
		h := e.open("a")
		in, out := "postgres://db/public.orders", "file:///lake/orders.jsonl"
		up := func(run string, at time.Time, sc json.RawMessage, n uint64) history.CatalogUpdate {
			return history.CatalogUpdate{RunID: run, Pipeline: "orders", Row: "default", RecordedAt: at,
				Sources: []history.DatasetObservation{{URI: in, Kind: "postgres", Role: history.RoleSource, Schema: sc, Records: n}},
				Sink:    history.DatasetObservation{URI: out, Kind: "jsonl", Role: history.RoleSink, Records: n}}
		}
		ok(e.t, h.CatalogRecord(e.ctx, up("r1", base, schema(`"id":{"type":"integer"}`), 10)))
		ok(e.t, h.CatalogRecord(e.ctx, up("r2", base.Add(time.Minute), schema(`"id":{"type":"integer"}`), 5)))
		ok(e.t, h.CatalogRecord(e.ctx, up("r3", base.Add(2*time.Minute), schema(`"id":{"type":"number"},"name":{"type":"string"}`), 7)))
		id := history.DatasetID(in)
		eq(e.t, "id width", len(id), 16)
		d := must(h.CatalogGetDataset(e.ctx, id))(e.t)
		if d == nil {
			e.t.Fatal("dataset missing")
		}
		eq(e.t, "runs", d.Runs, uint64(3))
		eq(e.t, "total", d.TotalRecords, uint64(22))
		eq(e.t, "last", d.LastRecords, uint64(7))
		eq(e.t, "schema versions", d.SchemaVersions, uint32(2))
		eq(e.t, "timeline", len(d.SchemaTimeline), 2)
		if d.SchemaTimeline[0].Diff != nil || d.SchemaTimeline[1].Diff == nil {
			e.t.Fatal("first version has no diff, the second has one")
		}
		eq(e.t, "stats newest first", d.Stats[0].RunID, "r3")
		eq(e.t, "stats", len(d.Stats), 3)
		eq(e.t, "downstream", len(d.Downstream), 1)
		eq(e.t, "upstream", len(d.Upstream), 0)
		eq(e.t, "edge runs", d.Downstream[0].Runs, uint64(3))
		sink := must(h.CatalogGetDataset(e.ctx, history.DatasetID(out)))(e.t)
		eq(e.t, "sink upstream", len(sink.Upstream), 1)
		eq(e.t, "no schema", sink.SchemaVersions, uint32(0))
		missing := must(h.CatalogGetDataset(e.ctx, "nope"))(e.t)
		if missing != nil {
			e.t.Fatal("unknown dataset")
		}
		// Annotate.
		owners := []string{" team-a ", "", "team-a", "team-b"}
		eq(e.t, "annotate unknown", must(h.CatalogAnnotate(e.ctx, "nope", history.CatalogAnnotation{Owners: &owners}))(e.t), false)
		eq(e.t, "annotate", must(h.CatalogAnnotate(e.ctx, id, history.CatalogAnnotation{Owners: &owners,
			Consumers: []history.CatalogConsumer{{Name: "bi", Kind: "dashboard", Contact: "x@y", RegisteredAt: base}}}))(e.t), true)
		d = must(h.CatalogGetDataset(e.ctx, id))(e.t)
		sameStrings(e.t, "owners", d.Owners, []string{"team-a", "team-b"})
		eq(e.t, "consumers", len(d.Consumers), 1)
		// Lineage.
		ok(e.t, h.CatalogRecord(e.ctx, history.CatalogUpdate{RunID: "r4", Pipeline: "p2", Row: "default", RecordedAt: base.Add(3 * time.Minute),
			Sources: []history.DatasetObservation{{URI: out, Kind: "jsonl", Role: history.RoleSource, Records: 1}},
			Sink:    history.DatasetObservation{URI: "s3://bucket/x", Kind: "s3", Role: history.RoleSink, Records: 1}}))
		all := must(h.CatalogLineage(e.ctx, nil, 0))(e.t)
		eq(e.t, "all edges", len(all), 2)
		eq(e.t, "newest first", all[0].LastRunID, "r4")
		one := must(h.CatalogLineage(e.ctx, &id, 1))(e.t)
		eq(e.t, "depth 1", len(one), 1)
		two := must(h.CatalogLineage(e.ctx, &id, 2))(e.t)
		eq(e.t, "depth 2", len(two), 2)
	})

	register("catalog_list_profiles_snapshots", func(e *env) {
		h := e.open("a")
		for i := 0; i < 5; i++ {
			ok(e.t, h.CatalogRecord(e.ctx, history.CatalogUpdate{RunID: fmt.Sprint("r", i), Pipeline: "p", Row: "default",
				RecordedAt: base.Add(time.Duration(i) * time.Minute),
				Sources:    []history.DatasetObservation{{URI: fmt.Sprintf("file:///in/%d.csv", i), Kind: "csv", Role: history.RoleSource, Records: 1}},
				Sink:       history.DatasetObservation{URI: "postgres://db/t", Kind: "postgres", Role: history.RoleSink, Records: 1}}))
		}
		pg := must(h.CatalogListDatasets(e.ctx, history.CatalogListFilter{Limit: 100}))(e.t)
		eq(e.t, "datasets", len(pg.Datasets), 6)
		csv := "csv"
		pg = must(h.CatalogListDatasets(e.ctx, history.CatalogListFilter{Kind: &csv, Limit: 2}))(e.t)
		eq(e.t, "page", len(pg.Datasets), 2)
		eq(e.t, "newest first", pg.Datasets[0].URI, "file:///in/4.csv")
		pg2 := must(h.CatalogListDatasets(e.ctx, history.CatalogListFilter{Kind: &csv, Limit: 10, Cursor: pg.NextCursor}))(e.t)
		eq(e.t, "rest", len(pg2.Datasets), 3)
		q := "IN/2"
		eq(e.t, "q", len(must(h.CatalogListDatasets(e.ctx, history.CatalogListFilter{Q: &q, Limit: 10}))(e.t).Datasets), 1)
		id := history.DatasetID("postgres://db/t")
		for i := 0; i < history.ProfileRetain+3; i++ {
			ok(e.t, h.CatalogRecordProfile(e.ctx, id, history.CatalogProfileRecord{RunID: fmt.Sprint("r", i), Pipeline: "p", Row: "default",
				RecordedAt: base.Add(time.Duration(i) * time.Second), Profile: json.RawMessage(`{"columns":[]}`)}))
		}
		ok(e.t, h.CatalogRecordProfile(e.ctx, id, history.CatalogProfileRecord{RunID: "dup", RecordedAt: base.Add(5 * time.Second), Profile: json.RawMessage(`{}`)}))
		ph := must(h.CatalogProfileHistory(e.ctx, id, 1000))(e.t)
		eq(e.t, "capped", len(ph), history.ProfileRetain)
		eq(e.t, "newest", ph[0].RunID, fmt.Sprint("r", history.ProfileRetain+2))
		d := must(h.CatalogGetDataset(e.ctx, id))(e.t)
		eq(e.t, "profile view", len(d.Profile.History), history.ProfileDetailLimit)
		eq(e.t, "stats per update once", len(d.Stats), 5)
		eq(e.t, "upstream", len(d.Upstream), 5)
		if s := must(h.CatalogLastConfigSnapshot(e.ctx, "p"))(e.t); s != nil {
			e.t.Fatal("no snapshot yet")
		}
		snap := history.ConfigSnapshot{Pipeline: "p", RecordedAt: base, FaucetVersion: "1.13.0", Rows: map[string]history.RowSnapshot{
			"default": {Source: history.ConnectorSnapshot{Kind: "csv", Config: json.RawMessage(`{"path":"x"}`)},
				Sink: history.ConnectorSnapshot{Kind: "jsonl", Config: json.RawMessage(`{}`)}, DeliveryGuarantee: "AtLeastOnce", OnError: "stop"}}}
		ok(e.t, h.CatalogRecordConfigSnapshot(e.ctx, snap))
		snap.FaucetVersion = "1.13.1"
		ok(e.t, h.CatalogRecordConfigSnapshot(e.ctx, snap))
		got := must(h.CatalogLastConfigSnapshot(e.ctx, "p"))(e.t)
		eq(e.t, "latest wins", got.FaucetVersion, "1.13.1")
		eq(e.t, "rows", got.Rows["default"].Source.Kind, "csv")
	})
}
