package parquet

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestShards(t *testing.T) {
	dir := t.TempDir()
	for i := range 7 {
		writeStructs(t, filepath.Join(dir, "part-"+strconv.Itoa(i)+".parquet"), flatRows(i*10+1, 3))
	}
	cfg := connectortest.Cfg(t, "path", filepath.Join(dir, "*.parquet"), "columns", []any{"id"})
	all, _ := readLines(t, cfg)
	if len(all) != 21 {
		t.Fatalf("read %d records, want 21", len(all))
	}
	enumerate := func(target int) []connector.ShardSpec {
		src, _ := newSource(cfg)
		specs, err := src.(*Source).EnumerateShards(context.Background(), target)
		if err != nil {
			t.Fatal(err)
		}
		return specs
	}
	read := func(spec connector.ShardSpec) []string {
		src, _ := newSource(cfg)
		if err := src.(*Source).ApplyShard(spec); err != nil {
			t.Fatal(err)
		}
		res, err := connectortest.Collect(context.Background(), src, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Records {
			out = append(out, string(connector.AppendRecordJSON(nil, r)))
		}
		return out
	}

	specs := enumerate(3)
	if len(specs) < 2 || len(specs) > 3 {
		t.Fatalf("%d shards for target 3 over 7 files", len(specs))
	}
	var union []string
	for _, sp := range specs {
		got := read(sp)
		if len(got) == 0 || sp.SizeEstimate == nil || *sp.SizeEstimate <= 0 {
			t.Errorf("shard %s: %d records, size %v", sp.ID, len(got), sp.SizeEstimate)
		}
		union = append(union, got...)
	}
	slices.Sort(union)
	want := slices.Clone(all)
	slices.Sort(want)
	if !slices.Equal(union, want) {
		t.Errorf("shards together read\n%v\nwant every record once:\n%v", union, want)
	}

	if got := enumerate(1); len(got) != 1 || got[0].ID != "0" || string(got[0].Descriptor) != "null" {
		t.Errorf("target 1: %+v, want the whole shard", got)
	}
	if got := read(connector.WholeShard()); len(got) != 21 {
		t.Errorf("whole shard read %d records", len(got))
	}
	src, _ := newSource(cfg)
	for _, bad := range []string{`{"shards":2,"index":2}`, `{"key":"id"}`, `"x"`} {
		if err := src.(*Source).ApplyShard(connector.ShardSpec{ID: "1", Descriptor: json.RawMessage(bad)}); err == nil {
			t.Errorf("descriptor %s: want an error", bad)
		}
	}
}
