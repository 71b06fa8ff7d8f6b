package fileio

import (
	"context"
	"fmt"
	"os"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
)

// ShardItems lists the inputs pattern names with their sizes (0 when an
// input is not a local file), for keyshard.Enumerate.
func (in *Inputs) ShardItems(pattern string) ([]keyshard.Item, error) {
	names, err := in.Expand(pattern)
	if err != nil {
		return nil, err
	}
	items := make([]keyshard.Item, len(names))
	for i, n := range names {
		items[i].Name = n
		if in == nil {
			if st, err := os.Stat(n); err == nil {
				items[i].Size = st.Size()
			}
		}
	}
	return items, nil
}

// InShard keeps, in order, the inputs of shard d (all when d is nil). A
// shard left without input (its files were removed since the shards were
// enumerated) is an error naming it.
func InShard(d *keyshard.Shard, names []string) ([]string, error) {
	out := keyshard.Filter(d, names, func(n string) string { return n })
	if len(out) == 0 && d != nil {
		return nil, fmt.Errorf("shard %d of %d: none of the %d input(s) belongs to it any more", d.Index, d.Shards, len(names))
	}
	return out, nil
}

// Sharding is the input side of a file source that cluster mode B can
// split: where its files come from and the shard applied to them. Embedded
// in the source, it is the source's connector.Sharder.
type Sharding struct {
	Connector string          // the connector's name, for errors
	Pattern   string          // the file or glob the source reads
	In        *Inputs         // nil: local files
	Applied   *keyshard.Shard // the applied shard, or nil for every input
}

// Files lists the inputs to read, in order: those of the applied shard.
func (s *Sharding) Files() ([]string, error) {
	files, err := s.In.Expand(s.Pattern)
	if err == nil {
		files, err = InShard(s.Applied, files)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Connector, err)
	}
	return files, nil
}

// EnumerateShards splits the inputs into at most target shards by a hash
// of their names, each estimated by its files' sizes; one input, or
// target 1, is the whole data set.
func (s *Sharding) EnumerateShards(ctx context.Context, target int) ([]connector.ShardSpec, error) {
	items, err := s.In.ShardItems(s.Pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Connector, err)
	}
	return keyshard.Enumerate(items, target), nil
}

// ApplyShard restricts the source to the inputs of one shard.
func (s *Sharding) ApplyShard(spec connector.ShardSpec) error {
	d, err := keyshard.Parse(s.Connector, spec)
	if err != nil {
		return err
	}
	s.Applied = d
	return nil
}
