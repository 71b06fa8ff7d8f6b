package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
)

// shard is the s3 source's part of a data set (cluster mode B): the
// objects whose key hashes (64-bit FNV-1a of the key, without bucket) to
// Index modulo Shards. Every key hashes to exactly one index, so the
// shards of one enumeration cover every object exactly once, whatever
// objects appear between enumeration and reading.
type shard struct {
	Shards int `json:"shards"`
	Index  int `json:"index"`
}

func (d shard) has(key string) bool {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()%uint64(d.Shards) == uint64(d.Index)
}

// filter keeps the objects of the shard, in order.
func (d shard) filter(objects []object) []object {
	var out []object
	for _, o := range objects {
		if d.has(o.key) {
			out = append(out, o)
		}
	}
	return out
}

// EnumerateShards lists the objects once and splits them into at most
// target shards, leaving out the indexes no key hashes to; each shard's
// size estimate is its objects' stored bytes. One object, or target 1, is
// the whole data set.
func (s *Source) EnumerateShards(ctx context.Context, target int) ([]connector.ShardSpec, error) {
	cl, err := s.conn.client(ctx)
	if err != nil {
		return nil, err
	}
	objects, err := s.lst.list(ctx, cl, s.conn)
	if err != nil {
		return nil, err
	}
	if target <= 1 || len(objects) <= 1 {
		return []connector.ShardSpec{connector.WholeShard()}, nil
	}
	n := min(target, len(objects))
	sizes := make([]int64, n)
	counts := make([]int, n)
	for _, o := range objects {
		h := fnv.New64a()
		h.Write([]byte(o.key))
		i := h.Sum64() % uint64(n)
		counts[i]++
		sizes[i] += o.size
	}
	var specs []connector.ShardSpec
	for i := range n {
		if counts[i] == 0 {
			continue
		}
		desc, _ := json.Marshal(shard{Shards: n, Index: i})
		size := sizes[i]
		specs = append(specs, connector.ShardSpec{ID: strconv.Itoa(i), Descriptor: desc, SizeEstimate: &size})
	}
	return specs, nil
}

// ApplyShard restricts the source to the objects of one shard.
func (s *Source) ApplyShard(spec connector.ShardSpec) error {
	raw := bytes.TrimSpace(spec.Descriptor)
	if len(raw) == 0 || string(raw) == "null" {
		s.shard = nil
		return nil
	}
	var d shard
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return fmt.Errorf("s3: shard %s: descriptor %s is not an s3 shard: %w", spec.ID, raw, err)
	}
	if d.Shards <= 0 || d.Index < 0 || d.Index >= d.Shards {
		return fmt.Errorf("s3: shard %s: descriptor %s: index must be in [0, shards)", spec.ID, raw)
	}
	s.shard = &d
	return nil
}

var _ connector.Sharder = (*Source)(nil)
