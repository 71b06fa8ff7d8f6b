package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// newClient builds a client for brokers (already validated) and checks
// within the open timeout that one of them answers, so that a wrong
// address fails Open with the address in the message rather than later.
func newClient(ctx context.Context, brokers string, log *slog.Logger, opts ...kgo.Opt) (*kgo.Client, error) {
	seeds, err := parseBrokers(brokers)
	if err != nil {
		return nil, err
	}
	opts = append([]kgo.Opt{kgo.SeedBrokers(seeds...), kgo.WithLogger(logAdapter{log})}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, fmt.Errorf("kafka: no broker of %s answered: %w", brokers, err)
	}
	return cl, nil
}

// metricsOpt turns franz-go's client metrics (KIP-714, on by default)
// off unless the config's client_metrics asks for them: a push compresses
// the metrics with the broker's preferred codec, with lz4 two 4 MiB
// blocks, more than the rest of a source's or sink's buffers.
func metricsOpt(enabled bool) []kgo.Opt {
	if enabled {
		return nil
	}
	return []kgo.Opt{kgo.DisableClientMetrics()}
}

// partitions returns the partition ids of each topic, failing for a topic
// the cluster does not have.
func partitions(ctx context.Context, cl *kgo.Client, topics []string) (map[string][]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	req.AllowAutoTopicCreation = false
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("kafka: read metadata of topics %s: %w", strings.Join(topics, ", "), err)
	}
	out := make(map[string][]int32, len(topics))
	for _, t := range resp.Topics {
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return nil, fmt.Errorf("kafka: topic %q does not exist", name)
			}
			return nil, fmt.Errorf("kafka: metadata of topic %q: %w", name, err)
		}
		for _, p := range t.Partitions {
			out[name] = append(out[name], p.Partition)
		}
	}
	for _, t := range topics {
		if len(out[t]) == 0 {
			return nil, fmt.Errorf("kafka: topic %q does not exist (no partitions in the cluster's metadata)", t)
		}
	}
	return out, nil
}

// logAdapter sends the client's warnings and errors to the run's logger.
type logAdapter struct{ log *slog.Logger }

func (l logAdapter) Level() kgo.LogLevel { return kgo.LogLevelWarn }

func (l logAdapter) Log(level kgo.LogLevel, msg string, kv ...any) {
	switch level {
	case kgo.LogLevelError:
		l.log.Error("kafka: "+msg, kv...)
	case kgo.LogLevelWarn:
		l.log.Warn("kafka: "+msg, kv...)
	}
}
