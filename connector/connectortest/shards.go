package connectortest

import (
	"context"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// ShardsCoverOnce enumerates target shards of the source newSource builds
// from c, reads every shard through a fresh source, and checks that the
// shards together read want distinct values of field key, each exactly
// once, and that no shard reads nothing.
func ShardsCoverOnce(t *testing.T, newSource func(connector.Config) (connector.Source, error), c connector.Config, target int, key string, want int) {
	t.Helper()
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	sh, ok := src.(connector.Sharder)
	if !ok {
		t.Fatalf("%T is not a connector.Sharder", src)
	}
	specs, err := sh.EnumerateShards(context.Background(), target)
	src.Close()
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
		res, err := Collect(context.Background(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) == 0 {
			t.Errorf("shard %s read nothing", sp.ID)
		}
		for _, r := range res.Records {
			v, _ := r.Get(key)
			seen[v.Text()]++
		}
	}
	if len(seen) != want {
		t.Fatalf("%d distinct values of %s read, want %d", len(seen), key, want)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s %s read %d times", key, k, n)
		}
	}
}
