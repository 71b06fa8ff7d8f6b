package http

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSink(connector.SinkSpec{
		Name:    "http",
		Summary: "Send records to an HTTP endpoint, one JSON object per request (concurrently) or JSON arrays of batch_size; refused records (4xx) go to the DLQ.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}
