package jsonl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// The shards of a glob read every file, so every row, exactly once.
func TestShardsCoverEveryFileOnce(t *testing.T) {
	dir := t.TempDir()
	id := 0
	for f := range 12 {
		var b strings.Builder
		b.WriteString("")
		for range 5 {
			fmt.Fprintf(&b, "{\"id\":%d,\"name\":\"n%d\"}\n", id, id)
			id++
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%02d.jsonl", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := connectortest.Cfg(t, "path", filepath.Join(dir, "*.jsonl"))
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := src.(connector.Sharder).EnumerateShards(context.Background(), 4)
	if err != nil || len(specs) < 2 {
		t.Fatalf("shards: %v %v", specs, err)
	}
	seen := map[string]int{}
	for _, sp := range specs {
		s, err := newSource(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.(connector.Sharder).ApplyShard(sp); err != nil {
			t.Fatal(err)
		}
		res, err := connectortest.Collect(context.Background(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) == 0 {
			t.Errorf("shard %s read nothing", sp.ID)
		}
		for _, r := range res.Records {
			v, _ := r.Get("id")
			seen[v.Text()]++
		}
	}
	if len(seen) != id {
		t.Fatalf("%d distinct rows, want %d", len(seen), id)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("row %s read %d times", k, n)
		}
	}
}
