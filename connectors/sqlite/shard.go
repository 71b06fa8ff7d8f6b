package sqlite

import (
	"context"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// ShardedSource is what newSource returns when `shard: {key}` is set: the
// source plus connector.Sharder (see sqlutil's shard.go for why only it).
type ShardedSource struct {
	*Source
	sqlutil.Sharding
}

func sharded(s *Source) *ShardedSource {
	return &ShardedSource{Source: s, Sharding: sqlutil.Sharding{
		Read:  &s.read,
		Where: func() string { return "sqlite: " + s.path + ": " + s.what() },
		Connect: func(context.Context) (sqlutil.BoundsFunc, func(), error) {
			db, err := openDB(s.path)
			if err != nil {
				return nil, nil, err
			}
			return sqlutil.DBBounds(db), func() { db.Close() }, nil
		},
	}}
}

var _ connector.Sharder = (*ShardedSource)(nil)
