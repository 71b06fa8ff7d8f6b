package rest

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/webclient"
)

// SourceConfig is the `config:` of a rest source: faucet-cli 1.x's keys.
// Those 1.x required although they rarely matter (path, method, auth,
// query_params, pagination, max_retries, retry_backoff,
// tolerated_http_errors, replication_method, primary_keys,
// schema_sample_size, partitions) are optional here.
type SourceConfig struct {
	BaseURL          string                `json:"base_url" required:"true" doc:"Scheme, host and optional base path of the API (https://api.example.com/v1)."`
	Path             string                `json:"path" doc:"Path appended to base_url (/orders); may carry a query string."`
	Method           string                `json:"method" default:"GET" doc:"HTTP method (GET, or POST for search endpoints that take a JSON body)."`
	Headers          map[string]string     `json:"headers" doc:"Headers sent with every request."`
	QueryParams      map[string]string     `json:"query_params" doc:"Query parameters sent with every request (not added to next links the server returns)."`
	QueryParamsMulti map[string][]string   `json:"query_params_multi" doc:"Repeated query parameters: {status: [open, paid]} sends status=open&status=paid."`
	Body             any                   `json:"body" doc:"JSON body sent with every request (Content-Type: application/json)."`
	Auth             *webclient.AuthConfig `json:"auth" doc:"Credentials: {type: none|bearer|basic|api_key|api_key_query|oauth2|custom, config: {...}} (default none)."`
	Pagination       *Pagination           `json:"pagination" doc:"How to reach the next page: {type: none|link_header|cursor|cursor_in_body|next_link_in_body|page_number|offset, ...} (default none: one request)."`
	RecordsPath      string                `json:"records_path" doc:"JSONPath of the records in a response ($.data[*]); a path that selects one array yields its elements. Default: an array body is the records, an object body is one record."`
	MaxPages         *int                  `json:"max_pages" doc:"Stop after this many responses (default: no limit)."`
	RequestDelay     float64               `json:"request_delay" default:"0" doc:"Seconds to wait between two page requests (rate limiting)."`
	Timeout          float64               `json:"timeout" default:"30" doc:"Seconds one request may take, body included; 0 = no limit."`
	MaxRetries       int                   `json:"max_retries" default:"3" doc:"Retries of a request after a transport error or a 5xx status (429s are waited out separately)."`
	RetryBackoff     float64               `json:"retry_backoff" default:"1" doc:"Seconds before the first retry; doubled each retry (at most 60 s), with jitter."`
	ToleratedErrors  []int                 `json:"tolerated_http_errors" doc:"Statuses that mean \"no data\" on the first request (404 for an absent resource); on a later page they are errors."`
	Replication      *ReplicationMethod    `json:"replication_method" doc:"{type: FullTable} or {type: Incremental}; default Incremental when replication_key is set."`
	ReplicationKey   string                `json:"replication_key" doc:"Record field (a plain name, not a JSONPath) whose values order records: only records above the saved bookmark are emitted."`
	KeyAscending     bool                  `json:"replication_key_ascending" default:"false" doc:"The API returns records in strictly ascending replication_key order: every page then carries a checkpoint (a crash resumes after the last committed page) and the source can feed delivery: exactly_once. Otherwise only the last page of a run does."`
	StartValue       any                   `json:"start_replication_value" doc:"Lower bound (exclusive) of the first run, when no bookmark is saved yet."`
	StateKey         string                `json:"state_key" doc:"Accepted for faucet-cli 1.x configs; the bookmark is kept under {pipeline}::{row} whenever the pipeline has a state store."`
	Name             string                `json:"name" doc:"Stream name (informational)."`
	PrimaryKeys      []string              `json:"primary_keys" doc:"Informational (faucet-cli 1.x catalog metadata)."`
	SchemaSampleSize *int                  `json:"schema_sample_size" doc:"Accepted for faucet-cli 1.x configs; unused."`
	Schema           any                   `json:"schema" doc:"Accepted for faucet-cli 1.x configs; unused."`
	Partitions       []map[string]any      `json:"partitions" doc:"Must be empty: partition fan-out is not supported yet."`
	PartitionConc    *int                  `json:"partition_concurrency" doc:"Accepted for faucet-cli 1.x configs; unused."`
	ResponseFormat   string                `json:"response_format" default:"json" enum:"json" doc:"Only json is supported."`
}

