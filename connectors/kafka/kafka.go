package kafka

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "kafka",
		Summary: "Read every partition of Kafka topics from a per-partition offsets bookmark until max_messages or idle_timeout.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "kafka",
		Summary: "Produce each record as a JSON message to a fixed topic or one from a field; flush waits for every acknowledgement, exactly_once commits pages with a token in Kafka transactions.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}
