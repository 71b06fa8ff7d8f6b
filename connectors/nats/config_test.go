package nats

import (
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	natsgo "github.com/nats-io/nats.go"
)

func TestSourceConfigErrorsNameTheKey(t *testing.T) {
	for _, c := range []struct {
		kv   []any
		want string
	}{
		{[]any{"subject", "a"}, "idle_timeout_secs: give idle_timeout_secs or max_messages"},
		{[]any{"idle_timeout_secs", 1}, "subject: required key is missing"},
		{[]any{"subject", "a..b", "max_messages", 1}, `subject: "a..b" has an empty token`},
		{[]any{"subject", "a.>.b", "max_messages", 1}, "> must be the last token"},
		{[]any{"servers", []any{"ftp://localhost:4222"}, "subject", "a", "max_messages", 1}, "servers: entry 0 (ftp://localhost:4222): scheme must be nats"},
		{[]any{"servers", []any{"nats://"}, "subject", "a", "max_messages", 1}, "servers: entry 0 (nats://) is not a server URL"},
		{[]any{"servers", []any{"nats://u:secret@h:1", "http://u:secret@h:1"}, "subject", "a", "max_messages", 1}, "servers: entry 1 (http://***@h:1)"},
		{[]any{"jetstream_stream", "S", "max_messages", 1}, "jetstream_consumer: required with jetstream_stream"},
		{[]any{"jetstream_consumer", "c", "subject", "a", "max_messages", 1}, "jetstream_stream: required with jetstream_consumer"},
		{[]any{"jetstream_stream", "a.b", "jetstream_consumer", "c", "max_messages", 1}, `jetstream_stream: "a.b" is not a valid stream name`},
		{[]any{"jetstream_stream", "S", "jetstream_consumer", "c", "queue_group", "q", "max_messages", 1}, "queue_group: only applies to core NATS"},
		{[]any{"subject", "a", "max_messages", 1, "deliver_policy", "new"}, "deliver_policy: only applies with jetstream_stream"},
		{[]any{"jetstream_stream", "S", "jetstream_consumer", "c", "max_messages", 1, "deliver_policy", "by_start_sequence"}, "start_sequence: required with deliver_policy by_start_sequence"},
		{[]any{"jetstream_stream", "S", "jetstream_consumer", "c", "max_messages", 1, "deliver_policy", "by_start_time", "start_time", "yesterday"}, `start_time: needs an RFC 3339 time`},
		{[]any{"jetstream_stream", "S", "jetstream_consumer", "c", "max_messages", 1, "start_sequence", 5}, "start_sequence: only applies with deliver_policy by_start_sequence"},
		{[]any{"jetstream_stream", "S", "jetstream_consumer", "c", "max_messages", 1, "max_ack_pending", 10}, "max_ack_pending: 10 is below batch_size 1000"},
		{[]any{"jetstream_stream", "S", "jetstream_consumer", "c", "max_messages", 1, "ack_wait_secs", 0}, "ack_wait_secs: must be a positive number"},
		{[]any{"subject", "a", "idle_timeout_secs", -1}, "idle_timeout_secs: must be a positive number"},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "batch_size", 0}, "batch_size: 0 (one page for the whole run) needs max_messages"},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "batch_size", 2_000_000}, "batch_size: must be between 0 and 1000000"},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "batch_bytes", -1}, "batch_bytes: must be between 0 (no limit) and 1073741824"},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "include", []any{"sequence"}}, `include: "sequence" exists only for JetStream messages`},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "include", []any{"subject", "subject"}}, `include: "subject" is listed twice`},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "include", []any{"key"}}, `include[0]: must be one of subject, headers, sequence, timestamp`},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "value_format", "avro"}, `value_format: must be one of json, string, bytes`},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "auth", map[string]any{"type": "token"}}, "auth.config.token: required with auth type token"},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "auth", map[string]any{"type": "token", "config": map[string]any{"token": "t", "password": "p"}}}, `auth.config.password: does not apply to auth type "token"`},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "auth", map[string]any{"type": "nkey", "config": map[string]any{"nkey": "UABC"}}}, "auth.config.nkey: must be an nkey seed"},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "auth", map[string]any{"type": "kerberos"}}, "auth.type: must be one of"},
		{[]any{"subject", "a", "idle_timeout_secs", 1, "auth", map[string]any{"type": "token", "config": map[string]any{"tokn": "t"}}}, `unknown key`},
	} {
		_, err := newSource(cfg(c.kv...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.kv, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%v: the error shows a password: %v", c.kv, err)
		}
	}
}

