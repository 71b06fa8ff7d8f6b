package csv

import (
	"context"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
)

// EnumerateShards splits the input files into at most target shards by a
// hash of their paths (cluster mode B); one file is the whole data set.
func (s *Source) EnumerateShards(ctx context.Context, target int) ([]connector.ShardSpec, error) {
	items, err := s.in.ShardItems(s.cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("csv: %w", err)
	}
	return keyshard.Enumerate(items, target), nil
}

// ApplyShard restricts the source to the files of one shard.
func (s *Source) ApplyShard(spec connector.ShardSpec) error {
	d, err := keyshard.Parse("csv", spec)
	if err != nil {
		return err
	}
	s.shard = d
	return nil
}

var _ connector.Sharder = (*Source)(nil)
