package nats

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "nats",
		Summary: "Read a core NATS subject (at-most-once) or a durable JetStream consumer, acknowledged after the sink committed (at-least-once).",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "nats",
		Summary: "Publish each record as a NATS message to a fixed subject or one from a field; mode jetstream waits for every stream acknowledgement.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}
