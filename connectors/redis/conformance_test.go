package redis

import (
	"context"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// The suite runs once per mode: list and stream read records with an
// increasing id (the stream also round-trips its bookmark), keys reads in
// SCAN order (no order to check).
func TestConformance(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	var seq int
	fresh := func(name string) string {
		seq++
		return r.key(name + "-" + itoa(seq))
	}
	wrongType := func(t *testing.T) string {
		k := fresh("hash")
		r.c.HSet(ctx, k, "a", "1")
		return k
	}
	bad := []connector.Value{
		connectortest.Cfg(t, "url", r.url).Value, // no source_type
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Set", "key": "k"}).Value,
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List"}).Value,
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Keys"}).Value,
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": "k", "pattern": "p*"}).Value,
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": "k", "group": "g"}).Value,
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": "k", "extra": 1}).Value,
		connectortest.Cfg(t, "url", "http://x", "source_type", map[string]any{"type": "List", "key": "k"}).Value,
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": "k"}, "batch_size", -1).Value,
		connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": "k"}, "max_records", -1).Value,
	}
	badSink := []connector.Value{
		connectortest.Cfg(t, "url", r.url).Value, // no sink_type
		connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "Hash", "key": "k"}).Value,
		connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List"}).Value,
		connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "KeyValue"}).Value,
		connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "KeyValue", "key_field": "id", "ttl": -1}).Value,
		connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List", "key": "k", "ttl": 5}).Value,
		connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List", "key": "k", "fields": map[string]any{"a": "b"}}).Value,
		connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List", "key": "k"}, "batch_size", 2_000_000).Value,
	}
	listSink := func(t *testing.T) (connector.Config, func(t *testing.T) int) {
		k := fresh("out-list")
		return connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List", "key": k}, "batch_size", 700),
			func(t *testing.T) int { return int(r.c.LLen(ctx, k).Val()) }
	}

	t.Run("list", func(t *testing.T) {
		connectortest.Run(t, connectortest.Factory{
			Name:     "redis",
			KeyField: "id",
			Source: func(t *testing.T, n int) connector.Config {
				k := fresh("list")
				r.loadList(t, k, n)
				return connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": k})
			},
			MissingSource: func(t *testing.T) connector.Config {
				return connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": wrongType(t)})
			},
			Sink:             listSink,
			BadSourceConfigs: bad,
			BadSinkConfigs:   badSink,
		})
	})
	t.Run("stream", func(t *testing.T) {
		streamCfg := func(t *testing.T, n int) connector.Config {
			k := fresh("stream")
			r.loadStream(t, k, 1, n)
			return connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Stream", "key": k}, "batch_size", 500)
		}
		connectortest.Run(t, connectortest.Factory{
			Name:          "redis",
			KeyField:      "id",
			PageSize:      500,
			Source:        streamCfg,
			Incremental:   streamCfg,
			StreamRecords: 100_000,
			MissingSource: func(t *testing.T) connector.Config {
				return connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Stream", "key": wrongType(t)})
			},
			Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
				k := fresh("out-stream")
				return connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "Stream", "key": k}),
					func(t *testing.T) int { return int(r.c.XLen(ctx, k).Val()) }
			},
		})
	})
	t.Run("keys", func(t *testing.T) {
		connectortest.Run(t, connectortest.Factory{
			Name: "redis",
			Source: func(t *testing.T, n int) connector.Config {
				base := fresh("keys") + ":"
				r.loadKeys(t, base, n)
				return connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Keys", "pattern": base + "*"})
			},
			MissingSource: func(t *testing.T) connector.Config {
				return connectortest.Cfg(t, "url", "redis://127.0.0.1:1/0", "source_type", map[string]any{"type": "Keys", "pattern": "x*"})
			},
			StreamRecords: 100_000,
			Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
				base := fresh("out-kv") + ":"
				return connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "KeyValue", "key_field": "id", "key_prefix": base}),
					func(t *testing.T) int {
						n := 0
						iter := r.c.Scan(ctx, 0, base+"*", 1000).Iterator()
						for iter.Next(ctx) {
							n++
						}
						return n
					}
			},
		})
	})
}

func itoa(i int) string { return connector.Int(int64(i)).Text() }
