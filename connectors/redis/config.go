package redis

import (
	"strings"

	"github.com/faucet-hq/faucet/connector"
	goredis "github.com/redis/go-redis/v9"
)

// The modes, under the names faucet-cli 1.x used (`type: List`); the
// snake_case spellings are accepted too.
const (
	modeList     = "List"
	modeStream   = "Stream"
	modeKeys     = "Keys"
	modeKeyValue = "KeyValue"
)

// canonicalMode maps a written `type:` to its mode, or "".
func canonicalMode(t string, allowed ...string) string {
	for _, m := range allowed {
		if t == m || t == snake(m) {
			return m
		}
	}
	return ""
}

func snake(m string) string {
	if m == modeKeyValue {
		return "key_value"
	}
	return strings.ToLower(m)
}

// SourceConfig is the `config:` of a redis source (faucet-cli 1.x shape).
type SourceConfig struct {
	URL        connector.Secret `json:"url" required:"true" doc:"redis://[user:password@]host:port[/db] (rediss:// for TLS)."`
	SourceType *SourceType      `json:"source_type" required:"true" doc:"What to read: {type: List, key}, {type: Stream, key} or {type: Keys, pattern}."`
	MaxRecords *int64           `json:"max_records" doc:"Stop after this many records (default: all)."`
	BatchSize  int              `json:"batch_size" default:"1000" doc:"Records per page (LRANGE window, XRANGE COUNT, keys per MGET); 0 = everything in one page."`
	BatchBytes int              `json:"batch_bytes" default:"1048576" doc:"Bytes of elements per page (a list element; a stream entry's id, field names and values; a key's name and the strings of its value). A page is read in chunks sized from the elements read before and ends at batch_size elements or once the next would likely take it past batch_bytes; a larger element makes a page of its own. 0 = no limit; not applied with batch_size 0."`
}

