package connectortest

import (
	"context"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// ShardCounts enumerates target shards of the source newSource builds
// from c, reads every shard through a fresh source, and counts how often
// each value of field key was read across all shards (every record read
// exactly once gives a count of 1 for each). A shard that reads nothing
// fails the test.
func ShardCounts(t *testing.T, newSource func(connector.Config) (connector.Source, error), c connector.Config, target int, key string) map[string]int {
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
	return seen
}
