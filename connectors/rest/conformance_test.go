package rest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// numbersAPI serves records {id, name, score} with ids 1..n in pages of
// size, cursor-paged ({"data": [...], "next": "<last id>"}).
func numbersAPI(t *testing.T, n, size int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, _ := strconv.Atoi(r.URL.Query().Get("after"))
		to := min(after+size, n)
		b := make([]byte, 0, 64*(to-after)+64)
		b = append(b, `{"data":[`...)
		for id := after + 1; id <= to; id++ {
			if id > after+1 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = strconv.AppendInt(b, int64(id), 10)
			b = append(b, `,"name":"item-`...)
			b = strconv.AppendInt(b, int64(id), 10)
			b = append(b, `","score":`...)
			b = strconv.AppendFloat(b, float64(id)/4, 'f', -1, 64)
			b = append(b, '}')
		}
		b = append(b, `],"next":`...)
		if to < n {
			b = strconv.AppendQuote(b, strconv.Itoa(to))
		} else {
			b = append(b, "null"...)
		}
		b = append(b, '}')
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestConformance(t *testing.T) {
	const size = 500
	cursor := map[string]any{"type": "cursor", "next_token_path": "$.next", "param_name": "after"}
	cfg := func(t *testing.T, n int, extra ...any) connector.Config {
		return connectortest.Cfg(t, append([]any{"base_url", numbersAPI(t, n, size), "path", "/numbers", "records_path", "$.data[*]", "pagination", cursor}, extra...)...)
	}
	missing := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(missing.Close)
	bad := func(kv ...any) connector.Value {
		return connectortest.Cfg(t, append([]any{"base_url", "http://127.0.0.1:1"}, kv...)...).Value
	}
	badConfigs := []connector.Value{
		connectortest.Cfg(t, "path", "/x").Value, // no base_url
		bad("base_url", "ftp://host/x"),
		bad("base_url", "not a url"),
		bad("method", "FETCH"),
		bad("path", "http://elsewhere/x"),
		bad("headers", map[string]any{"Bad Header": "x"}),
		bad("auth", map[string]any{"type": "kerberos"}),
		bad("auth", map[string]any{"type": "bearer"}),
		bad("auth", map[string]any{"type": "bearer", "config": map[string]any{"token": "t", "username": "u"}}),
		bad("auth", map[string]any{"type": "oauth2", "config": map[string]any{"token_url": "http://x/t", "client_id": "a", "client_secret": "b", "expiry_ratio": 1.5}}),
		bad("auth", map[string]any{"type": "api_key", "config": map[string]any{"header": "X Key", "value": "v"}}),
		bad("auth", map[string]any{"ref": "shared"}),
		bad("pagination", map[string]any{"type": "scroll"}),
		bad("pagination", map[string]any{"type": "cursor", "next_token_path": "$.next"}),
		bad("pagination", map[string]any{"type": "cursor", "next_token_path": "next", "param_name": "c"}),
		bad("pagination", map[string]any{"type": "offset"}),
		bad("pagination", map[string]any{"type": "offset", "limit": 0}),
		bad("pagination", map[string]any{"type": "link_header", "limit": 10}),
		bad("pagination", map[string]any{"type": "page_number", "param_name": "p", "page_size": 10}),
		bad("pagination", map[string]any{"type": "cursor_in_body", "next_token_path": "$.n", "body_cursor_field": "c"}, "body", []any{1}),
		bad("records_path", "$..id"),
		bad("max_pages", 0),
		bad("timeout", -1),
		bad("max_retries", -1),
		bad("tolerated_http_errors", []any{200}),
		bad("replication_method", map[string]any{"type": "Incremental"}),
		bad("replication_method", map[string]any{"type": "Sometimes"}, "replication_key", "id"),
		bad("replication_key_ascending", true),
		bad("partitions", []any{map[string]any{"region": "eu"}}),
		bad("response_format", "csv"),
	}
	connectortest.Run(t, connectortest.Factory{
		Name:     "rest",
		KeyField: "id",
		PageSize: size,
		Source:   func(t *testing.T, n int) connector.Config { return cfg(t, n) },
		Incremental: func(t *testing.T, n int) connector.Config {
			return cfg(t, n, "replication_key", "id", "replication_key_ascending", true)
		},
		MissingSource: func(t *testing.T) connector.Config {
			return connectortest.Cfg(t, "base_url", missing.URL, "path", "/nothing")
		},
		BadSourceConfigs: badConfigs,
		StreamRecords:    100_000,
	})
	// The default placement (bookmark on the last page only) passes the
	// bookmark round trip too.
	connectortest.Run(t, connectortest.Factory{
		Name:        "rest",
		KeyField:    "id",
		PageSize:    size,
		Source:      func(t *testing.T, n int) connector.Config { return cfg(t, n) },
		Incremental: func(t *testing.T, n int) connector.Config { return cfg(t, n, "replication_key", "id") },
	})
}
