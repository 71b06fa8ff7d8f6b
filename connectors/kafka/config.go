package kafka

import (
	"cmp"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// SourceConfig is the `config:` of a kafka source.
type SourceConfig struct {
	Brokers string   `json:"brokers" required:"true" doc:"Bootstrap brokers, comma-separated host:port (\"k1:9092,k2:9092\")."`
	Topics  []string `json:"topics" required:"true" doc:"Topics to read; every partition of each is read."`
	GroupID string   `json:"group_id" doc:"Kept from faucet-cli 1.x configs: it names the client (client id faucet-<group_id>). The source joins no group and commits nothing to it; the bookmark is the position."`

	AutoOffsetReset string  `json:"auto_offset_reset" default:"latest" enum:"latest,earliest" doc:"Where a partition starts on a run without a bookmark: latest (only what arrives from now on) or earliest. A partition missing from a bookmark (created since) starts at earliest."`
	MaxMessages     int64   `json:"max_messages" doc:"Stop after this many messages."`
	IdleTimeout     float64 `json:"idle_timeout" doc:"Stop after this many seconds without a new message. At least one of max_messages and idle_timeout is required."`
	BatchSize       int     `json:"batch_size" default:"1000" doc:"Messages per page; 0 = one page for the whole run (needs max_messages)."`
	BatchBytes      int     `json:"batch_bytes" default:"131072" doc:"Bytes of message keys, values and header values per page: a page is handed on at batch_size messages or batch_bytes, whichever comes first (a larger message makes a page of its own). Bounds the memory of the pages in flight (four on two cores, each also decoded and encoded), whatever the message size: the default 128 KiB is some 600 messages of 200 bytes, as a Java consumer polls 500. 0 = no limit; not applied with batch_size 0."`

	ValueFormat   string  `json:"value_format" default:"json" enum:"json,string,bytes" doc:"json: the value parsed as JSON; string: the value as text; bytes: base64."`
	OnDecodeError string  `json:"on_decode_error" default:"fail" enum:"fail,skip" doc:"value_format json and a value that is not JSON: fail (the record goes to the dead-letter queue, or fails the run) or skip it with a warning."`
	OpenTimeout   float64 `json:"open_timeout" default:"10" doc:"Seconds Open waits for the brokers to answer (metadata and offsets)."`

	FetchMaxBytes          int  `json:"fetch_max_bytes" doc:"Bytes one fetch from a broker may return: the client holds about this per broker of fetched, not yet read messages (several times it once decompressed). 0 (default): 256 KiB when the brokers answer within 5 ms at open, else 1 MiB. At least one batch is always returned, so a larger batch still arrives."`
	FetchMaxPartitionBytes int  `json:"fetch_max_partition_bytes" doc:"Bytes one fetch may return for one partition (at least one batch). 0 (default): 128 KiB when the brokers answer within 5 ms at open, else 256 KiB; never more than fetch_max_bytes."`
	ClientMetrics          bool `json:"client_metrics" default:"false" doc:"Send client metrics (KIP-714) to brokers that ask for them. Off by default: each push compresses with buffers of several MiB."`
}

// Topic is the sink's `topic:` block, in faucet-cli 1.x's shape.
type Topic struct {
	Type string `json:"type" doc:"fixed (every record to name) or from_path (each record's topic at path)."`
	Name string `json:"name" doc:"The topic of type fixed."`
	Path string `json:"path" doc:"type from_path: JSONPath of a string field naming the record's topic ($.table)."`
}

// SinkConfig is the `config:` of a kafka sink.
type SinkConfig struct {
	Brokers string `json:"brokers" required:"true" doc:"Bootstrap brokers, comma-separated host:port."`
	Topic   Topic  `json:"topic" required:"true" doc:"Destination: {type: fixed, name} or {type: from_path, path}."`

	KeyPath       string `json:"key_path" doc:"JSONPath of the message key ($.id); strings are sent as they are, other values as JSON text. No key when missing or null."`
	PartitionPath string `json:"partition_path" doc:"JSONPath of an integer partition; every record must have one. Default: partitioned by key (murmur2, as the Java client), keyless records spread."`
	HeadersPath   string `json:"headers_path" doc:"JSONPath of an object of headers: string values (other scalars as JSON text), a list for a repeated header."`

	Acks           string  `json:"acks" default:"all" enum:"none,leader,all" doc:"Acknowledgement the brokers give for a message: all in-sync replicas (default), the leader, none."`
	Idempotent     bool    `json:"idempotent" default:"true" doc:"Idempotent producer (no duplicates from the client's own retries); needs acks all."`
	Compression    string  `json:"compression" default:"none" enum:"none,gzip,snappy,lz4,zstd" doc:"Batch compression."`
	Linger         float64 `json:"linger" default:"0.005" doc:"Seconds a partition's batch may wait for more messages."`
	MessageTimeout float64 `json:"message_timeout" default:"30" doc:"Seconds a message may take to be acknowledged before the write fails."`
	OpenTimeout    float64 `json:"open_timeout" default:"10" doc:"Seconds Open waits for the brokers to answer."`

	MaxBufferedBytes   int  `json:"max_buffered_bytes" default:"1048576" doc:"Bytes of message values and keys the producer holds before they are acknowledged; Write waits when full. Bounds the sink's memory (at least max_message_bytes once a message larger than batch_max_bytes came)."`
	MaxBufferedRecords int  `json:"max_buffered_records" default:"10000" doc:"Messages the producer holds before they are acknowledged; Write waits when full."`
	BatchMaxBytes      int  `json:"batch_max_bytes" default:"65536" doc:"Largest batch of messages sent to one partition in one request. Small batches keep the producer's memory low and pipeline within max_buffered_bytes; compressed, they are a few percent larger than 1 MB batches. The first message larger than this (up to max_message_bytes) switches the sink, for the rest of the run, to batches of max_message_bytes, once the messages before it are acknowledged (so their order is kept)."`
	MaxMessageBytes    int  `json:"max_message_bytes" default:"1000012" doc:"Largest message the sink sends, framing included (Kafka's default max.message.bytes; the broker's limit for the topic must allow it): a larger one fails the write, naming the record."`
	ClientMetrics      bool `json:"client_metrics" default:"false" doc:"Send client metrics (KIP-714) to brokers that ask for them. Off by default: each push compresses with buffers of several MiB."`

	TransactionalIDPrefix       string `json:"transactional_id_prefix" default:"faucet" doc:"delivery: exactly_once: the transactional id is <prefix>.<state key>; a new run with the same id fences an old one."`
	CommitTokenTopic            string `json:"commit_token_topic" default:"__faucet_commit_token" doc:"delivery: exactly_once: compacted topic holding each state key's commit token; created when missing."`
	CommitTokenTopicPartitions  int    `json:"commit_token_topic_partitions" default:"1" doc:"Partitions of a commit token topic faucet creates."`
	CommitTokenTopicReplication int    `json:"commit_token_topic_replication" default:"-1" doc:"Replication factor of a commit token topic faucet creates (-1: the broker default)."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if _, err := parseBrokers(c.Brokers); err != nil {
		return err
	}
	if len(c.Topics) == 0 {
		return connector.ConfigErrorf("topics", "give at least one topic")
	}
	seen := map[string]bool{}
	for i, t := range c.Topics {
		if err := checkTopic(fmt.Sprintf("topics[%d]", i), t); err != nil {
			return err
		}
		if seen[t] {
			return connector.ConfigErrorf(fmt.Sprintf("topics[%d]", i), "topic %q is listed twice", t)
		}
		seen[t] = true
	}
	if c.MaxMessages < 0 {
		return connector.ConfigErrorf("max_messages", "must be positive, got %d", c.MaxMessages)
	}
	if err := seconds("idle_timeout", c.IdleTimeout, true); err != nil {
		return err
	}
	if c.MaxMessages == 0 && c.IdleTimeout == 0 {
		return connector.ConfigErrorf("idle_timeout", "give idle_timeout or max_messages (or both): a topic has no end of its own")
	}
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	if c.BatchSize == 0 && (c.MaxMessages == 0 || c.MaxMessages > connector.MaxPageSize) {
		return connector.ConfigErrorf("batch_size", "0 (one page for the whole run) needs max_messages of at most %d to bound the page", connector.MaxPageSize)
	}
	if c.BatchBytes < 0 || c.BatchBytes > 1<<30 {
		return connector.ConfigErrorf("batch_bytes", "must be between 0 (no limit) and %d, got %d", 1<<30, c.BatchBytes)
	}
	if c.FetchMaxBytes != 0 && (c.FetchMaxBytes < 1024 || c.FetchMaxBytes > 1<<30) {
		return connector.ConfigErrorf("fetch_max_bytes", "must be 0 (sized to the round trip) or between 1024 and %d, got %d", 1<<30, c.FetchMaxBytes)
	}
	if limit := cmp.Or(c.FetchMaxBytes, 1<<30); c.FetchMaxPartitionBytes != 0 && (c.FetchMaxPartitionBytes < 1024 || c.FetchMaxPartitionBytes > limit) {
		return connector.ConfigErrorf("fetch_max_partition_bytes", "must be 0 (sized to the round trip) or between 1024 and fetch_max_bytes (%d), got %d", limit, c.FetchMaxPartitionBytes)
	}
	return seconds("open_timeout", c.OpenTimeout, false)
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if _, err := parseBrokers(c.Brokers); err != nil {
		return err
	}
	switch c.Topic.Type {
	case "fixed":
		if c.Topic.Path != "" {
			return connector.ConfigErrorf("topic.path", "does not apply to type fixed")
		}
		if err := checkTopic("topic.name", c.Topic.Name); err != nil {
			return err
		}
	case "from_path":
		if c.Topic.Name != "" {
			return connector.ConfigErrorf("topic.name", "does not apply to type from_path")
		}
		if _, err := parsePath("topic.path", c.Topic.Path); err != nil {
			return err
		}
	default:
		return connector.ConfigErrorf("topic.type", "must be one of fixed, from_path, got %q", c.Topic.Type)
	}
	for _, p := range []struct{ key, val string }{
		{"key_path", c.KeyPath}, {"partition_path", c.PartitionPath}, {"headers_path", c.HeadersPath},
	} {
		if p.val == "" {
			continue
		}
		if _, err := parsePath(p.key, p.val); err != nil {
			return err
		}
	}
	if c.Idempotent && c.Acks != "all" {
		return connector.ConfigErrorf("idempotent", "needs acks: all (got acks: %s); set idempotent: false to use it", c.Acks)
	}
	if strings.TrimSpace(c.TransactionalIDPrefix) == "" {
		return connector.ConfigErrorf("transactional_id_prefix", "must not be empty")
	}
	if err := checkTopic("commit_token_topic", c.CommitTokenTopic); err != nil {
		return err
	}
	if c.CommitTokenTopicPartitions < 1 || c.CommitTokenTopicPartitions > 1<<20 {
		return connector.ConfigErrorf("commit_token_topic_partitions", "must be at least 1, got %d", c.CommitTokenTopicPartitions)
	}
	if r := c.CommitTokenTopicReplication; r != -1 && (r < 1 || r > 1<<15-1) {
		return connector.ConfigErrorf("commit_token_topic_replication", "must be -1 (broker default) or at least 1, got %d", r)
	}
	if c.BatchMaxBytes < 1024 || c.BatchMaxBytes > 1<<30 {
		return connector.ConfigErrorf("batch_max_bytes", "must be between 1024 and %d, got %d", 1<<30, c.BatchMaxBytes)
	}
	if c.MaxMessageBytes < c.BatchMaxBytes || c.MaxMessageBytes > 1<<30 {
		return connector.ConfigErrorf("max_message_bytes", "must be between batch_max_bytes (%d) and %d, got %d", c.BatchMaxBytes, 1<<30, c.MaxMessageBytes)
	}
	if c.MaxBufferedBytes < c.BatchMaxBytes {
		return connector.ConfigErrorf("max_buffered_bytes", "must be at least batch_max_bytes (%d), got %d", c.BatchMaxBytes, c.MaxBufferedBytes)
	}
	if c.MaxBufferedRecords < 1 {
		return connector.ConfigErrorf("max_buffered_records", "must be at least 1, got %d", c.MaxBufferedRecords)
	}
	if err := seconds("linger", c.Linger, true); err != nil {
		return err
	}
	if err := seconds("message_timeout", c.MessageTimeout, false); err != nil {
		return err
	}
	return seconds("open_timeout", c.OpenTimeout, false)
}

// parseBrokers splits the comma-separated broker list and checks that
// each entry is host:port.
func parseBrokers(s string) ([]string, error) {
	var out []string
	for i, b := range strings.Split(s, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		host, port, err := net.SplitHostPort(b)
		if err != nil || host == "" {
			return nil, connector.ConfigErrorf("brokers", "entry %d (%q) is not host:port such as localhost:9092", i, b)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, connector.ConfigErrorf("brokers", "entry %d (%q) has no valid port", i, b)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, connector.ConfigErrorf("brokers", "give at least one broker as host:port")
	}
	return out, nil
}

// checkTopic applies Kafka's rule for topic names: 1 to 249 characters
// of [a-zA-Z0-9._-], and neither "." nor "..".
func checkTopic(key, t string) error {
	if t == "" || len(t) > 249 || t == "." || t == ".." {
		return connector.ConfigErrorf(key, "%q is not a valid topic name (1 to 249 characters, not . or ..)", t)
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return connector.ConfigErrorf(key, "%q is not a valid topic name (only letters, digits, '.', '_' and '-')", t)
		}
	}
	return nil
}

// parsePath reads the JSONPath subset the sink's *_path options take: $
// followed by .name segments (digits index arrays), as $.a.b or $.items.0.
func parsePath(key, s string) ([]string, error) {
	rest, ok := strings.CutPrefix(s, "$.")
	if !ok || rest == "" {
		return nil, connector.ConfigErrorf(key, "%q is not a JSONPath such as $.id or $.meta.key", s)
	}
	segs := strings.Split(rest, ".")
	for _, seg := range segs {
		if seg == "" || strings.ContainsAny(seg, "[]*'\" ") {
			return nil, connector.ConfigErrorf(key, "%q: only $.name.name paths are supported (no brackets, wildcards or empty names)", s)
		}
	}
	return segs, nil
}

func seconds(key string, v float64, zeroOK bool) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (v == 0 && !zeroOK) || v > 1e9 {
		return connector.ConfigErrorf(key, "must be a positive number of seconds, got %v", v)
	}
	return nil
}

func secs(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
