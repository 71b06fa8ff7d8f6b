package parquet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// shard is the parquet source's part of a data set (cluster mode B): the
// files whose path hashes (32-bit FNV-1a of the path as the glob gives it)
// to Index modulo Shards, the split faucet-cli 1.x made. Open still reads
// and compares the footers of every file.
type shard struct {
	Shards int `json:"shards"`
	Index  int `json:"index"`
}

func (d shard) has(path string) bool {
	h := fnv.New32a()
	h.Write([]byte(path))
	return int(h.Sum32()%uint32(d.Shards)) == d.Index
}

// EnumerateShards splits the files into at most target shards; shards
// that no file hashes to are left out. One file, or target 1, is the
// whole data set.
func (s *Source) EnumerateShards(ctx context.Context, target int) ([]connector.ShardSpec, error) {
	files, err := fileio.Expand(s.cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	if target <= 1 || len(files) <= 1 {
		return []connector.ShardSpec{connector.WholeShard()}, nil
	}
	n := min(target, len(files))
	sizes := make([]int64, n)
	counts := make([]int, n)
	for _, f := range files {
		for i := range n {
			if (shard{Shards: n, Index: i}).has(f) {
				counts[i]++
				if st, err := os.Stat(f); err == nil {
					sizes[i] += st.Size()
				}
			}
		}
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

// ApplyShard restricts the source to the files of one shard.
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
		return fmt.Errorf("parquet: shard %s: descriptor %s is not a parquet shard: %w", spec.ID, raw, err)
	}
	if d.Shards <= 0 || d.Index < 0 || d.Index >= d.Shards {
		return fmt.Errorf("parquet: shard %s: descriptor %s: index must be in [0, shards)", spec.ID, raw)
	}
	s.shard = &d
	return nil
}

// inShard keeps the files of the applied shard, in order.
func (s *Source) inShard(files []string) []string {
	if s.shard == nil {
		return files
	}
	var out []string
	for _, f := range files {
		if s.shard.has(f) {
			out = append(out, f)
		}
	}
	return out
}

var _ connector.Sharder = (*Source)(nil)
