package s3

import (
	"context"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
)

// EnumerateShards lists the objects once and splits them into at most
// target shards by a hash of their keys (without bucket; see keyshard),
// each estimated by its objects' stored bytes. Every key hashes to one
// shard, so the shards cover every object exactly once, whatever objects
// appear between enumeration and reading.
func (s *Source) EnumerateShards(ctx context.Context, target int) ([]connector.ShardSpec, error) {
	cl, err := s.conn.client(ctx)
	if err != nil {
		return nil, err
	}
	objects, err := s.lst.list(ctx, cl, s.conn)
	if err != nil {
		return nil, err
	}
	items := make([]keyshard.Item, len(objects))
	for i, o := range objects {
		items[i] = keyshard.Item{Name: o.key, Size: o.size}
	}
	return keyshard.Enumerate(items, target), nil
}

// ApplyShard restricts the source to the objects of one shard.
func (s *Source) ApplyShard(spec connector.ShardSpec) error {
	d, err := keyshard.Parse("s3", spec)
	if err != nil {
		return err
	}
	s.shard = d
	return nil
}

var _ connector.Sharder = (*Source)(nil)