func TestSourceConfigCompatibleWithFaucetCLI1(t *testing.T) {
	// The two shapes faucet-cli 1.x documents.
	for _, kv := range [][]any{
		{"servers", []any{"nats://127.0.0.1:4222"}, "subject", "events.>", "idle_timeout_secs", 5, "batch_size", 500},
		{"servers", []any{"nats://127.0.0.1:4222"}, "subject", "orders.>", "jetstream_stream", "ORDERS",
			"jetstream_consumer", "faucet-worker", "max_messages", 10000, "idle_timeout_secs", 10,
			"auth", map[string]any{"type": "user_password", "config": map[string]any{"username": "u", "password": "p"}}, "tls", false, "name", "faucet"},
	} {
		src, err := newSource(cfg(kv...))
		if err != nil {
			t.Fatalf("%v: %v", kv, err)
		}
		if _, js := src.(*JetStreamSource); js != (len(kv) > 8) {
			t.Errorf("%v: built %T", kv, src)
		}
	}
}

func TestSinkConfigErrorsNameTheKey(t *testing.T) {
	for _, c := range []struct {
		kv   []any
		want string
	}{
		{[]any{}, "subject: required key is missing (or give subject_field)"},
		{[]any{"subject", "a.*"}, "a published subject cannot contain wildcards"},
		{[]any{"subject", "a", "value_format", "bytes"}, "value_format: bytes needs value_field"},
		{[]any{"subject", "a", "jetstream_stream", "S"}, "jetstream_stream: only applies with mode: jetstream"},
		{[]any{"subject", "a", "mode", "kafka"}, "mode: must be one of core, jetstream"},
		{[]any{"subject", "a", "ack_timeout_secs", 0}, "ack_timeout_secs: must be a positive number"},
		{[]any{"subject", "a", "batch_size", -1}, "batch_size: must be between 0 and 1000000"},
	} {
		_, err := newSink(cfg(c.kv...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.kv, err, c.want)
		}
	}
	if _, err := newSink(cfg("subject", "events.default", "subject_field", "topic")); err != nil {
		t.Errorf("faucet-cli 1.x's subject + subject_field: %v", err)
	}
}

func TestDecoderValuesAndEnvelope(t *testing.T) {
	h := natsgo.Header{"B": {"2"}, "A": {"x", "y"}}
	for _, c := range []struct {
		format  string
		include []string
		data    string
		want    string
	}{
		{"json", nil, `{"id":1,"n":{"a":[true,null]}}`, `{"id":1,"n":{"a":[true,null]}}`},
		{"json", nil, `42`, `{"value":42}`},
		{"json", nil, `{"id":1} trailing`, `{"value":"{\"id\":1} trailing"}`},
		{"json", nil, ``, `{"value":""}`},
		{"string", nil, `{"id":1}`, `{"value":"{\"id\":1}"}`},
		{"bytes", nil, "\x00\xff", `{"value":"AP8="}`},
		{"json", []string{"headers", "subject"}, `{"id":1}`, `{"subject":"s.t","headers":{"A":["x","y"],"B":"2"},"value":{"id":1}}`},
		{"json", []string{"sequence", "timestamp"}, `1`, `{"sequence":7,"timestamp":1700000000123,"value":1}`},
	} {
		d := newDecoder(c.format, c.include)
		p := &connector.Page{}
		m := message{data: []byte(c.data), subject: "s.t", header: h, seq: 7}
		m.time = time.UnixMilli(1700000000123)
		d.decode(p, []message{m})
		if got := connector.Object(p.Records[0]).String(); got != c.want {
			t.Errorf("%s %v %q: %s, want %s", c.format, c.include, c.data, got, c.want)
		}
	}
}

func TestSpans(t *testing.T) {
	var s spans
	for _, x := range []uint64{5, 3, 4, 10, 1, 12, 11, 2} {
		s.add(x)
		s.add(x) // idempotent
	}
	if len(s) != 2 || s[0] != (span{1, 5}) || s[1] != (span{10, 12}) {
		t.Fatalf("spans %v, want [{1 5} {10 12}]", s)
	}
	for x := uint64(0); x <= 13; x++ {
		want := (x >= 1 && x <= 5) || (x >= 10 && x <= 12)
		if s.has(x) != want {
			t.Errorf("has(%d) = %v", x, !want)
		}
	}
}