// ReplicationMethod is faucet-cli 1.x's `replication_method: {type: ...}`.
type ReplicationMethod struct {
	Type string `json:"type" doc:"FullTable or Incremental."`
}

// methods the source may send.
var methods = map[string]bool{
	http.MethodGet: true, http.MethodPost: true, http.MethodPut: true, http.MethodPatch: true,
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if err := checkBaseURL(c.BaseURL); err != nil {
		return connector.ConfigErrorf("base_url", "%v", err)
	}
	c.Method = strings.ToUpper(strings.TrimSpace(c.Method))
	if !methods[c.Method] {
		return connector.ConfigErrorf("method", "must be GET, POST, PUT or PATCH, got %q", c.Method)
	}
	if err := webclient.CheckHeaders("headers", c.Headers); err != nil {
		return err
	}
	if err := c.Auth.Validate("auth"); err != nil {
		return err
	}
	if err := c.Pagination.validate("pagination"); err != nil {
		return err
	}
	if c.RecordsPath != "" {
		if _, err := parsePath(c.RecordsPath); err != nil {
			return connector.ConfigErrorf("records_path", "%v", err)
		}
	}
	if c.MaxPages != nil && *c.MaxPages < 1 {
		return connector.ConfigErrorf("max_pages", "must be at least 1, got %d", *c.MaxPages)
	}
	for _, d := range []struct {
		key string
		v   float64
	}{{"request_delay", c.RequestDelay}, {"timeout", c.Timeout}, {"retry_backoff", c.RetryBackoff}} {
		if d.v < 0 || math.IsNaN(d.v) || d.v > 86400 {
			return connector.ConfigErrorf(d.key, "must be between 0 and 86400 seconds, got %v", d.v)
		}
	}
	if c.MaxRetries < 0 || c.MaxRetries > 100 {
		return connector.ConfigErrorf("max_retries", "must be between 0 and 100, got %d", c.MaxRetries)
	}
	for i, s := range c.ToleratedErrors {
		if s < 400 || s > 599 {
			return connector.ConfigErrorf(fmt.Sprintf("tolerated_http_errors[%d]", i), "must be an HTTP error status (400-599), got %d", s)
		}
	}
	if r := c.Replication; r != nil {
		switch strings.ToLower(strings.ReplaceAll(r.Type, "_", "")) {
		case "fulltable", "incremental":
		default:
			return connector.ConfigErrorf("replication_method.type", "must be FullTable or Incremental, got %q", r.Type)
		}
		if c.incremental() && c.ReplicationKey == "" {
			return connector.ConfigErrorf("replication_key", "required with replication_method Incremental")
		}
	}
	if c.KeyAscending && !c.incremental() {
		return connector.ConfigErrorf("replication_key_ascending", "only applies to an incremental read (set replication_key)")
	}
	if len(c.Partitions) > 0 {
		return connector.ConfigErrorf("partitions", "partition fan-out is not supported by this version of faucet; run one row per partition (matrix)")
	}
	return nil
}

// incremental reports whether records are filtered by the bookmark.
func (c *SourceConfig) incremental() bool {
	if c.Replication != nil {
		return strings.EqualFold(strings.ReplaceAll(c.Replication.Type, "_", ""), "incremental")
	}
	return c.ReplicationKey != ""
}

func (c *SourceConfig) policy() webclient.Policy {
	return webclient.Policy{MaxRetries: c.MaxRetries, Base: seconds(c.RetryBackoff)}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// sortedKeys returns m's keys in order (query parameters go out sorted, so
// the same config always sends the same URL).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func checkBaseURL(raw string) error {
	_, err := webclient.ParseHTTPURL(raw)
	return err
}
