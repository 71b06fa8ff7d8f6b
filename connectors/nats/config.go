package nats

import (
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// DefaultServer is where the connectors connect when servers is empty.
const DefaultServer = "nats://127.0.0.1:4222"

// Auth is the `auth:` block shared by the source and the sink, in
// faucet-cli 1.x's `{type, config}` shape.
type Auth struct {
	Type   string     `json:"type" enum:"none,token,user_password,nkey,creds_file" doc:"none (default), token, user_password, nkey or creds_file."`
	Config AuthConfig `json:"config" doc:"The credentials of type: {token}, {username, password}, {nkey} (a seed, starts with S) or {path} (a .creds file)."`
}

// AuthConfig holds the credentials of every auth type; Validate checks
// that exactly the ones of the chosen type are set.
type AuthConfig struct {
	Token    connector.Secret `json:"token"`
	Username string           `json:"username"`
	Password connector.Secret `json:"password"`
	NKey     connector.Secret `json:"nkey"`
	Path     string           `json:"path"`
}

// conn is the connection part of both configs (faucet-cli 1.x flattens
// it into each).
type conn struct {
	servers []string
	auth    Auth
	tls     bool
	name    string
	// reconnect is how long a lost connection is retried before the
	// connection is given up (and the run fails).
	reconnect time.Duration
}

// SourceConfig is the `config:` of a nats source.
type SourceConfig struct {
	Servers []string `json:"servers" doc:"Server URLs (default [\"nats://127.0.0.1:4222\"]); the client fails over between them."`
	Auth    Auth     `json:"auth" doc:"Authentication: {type, config}."`
	TLS     bool     `json:"tls" doc:"Require TLS (system roots)."`
	Name    string   `json:"name" doc:"Client connection name shown in server monitoring (default faucet)."`

	Subject    string `json:"subject" doc:"Core NATS: the subject to subscribe to (* and > wildcards). JetStream: the consumer's filter subject when faucet creates the consumer (empty: the whole stream)."`
	QueueGroup string `json:"queue_group" doc:"Core NATS queue group: subscribers of one group share the messages."`

	JetStreamStream   string  `json:"jetstream_stream" doc:"JetStream stream to pull from (enables JetStream mode, with jetstream_consumer)."`
	JetStreamConsumer string  `json:"jetstream_consumer" doc:"Durable pull consumer; created when missing. Its messages are acknowledged only after the sink committed them."`
	DeliverPolicy     string  `json:"deliver_policy" default:"all" enum:"all,last,new,by_start_sequence,by_start_time,last_per_subject" doc:"Where a consumer faucet creates starts (first run only; later runs continue where the consumer is)."`
	StartSequence     uint64  `json:"start_sequence" doc:"First stream sequence for deliver_policy by_start_sequence."`
	StartTime         string  `json:"start_time" doc:"RFC 3339 start for deliver_policy by_start_time."`
	AckWaitSecs       float64 `json:"ack_wait_secs" default:"30" doc:"Consumer ack wait for a consumer faucet creates: a message not acknowledged this long is redelivered. Keep it above the time a page takes to reach the sink."`
	MaxAckPending     int     `json:"max_ack_pending" doc:"Consumer max_ack_pending for a consumer faucet creates (default 64 pages of batch_size, at most 1000000): how many delivered messages may wait for the sink."`

	MaxMessages     int64   `json:"max_messages" doc:"Stop after this many messages."`
	IdleTimeoutSecs float64 `json:"idle_timeout_secs" doc:"Stop after this long (seconds) without a new message. At least one of max_messages and idle_timeout_secs is required."`
	BatchSize       int     `json:"batch_size" default:"1000" doc:"Messages per page (and per JetStream fetch); 0 = one page for the whole run (needs max_messages)."`
	BatchBytes      int     `json:"batch_bytes" default:"1048576" doc:"Bytes of messages per page, as the server counts them (payload, subject, reply subject and headers): a page is handed on at batch_size messages or batch_bytes, whichever comes first, and a larger message makes a page of its own. Bounds the memory of the pages in flight when messages are large. 0 = no limit; not applied with batch_size 0."`

	ValueFormat       string   `json:"value_format" default:"json" enum:"json,string,bytes" doc:"json: parse the payload as JSON (a payload that is not JSON becomes a string); string: the payload as text; bytes: base64."`
	Include           []string `json:"include" enum:"subject,headers,sequence,timestamp" doc:"Message metadata to add: the record becomes {subject, sequence, timestamp, headers, value} (those asked for, then value). sequence and timestamp are JetStream's."`
	ReconnectTimeoutS float64  `json:"reconnect_timeout_secs" default:"60" doc:"How long a lost connection is retried before the run fails."`
}

// SinkConfig is the `config:` of a nats sink.
type SinkConfig struct {
	Servers []string `json:"servers" doc:"Server URLs (default [\"nats://127.0.0.1:4222\"]); the client fails over between them."`
	Auth    Auth     `json:"auth" doc:"Authentication: {type, config}."`
	TLS     bool     `json:"tls" doc:"Require TLS (system roots)."`
	Name    string   `json:"name" doc:"Client connection name shown in server monitoring (default faucet)."`

	Subject      string `json:"subject" doc:"Subject records are published to (required unless subject_field); with subject_field, the subject of records that lack the field."`
	SubjectField string `json:"subject_field" doc:"Top-level field whose string value is the record's subject; a record without it goes to subject, or fails the page when subject is not set."`
	HeadersField string `json:"headers_field" doc:"Top-level field holding an object of headers (string or list-of-string values)."`
	ValueField   string `json:"value_field" doc:"Top-level field to publish as the payload (default: the whole record as JSON)."`
	ValueFormat  string `json:"value_format" default:"json" enum:"json,string,bytes" doc:"json: the payload is JSON; string: the value (a string) as text; bytes: the value is base64, published decoded. string and bytes need value_field."`

	Mode            string  `json:"mode" default:"core" enum:"core,jetstream" doc:"core: publish and flush (at-most-once past the server); jetstream: every message is acknowledged by a stream (at-least-once)."`
	JetStreamStream string  `json:"jetstream_stream" doc:"JetStream mode: the stream that must store the messages (checked at open, and expected on every publish)."`
	AckTimeoutSecs  float64 `json:"ack_timeout_secs" default:"30" doc:"JetStream mode: how long to wait for a page's acknowledgements before the write is retried."`
	BatchSize       int     `json:"batch_size" default:"1000" doc:"Records per publish burst: core flushes after each, JetStream keeps at most this many acknowledgements outstanding; 0 = the whole page."`

	ReconnectTimeoutS float64 `json:"reconnect_timeout_secs" default:"60" doc:"How long a lost connection is retried before writes fail."`
}

func (c *SourceConfig) conn() conn {
	return conn{servers: c.Servers, auth: c.Auth, tls: c.TLS, name: c.Name, reconnect: secs(c.ReconnectTimeoutS)}
}

func (c *SinkConfig) conn() conn {
	return conn{servers: c.Servers, auth: c.Auth, tls: c.TLS, name: c.Name, reconnect: secs(c.ReconnectTimeoutS)}
}

// jetStream reports whether the source pulls from a JetStream consumer.
func (c *SourceConfig) jetStream() bool { return c.JetStreamStream != "" }

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if err := c.conn().validate(); err != nil {
		return err
	}
	if err := positive("reconnect_timeout_secs", c.ReconnectTimeoutS, false); err != nil {
		return err
	}
	switch {
	case c.JetStreamStream != "" && strings.TrimSpace(c.JetStreamConsumer) == "":
		return connector.ConfigErrorf("jetstream_consumer", "required with jetstream_stream (the durable consumer to pull from)")
	case c.JetStreamStream == "" && c.JetStreamConsumer != "":
		return connector.ConfigErrorf("jetstream_stream", "required with jetstream_consumer")
	case c.JetStreamStream != "" && !validName(c.JetStreamStream):
		return connector.ConfigErrorf("jetstream_stream", "%q is not a valid stream name (no spaces, '.', '*', '>', '/' or '\\')", c.JetStreamStream)
	case c.JetStreamStream != "" && !validName(c.JetStreamConsumer):
		return connector.ConfigErrorf("jetstream_consumer", "%q is not a valid consumer name (no spaces, '.', '*', '>', '/' or '\\')", c.JetStreamConsumer)
	case !c.jetStream() && strings.TrimSpace(c.Subject) == "":
		return connector.ConfigErrorf("subject", "required key is missing (the subject to subscribe to)")
	case c.jetStream() && c.QueueGroup != "":
		return connector.ConfigErrorf("queue_group", "only applies to core NATS subscriptions; a JetStream consumer is shared by pulling from it")
	}
	if c.Subject != "" {
		if err := checkSubject("subject", c.Subject, true); err != nil {
			return err
		}
	}
	if err := c.validateJetStream(); err != nil {
		return err
	}
	if c.MaxMessages < 0 {
		return connector.ConfigErrorf("max_messages", "must be positive, got %d", c.MaxMessages)
	}
	if err := positive("idle_timeout_secs", c.IdleTimeoutSecs, true); err != nil {
		return err
	}
	if c.MaxMessages == 0 && c.IdleTimeoutSecs == 0 {
		return connector.ConfigErrorf("idle_timeout_secs", "give idle_timeout_secs or max_messages (or both): a subscription has no end of its own")
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
	seen := map[string]bool{}
	for i, inc := range c.Include {
		if seen[inc] {
			return connector.ConfigErrorf("include", "%q is listed twice (entry %d)", inc, i)
		}
		seen[inc] = true
		if (inc == "sequence" || inc == "timestamp") && !c.jetStream() {
			return connector.ConfigErrorf("include", "%q exists only for JetStream messages (set jetstream_stream)", inc)
		}
	}
	return nil
}

func (c *SourceConfig) validateJetStream() error {
	if !c.jetStream() {
		for _, o := range []struct {
			key string
			set bool
		}{
			{"deliver_policy", c.DeliverPolicy != "all"}, {"start_sequence", c.StartSequence != 0},
			{"start_time", c.StartTime != ""}, {"max_ack_pending", c.MaxAckPending != 0},
		} {
			if o.set {
				return connector.ConfigErrorf(o.key, "only applies with jetstream_stream")
			}
		}
		return nil
	}
	if err := positive("ack_wait_secs", c.AckWaitSecs, false); err != nil {
		return err
	}
	if c.MaxAckPending < 0 {
		return connector.ConfigErrorf("max_ack_pending", "must be positive, got %d", c.MaxAckPending)
	}
	if c.MaxAckPending > 0 && c.MaxAckPending < c.BatchSize {
		return connector.ConfigErrorf("max_ack_pending", "%d is below batch_size %d: a page could never fill", c.MaxAckPending, c.BatchSize)
	}
	switch c.DeliverPolicy {
	case "by_start_sequence":
		if c.StartSequence == 0 {
			return connector.ConfigErrorf("start_sequence", "required with deliver_policy by_start_sequence (stream sequences start at 1)")
		}
	case "by_start_time":
		if _, err := time.Parse(time.RFC3339Nano, c.StartTime); err != nil {
			return connector.ConfigErrorf("start_time", "needs an RFC 3339 time with deliver_policy by_start_time, got %q", c.StartTime)
		}
	}
	if c.StartSequence != 0 && c.DeliverPolicy != "by_start_sequence" {
		return connector.ConfigErrorf("start_sequence", "only applies with deliver_policy by_start_sequence")
	}
	if c.StartTime != "" && c.DeliverPolicy != "by_start_time" {
		return connector.ConfigErrorf("start_time", "only applies with deliver_policy by_start_time")
	}
	return nil
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if err := c.conn().validate(); err != nil {
		return err
	}
	if err := positive("reconnect_timeout_secs", c.ReconnectTimeoutS, false); err != nil {
		return err
	}
	switch {
	case c.Subject == "" && c.SubjectField == "":
		return connector.ConfigErrorf("subject", "required key is missing (or give subject_field)")
	case c.ValueFormat != "json" && c.ValueField == "":
		return connector.ConfigErrorf("value_format", "%s needs value_field (a whole record is an object, not a %s)", c.ValueFormat, c.ValueFormat)
	case c.Mode != "jetstream" && c.JetStreamStream != "":
		return connector.ConfigErrorf("jetstream_stream", "only applies with mode: jetstream")
	case c.JetStreamStream != "" && !validName(c.JetStreamStream):
		return connector.ConfigErrorf("jetstream_stream", "%q is not a valid stream name", c.JetStreamStream)
	}
	if c.Subject != "" {
		if err := checkSubject("subject", c.Subject, false); err != nil {
			return err
		}
	}
	if err := positive("ack_timeout_secs", c.AckTimeoutSecs, false); err != nil {
		return err
	}
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	return nil
}

func (c conn) validate() error {
	for i, s := range c.servers {
		s = strings.TrimSpace(s)
		if !strings.Contains(s, "://") {
			s = "nats://" + s // as the client reads host:port
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return connector.ConfigErrorf("servers", "entry %d (%s) is not a server URL such as nats://host:4222", i, redactURL(s))
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return connector.ConfigErrorf("servers", "entry %d (%s): scheme must be nats, tls, ws or wss", i, redactURL(s))
		}
	}
	a, cfg := c.auth, c.auth.Config
	given := map[string]bool{
		"token": cfg.Token != "", "username": cfg.Username != "", "password": cfg.Password != "",
		"nkey": cfg.NKey != "", "path": cfg.Path != "",
	}
	var want []string
	switch a.Type {
	case "", "none":
	case "token":
		want = []string{"token"}
	case "user_password":
		want = []string{"username", "password"}
	case "nkey":
		want = []string{"nkey"}
	case "creds_file":
		want = []string{"path"}
	default:
		return connector.ConfigErrorf("auth.type", "must be one of none, token, user_password, nkey, creds_file, got %q", a.Type)
	}
	for _, k := range want {
		if !given[k] {
			return connector.ConfigErrorf("auth.config."+k, "required with auth type %s", a.Type)
		}
		delete(given, k)
	}
	for k, set := range given {
		if set {
			return connector.ConfigErrorf("auth.config."+k, "does not apply to auth type %q", a.Type)
		}
	}
	if a.Type == "nkey" && !strings.HasPrefix(cfg.NKey.Reveal(), "S") {
		return connector.ConfigErrorf("auth.config.nkey", "must be an nkey seed (it starts with S)")
	}
	return nil
}

// checkSubject rejects subjects the server would refuse: empty tokens,
// whitespace, and wildcards where a concrete subject is needed.
func checkSubject(key, s string, wildcards bool) error {
	if strings.ContainsAny(s, " \t\r\n") {
		return connector.ConfigErrorf(key, "%q contains whitespace", s)
	}
	toks := strings.Split(s, ".")
	for i, t := range toks {
		switch {
		case t == "":
			return connector.ConfigErrorf(key, "%q has an empty token", s)
		case (t == "*" || t == ">") && !wildcards:
			return connector.ConfigErrorf(key, "%q: a published subject cannot contain wildcards", s)
		case t == ">" && i != len(toks)-1:
			return connector.ConfigErrorf(key, "%q: > must be the last token", s)
		}
	}
	return nil
}

// validName is the JetStream rule for stream and consumer names.
func validName(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\r\n.*>/\\")
}

func positive(key string, v float64, zeroOK bool) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (v == 0 && !zeroOK) || v > 1e9 {
		return connector.ConfigErrorf(key, "must be a positive number of seconds, got %v", v)
	}
	return nil
}

func secs(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }

// redactURL hides the user information (a token, or user and password)
// of a server URL.
func redactURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		if at := strings.LastIndex(raw, "@"); at >= 0 {
			return "***" + raw[at:]
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	u.User = nil
	return strings.Replace(u.String(), "://", "://***@", 1)
}
