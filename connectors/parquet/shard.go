package parquet

import (
	"context"
	"fmt"
	"os"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
)

// EnumerateShards splits the files into at most target shards by a hash
// of their paths (cluster mode B; see keyshard), each estimated by its
// files' sizes. One file, or target 1, is the whole data set. Open still
// reads and compares the footers of every file.
func (s *Source) EnumerateShards(ctx context.Context, target int) ([]connector.ShardSpec, error) {
	files, err := fileio.Expand(s.cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	items := make([]keyshard.Item, len(files))
	for i, f := range files {
		items[i].Name = f
		if st, err := os.Stat(f); err == nil {
			items[i].Size = st.Size()
		}
	}
	return keyshard.Enumerate(items, target), nil
}

// ApplyShard restricts the source to the files of one shard.
func (s *Source) ApplyShard(spec connector.ShardSpec) error {
	d, err := keyshard.Parse("parquet", spec)
	if err != nil {
		return err
	}
	s.shard = d
	return nil
}

var _ connector.Sharder = (*Source)(nil)
