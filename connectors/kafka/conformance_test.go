package kafka

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Factory{
		Name: "kafka",
		// One partition, so offsets strictly increase in stream order.
		KeyField: "offset",
		Source: func(t *testing.T, n int) connector.Config {
			k := newCluster(t, 1, "in")
			k.ids(t, "in", 0, 1, n)
			return k.source(t, "topics", []any{"in"}, "auto_offset_reset", "earliest", "max_messages", n, "idle_timeout", 5)
		},
		MissingSource: func(t *testing.T) connector.Config {
			k := newCluster(t, 1, "in")
			return k.source(t, "topics", []any{"no_such_topic"}, "idle_timeout", 1)
		},
		StreamRecords: 20_000,
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			k := newCluster(t, 3, "out")
			return cfg(t, "brokers", k.brokers, "topic", map[string]any{"type": "fixed", "name": "out"}),
				func(t *testing.T) int { return highWater(t, k, "out") }
		},
		BadSourceConfigs: []connector.Value{
			cfg(t, "brokers", "localhost:9092", "topics", []any{"a"}).Value, // no terminator
			cfg(t, "brokers", "localhost", "topics", []any{"a"}, "max_messages", 1).Value,
			cfg(t, "brokers", "localhost:9092", "topics", []any{}, "max_messages", 1).Value,
			cfg(t, "brokers", "localhost:9092", "topics", []any{"a b"}, "max_messages", 1).Value,
			cfg(t, "brokers", "localhost:9092", "topics", []any{"a"}, "idle_timeout", 1, "batch_size", 0).Value,
		},
		BadSinkConfigs: []connector.Value{
			cfg(t, "brokers", "localhost:9092").Value,
			cfg(t, "brokers", "localhost:9092", "topic", map[string]any{"type": "fixed"}).Value,
			cfg(t, "brokers", "localhost:9092", "topic", map[string]any{"type": "from_path", "path": "table"}).Value,
			cfg(t, "brokers", "localhost:9092", "topic", map[string]any{"type": "fixed", "name": "a"}, "acks", "leader").Value,
			cfg(t, "brokers", "localhost:9092", "topic", map[string]any{"type": "fixed", "name": "a"}, "key_path", "$.a[0]").Value,
		},
	})
}
