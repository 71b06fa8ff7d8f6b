package keyshard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestEnumerateCoversEveryNameOnce(t *testing.T) {
	var items []Item
	for i := range 500 {
		items = append(items, Item{Name: fmt.Sprintf("data/part-%04d.csv", i), Size: int64(i)})
	}
	for _, target := range []int{2, 3, 4, 7, 1000} {
		specs := Enumerate(items, target)
		seen := map[string]int{}
		var total int64
		for _, sp := range specs {
			d, err := Parse("csv", sp)
			if err != nil || d == nil {
				t.Fatalf("target %d: %s: %v %v", target, sp.Descriptor, d, err)
			}
			total += *sp.SizeEstimate
			for _, it := range Filter(d, items, func(it Item) string { return it.Name }) {
				seen[it.Name]++
			}
		}
		if len(seen) != len(items) {
			t.Fatalf("target %d: %d of %d names in a shard", target, len(seen), len(items))
		}
		for name, n := range seen {
			if n != 1 {
				t.Fatalf("target %d: %s in %d shards", target, name, n)
			}
		}
		if total != 500*499/2 {
			t.Fatalf("target %d: size estimates add up to %d", target, total)
		}
		if len(specs) > min(target, len(items)) {
			t.Fatalf("target %d: %d shards", target, len(specs))
		}
	}
}

func TestWholeAndBadDescriptors(t *testing.T) {
	if specs := Enumerate([]Item{{Name: "a"}}, 4); len(specs) != 1 || specs[0].ID != "0" || string(specs[0].Descriptor) != "null" {
		t.Fatalf("one item: %v", specs)
	}
	if d, err := Parse("csv", connector.WholeShard()); d != nil || err != nil {
		t.Fatalf("whole: %v %v", d, err)
	}
	for _, raw := range []string{`{"shards":2,"index":2}`, `{"shards":0,"index":0}`, `{"key":"id"}`, `[1]`} {
		_, err := Parse("csv", connector.ShardSpec{ID: "1", Descriptor: []byte(raw)})
		if err == nil || !strings.HasPrefix(err.Error(), "csv: shard 1: descriptor") {
			t.Fatalf("%s: %v", raw, err)
		}
	}
}
