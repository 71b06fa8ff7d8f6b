package postgres

import (
	"context"
	"database/sql"

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
		Where: func() string { return "postgres: " + s.what() },
		Connect: func(ctx context.Context) (sqlutil.BoundsFunc, func(), error) {
			conn, err := connect(ctx, s.url)
			if err != nil {
				return nil, nil, err
			}
			probe := func(ctx context.Context, q string, args []any) (lo, hi sql.NullInt64, err error) {
				var l, h *int64
				err = conn.QueryRow(ctx, q, args...).Scan(&l, &h)
				if l != nil && h != nil {
					lo, hi = sql.NullInt64{Int64: *l, Valid: true}, sql.NullInt64{Int64: *h, Valid: true}
				}
				return lo, hi, err
			}
			return probe, func() { conn.Close(context.Background()) }, nil
		},
	}}
}

var _ connector.Sharder = (*ShardedSource)(nil)
