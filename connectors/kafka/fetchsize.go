package kafka

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetch sizes left to faucet (fetch_max_bytes and fetch_max_partition_bytes
// 0, the default) follow the round trip to the brokers. franz-go asks for
// the next fetch only once the buffered one is polled, so a fetch has to
// carry what the source reads in one round trip: near brokers (a LAN) need
// little of it and far ones (across regions) four times more, and what a
// fetch carries is what the source holds decompressed and decoded.
const (
	nearRTT = 5 * time.Millisecond

	nearFetchBytes          = 256 << 10
	nearFetchPartitionBytes = 128 << 10
	farFetchBytes           = 1 << 20
	farFetchPartitionBytes  = 256 << 10
)

// fetchSizes are the limits a fetch asks for: the configured ones, and
// where the config leaves them at 0, the near or far defaults for rtt (a
// partition's never above the whole fetch's).
func fetchSizes(cfg SourceConfig, rtt time.Duration) (total, partition int) {
	total, partition = farFetchBytes, farFetchPartitionBytes
	if rtt < nearRTT {
		total, partition = nearFetchBytes, nearFetchPartitionBytes
	}
	if cfg.FetchMaxBytes > 0 {
		total = cfg.FetchMaxBytes
	}
	if cfg.FetchMaxPartitionBytes > 0 {
		partition = cfg.FetchMaxPartitionBytes
	}
	return total, min(partition, total)
}

// roundTrip is the shortest of three small requests to the cluster (a
// metadata request for no topic) on cl's open connection; an error
// counts as far.
func roundTrip(ctx context.Context, cl *kgo.Client) time.Duration {
	best := time.Duration(-1)
	for range 3 {
		req := kmsg.NewPtrMetadataRequest()
		req.Topics = []kmsg.MetadataRequestTopic{} // none (nil asks for all)
		start := time.Now()
		if _, err := req.RequestWith(ctx, cl); err != nil {
			return nearRTT // not under it: the far sizes
		}
		if d := time.Since(start); best < 0 || d < best {
			best = d
		}
	}
	return best
}
