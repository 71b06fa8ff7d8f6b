package http

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestConformance(t *testing.T) {
	bad := func(kv ...any) connector.Value {
		return connectortest.Cfg(t, append([]any{"url", "http://127.0.0.1:1/in"}, kv...)...).Value
	}
	badSink := []connector.Value{
		connectortest.Cfg(t, "method", "POST").Value, // no url
		bad("url", "ftp://host/in"),
		bad("url", "/relative"),
		bad("method", "CONNECT"),
		bad("headers", map[string]any{"Bad Header": "x"}),
		bad("headers", map[string]any{"X-A": "line\nbreak"}),
		bad("batch_mode", map[string]any{"type": "Stream"}),
		bad("batch_mode", map[string]any{"type": "Array", "size": 3}),
		bad("batch_size", -1),
		bad("concurrency", 0),
		bad("max_retries", -2),
		bad("retry_backoff", -1),
		bad("auth", map[string]any{"type": "digest"}),
		bad("auth", map[string]any{"type": "api_key_query", "config": map[string]any{"param": "k"}}),
		bad("auth", map[string]any{"type": "oauth2", "config": map[string]any{"token_url": "not a url", "client_id": "a", "client_secret": "b"}}),
	}
	for _, mode := range []string{"Individual", "Array"} {
		t.Run(mode, func(t *testing.T) {
			connectortest.Run(t, connectortest.Factory{
				Name: "http",
				Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
					e := newEndpoint(t, nil)
					return connectortest.Cfg(t, "url", e.srv.URL, "batch_mode", map[string]any{"type": mode}, "batch_size", 300),
						func(t *testing.T) int { return e.count() }
				},
				BadSinkConfigs: badSink,
			})
		})
	}
}
