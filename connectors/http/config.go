package http

import (
	"math"
	nethttp "net/http"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/webclient"
)

// SinkConfig is the `config:` of an http sink: faucet-cli 1.x's keys, with
// method, auth, batch_mode, max_retries and concurrency optional, and
// `headers` configurable (1.x took them from the library API only).
type SinkConfig struct {
	URL          string                `json:"url" required:"true" doc:"Endpoint the records are sent to."`
	Method       string                `json:"method" default:"POST" doc:"HTTP method (POST, PUT, PATCH...)."`
	Headers      map[string]string     `json:"headers" doc:"Headers sent with every request (Content-Type: application/json unless set)."`
	Auth         *webclient.AuthConfig `json:"auth" doc:"Credentials: {type: none|bearer|basic|api_key|api_key_query|oauth2|custom, config: {...}} (default none)."`
	BatchMode    *BatchMode            `json:"batch_mode" doc:"{type: Individual}: one request per record, its JSON object as the body (the default); {type: Array}: a JSON array of up to batch_size records per request."`
	BatchSize    int                   `json:"batch_size" default:"1000" doc:"Array mode: records per request; 0 = the whole page."`
	Concurrency  int                   `json:"concurrency" default:"10" doc:"Individual mode: requests in flight at once."`
	MaxRetries   int                   `json:"max_retries" default:"3" doc:"Retries of a request after a transport error or a 5xx status (429s are waited out separately)."`
	RetryBackoff float64               `json:"retry_backoff" default:"1" doc:"Seconds before the first retry; doubled each retry (at most 60 s), with jitter."`
	Timeout      float64               `json:"timeout" default:"30" doc:"Seconds one request may take; 0 = no limit."`
}

// BatchMode is faucet-cli 1.x's `batch_mode: {type: Individual|Array}`.
type BatchMode struct {
	Type string `json:"type" doc:"Individual or Array."`
}

// array reports whether records go out as JSON arrays.
func (c *SinkConfig) array() bool {
	return c.BatchMode != nil && strings.EqualFold(c.BatchMode.Type, "array")
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if _, err := webclient.ParseHTTPURL(c.URL); err != nil {
		return connector.ConfigErrorf("url", "%v", err)
	}
	c.Method = strings.ToUpper(strings.TrimSpace(c.Method))
	switch c.Method {
	case nethttp.MethodPost, nethttp.MethodPut, nethttp.MethodPatch, nethttp.MethodDelete, nethttp.MethodGet:
	default:
		return connector.ConfigErrorf("method", "must be POST, PUT, PATCH, DELETE or GET, got %q", c.Method)
	}
	if err := webclient.CheckHeaders("headers", c.Headers); err != nil {
		return err
	}
	if err := c.Auth.Validate("auth"); err != nil {
		return err
	}
	if m := c.BatchMode; m != nil && !strings.EqualFold(m.Type, "individual") && !strings.EqualFold(m.Type, "array") {
		return connector.ConfigErrorf("batch_mode.type", "must be Individual or Array, got %q", m.Type)
	}
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	if c.Concurrency < 1 || c.Concurrency > 1000 {
		return connector.ConfigErrorf("concurrency", "must be between 1 and 1000, got %d", c.Concurrency)
	}
	if c.MaxRetries < 0 || c.MaxRetries > 100 {
		return connector.ConfigErrorf("max_retries", "must be between 0 and 100, got %d", c.MaxRetries)
	}
	for _, d := range []struct {
		key string
		v   float64
	}{{"retry_backoff", c.RetryBackoff}, {"timeout", c.Timeout}} {
		if d.v < 0 || math.IsNaN(d.v) || d.v > 86400 {
			return connector.ConfigErrorf(d.key, "must be between 0 and 86400 seconds, got %v", d.v)
		}
	}
	return nil
}
