// Package keyshard splits a set of named inputs (files, objects) into
// shards for cluster mode B by a hash of each name: a name belongs to
// shard FNV-1a-64(name) mod Shards, so the shards of one enumeration hold
// every name exactly once, whatever names appear between enumeration and
// reading (engine.md §6.3's hash-of-key split).
package keyshard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
)

// Shard is the descriptor of one shard: {"shards": N, "index": I}.
type Shard struct {
	Shards int `json:"shards"`
	Index  int `json:"index"`
}

// Has reports whether name belongs to the shard.
func (d Shard) Has(name string) bool {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()%uint64(d.Shards) == uint64(d.Index)
}

// Item is one input of an enumeration with its size, for the estimate.
type Item struct {
	Name string
	Size int64
}

// Enumerate splits items into at most target shards, leaving out the
// indexes no name hashes to; each estimate is the total size of its
// items. One item, or target 1, is the whole data set.
func Enumerate(items []Item, target int) []connector.ShardSpec {
	if target <= 1 || len(items) <= 1 {
		return []connector.ShardSpec{connector.WholeShard()}
	}
	n := min(target, len(items))
	sizes := make([]int64, n)
	counts := make([]int, n)
	for _, it := range items {
		h := fnv.New64a()
		h.Write([]byte(it.Name))
		i := h.Sum64() % uint64(n)
		counts[i]++
		sizes[i] += it.Size
	}
	var specs []connector.ShardSpec
	for i := range n {
		if counts[i] == 0 {
			continue
		}
		desc, _ := json.Marshal(Shard{Shards: n, Index: i})
		size := sizes[i]
		specs = append(specs, connector.ShardSpec{ID: strconv.Itoa(i), Descriptor: desc, SizeEstimate: &size})
	}
	return specs
}

// Parse reads a descriptor made by Enumerate; the whole shard (a null
// descriptor) is nil. what prefixes errors ("parquet", "s3").
func Parse(what string, spec connector.ShardSpec) (*Shard, error) {
	raw := bytes.TrimSpace(spec.Descriptor)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var d Shard
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: shard %s: descriptor %s is not a %s shard: %w", what, spec.ID, raw, what, err)
	}
	if d.Shards <= 0 || d.Index < 0 || d.Index >= d.Shards {
		return nil, fmt.Errorf("%s: shard %s: descriptor %s: index must be in [0, shards)", what, spec.ID, raw)
	}
	return &d, nil
}

// Filter keeps, in order, the items of shard d (all of them when d is
// nil); name gives an item's name.
func Filter[T any](d *Shard, items []T, name func(T) string) []T {
	if d == nil {
		return items
	}
	var out []T
	for _, it := range items {
		if d.Has(name(it)) {
			out = append(out, it)
		}
	}
	return out
}
