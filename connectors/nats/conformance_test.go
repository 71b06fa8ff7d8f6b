package nats

import (
	"context"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestConformance(t *testing.T) {
	e := newEnv(t)
	connectortest.Run(t, connectortest.Factory{
		Name:     "nats",
		KeyField: "id",
		// A JetStream stream of n messages {"id": 1..n}, read by a new
		// durable consumer. The suite does not commit, so the consumer's
		// ack window must hold the whole stream.
		Source: func(t *testing.T, n int) connector.Config {
			s := (&env{}).connect(t, e.url).withStream(t, false)
			s.ids(t, s.subject+".items", 1, n)
			return s.jsSource("conformance", "max_messages", n, "idle_timeout_secs", 5, "max_ack_pending", n+1000)
		},
		MissingSource: func(t *testing.T) connector.Config {
			return e.jsSource("c", "idle_timeout_secs", 1, "jetstream_stream", unique("NO_SUCH_STREAM"))
		},
		StreamRecords: 50_000,
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			s := (&env{}).connect(t, e.url).withStream(t, false)
			return cfg("servers", []any{e.url}, "subject", s.subject+".out", "mode", "jetstream", "jetstream_stream", s.stream),
				func(t *testing.T) int {
					st, err := s.js.Stream(context.Background(), s.stream)
					if err != nil {
						t.Fatal(err)
					}
					info, err := st.Info(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					return int(info.State.Msgs)
				}
		},
		BadSourceConfigs: []connector.Value{
			cfg("subject", "a.b").Value, // no terminator
			cfg("subject", "a b", "idle_timeout_secs", 1).Value,
			cfg("jetstream_stream", "S", "idle_timeout_secs", 1).Value,
			cfg("servers", []any{"http://x:1"}, "subject", "a", "max_messages", 1).Value,
		},
		BadSinkConfigs: []connector.Value{
			cfg("servers", []any{e.url}).Value,
			cfg("subject", "a.*").Value,
			cfg("subject", "a", "value_format", "string").Value,
		},
	})
}