// SourceType selects the data structure a source reads.
type SourceType struct {
	Type     string `json:"type" doc:"List, Stream or Keys."`
	Key      string `json:"key" doc:"List or Stream: the key to read."`
	Pattern  string `json:"pattern" doc:"Keys: SCAN MATCH glob (user:*)."`
	Group    string `json:"group" doc:"Stream: accepted for compatibility with faucet-cli 1.x, whose streaming path ignored it too; the saved bookmark (last entry id) replaces consumer groups."`
	Consumer string `json:"consumer" doc:"Stream: accepted for compatibility with faucet-cli 1.x; ignored like group."`
	Count    *int   `json:"count" doc:"Stream: accepted for compatibility with faucet-cli 1.x; batch_size sets the XRANGE COUNT."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if err := checkURL(c.URL); err != nil {
		return err
	}
	st := c.SourceType
	if st == nil {
		return connector.ConfigErrorf("source_type", "required key is missing")
	}
	mode := canonicalMode(st.Type, modeList, modeStream, modeKeys)
	switch mode {
	case "":
		return connector.ConfigErrorf("source_type.type", "must be one of List, Stream, Keys, got %q", st.Type)
	case modeList, modeStream:
		if st.Key == "" {
			return connector.ConfigErrorf("source_type.key", "required for type %s", mode)
		}
		if st.Pattern != "" {
			return connector.ConfigErrorf("source_type.pattern", "only applies to type Keys")
		}
	case modeKeys:
		if st.Pattern == "" {
			return connector.ConfigErrorf("source_type.pattern", "required for type Keys")
		}
		if st.Key != "" {
			return connector.ConfigErrorf("source_type.key", "does not apply to type Keys (use pattern)")
		}
	}
	if mode != modeStream && (st.Group != "" || st.Consumer != "" || st.Count != nil) {
		return connector.ConfigErrorf("source_type", "group, consumer and count only apply to type Stream")
	}
	if st.Count != nil && *st.Count < 1 {
		return connector.ConfigErrorf("source_type.count", "must be at least 1, got %d", *st.Count)
	}
	st.Type = mode // from here on the canonical name, whatever the spelling
	if c.MaxRecords != nil && *c.MaxRecords < 0 {
		return connector.ConfigErrorf("max_records", "must not be negative, got %d", *c.MaxRecords)
	}
	if c.BatchBytes < 0 || c.BatchBytes > 1<<30 {
		return connector.ConfigErrorf("batch_bytes", "must be between 0 (no limit) and %d, got %d", 1<<30, c.BatchBytes)
	}
	return checkBatchSize(c.BatchSize)
}

// SinkConfig is the `config:` of a redis sink (faucet-cli 1.x shape).
type SinkConfig struct {
	URL       connector.Secret `json:"url" required:"true" doc:"redis://[user:password@]host:port[/db] (rediss:// for TLS)."`
	SinkType  *SinkType        `json:"sink_type" required:"true" doc:"Where to write: {type: List, key}, {type: Stream, key, fields?} or {type: KeyValue, key_field, key_prefix?, ttl?}."`
	BatchSize int              `json:"batch_size" default:"1000" doc:"Commands per pipelined round trip; 0 = the whole page in one. Under delivery: exactly_once a page is always one MULTI/EXEC."`
}

// SinkType selects the data structure a sink writes.
type SinkType struct {
	Type      string            `json:"type" doc:"List (RPUSH the record's JSON), Stream (XADD) or KeyValue (SET)."`
	Key       string            `json:"key" doc:"List or Stream: the key to write."`
	Fields    map[string]string `json:"fields" doc:"Stream: entry field -> record field path (a.b); default: every top-level field, strings as they are and other values as JSON."`
	KeyField  string            `json:"key_field" doc:"KeyValue: the record field (or dotted path) whose value is the Redis key; the value is the record's JSON."`
	KeyPrefix string            `json:"key_prefix" doc:"KeyValue: text put before every key (user: makes user:42)."`
	TTL       int64             `json:"ttl" doc:"KeyValue: expire each key after this many seconds (default: never)."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if err := checkURL(c.URL); err != nil {
		return err
	}
	st := c.SinkType
	if st == nil {
		return connector.ConfigErrorf("sink_type", "required key is missing")
	}
	mode := canonicalMode(st.Type, modeList, modeStream, modeKeyValue)
	switch mode {
	case "":
		return connector.ConfigErrorf("sink_type.type", "must be one of List, Stream, KeyValue, got %q", st.Type)
	case modeList, modeStream:
		if st.Key == "" {
			return connector.ConfigErrorf("sink_type.key", "required for type %s", mode)
		}
		if st.KeyField != "" || st.KeyPrefix != "" || st.TTL != 0 {
			return connector.ConfigErrorf("sink_type", "key_field, key_prefix and ttl only apply to type KeyValue")
		}
	case modeKeyValue:
		if st.KeyField == "" {
			return connector.ConfigErrorf("sink_type.key_field", "required for type KeyValue")
		}
		if st.Key != "" {
			return connector.ConfigErrorf("sink_type.key", "does not apply to type KeyValue (use key_field)")
		}
		if st.TTL < 0 {
			return connector.ConfigErrorf("sink_type.ttl", "must not be negative, got %d", st.TTL)
		}
	}
	if len(st.Fields) > 0 && mode != modeStream {
		return connector.ConfigErrorf("sink_type.fields", "only applies to type Stream")
	}
	for name, path := range st.Fields {
		if name == "" || path == "" {
			return connector.ConfigErrorf("sink_type.fields", "entry field names and record paths must not be empty")
		}
	}
	st.Type = mode // from here on the canonical name, whatever the spelling
	return checkBatchSize(c.BatchSize)
}

func checkURL(u connector.Secret) error {
	if strings.TrimSpace(u.Reveal()) == "" {
		return connector.ConfigErrorf("url", "must not be empty")
	}
	if _, err := goredis.ParseURL(u.Reveal()); err != nil {
		return connector.ConfigErrorf("url", "not a valid Redis URL (redis://[user:password@]host:port[/db], rediss:// or unix://)")
	}
	return nil
}

func checkBatchSize(n int) error {
	if n < 0 || n > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, n)
	}
	return nil
}
