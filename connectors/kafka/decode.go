package kafka

import (
	"encoding/base64"
	"fmt"
	"sync/atomic"

	"github.com/faucet-hq/faucet/connector"
	"github.com/twmb/franz-go/pkg/kgo"
)

// decoder turns messages into records (value_format, on_decode_error).
type decoder struct {
	format  string
	skipBad bool
	skipped *atomic.Int64 // values skipped under on_decode_error: skip
}

// decode fills p.Records (and p.Failed) from msgs. It runs on an engine
// worker; the parser is the page's own.
func (d decoder) decode(p *connector.Page, msgs []*kgo.Record) {
	var jp connector.JSONParser
	p.Records = make([]connector.Record, 0, len(msgs))
	for _, m := range msgs {
		v, err := d.value(&jp, m.Value)
		if err != nil {
			if d.skipBad {
				d.skipped.Add(1)
				continue
			}
			p.Failed = append(p.Failed, connector.RecordError{
				Stage: connector.StageSource, Component: "kafka", Location: where(m),
				Raw: string(m.Value), Err: fmt.Errorf("value is not JSON (value_format json): %w", err),
			})
			continue
		}
		p.Records = append(p.Records, record(m, v))
	}
}

// where names a message for people: topic/partition@offset.
func where(m *kgo.Record) string {
	return fmt.Sprintf("%s/%d@%d", m.Topic, m.Partition, m.Offset)
}

// record is faucet-cli 1.x's message record: {key, value, topic,
// partition, offset, timestamp (ms), headers}.
func record(m *kgo.Record, v connector.Value) connector.Record {
	key := connector.Null()
	if m.Key != nil {
		key = connector.String(string(m.Key))
	}
	return connector.Record{Fields: []connector.Field{
		{Key: "key", Value: key},
		{Key: "value", Value: v},
		{Key: "topic", Value: connector.String(m.Topic)},
		{Key: "partition", Value: connector.Int(int64(m.Partition))},
		{Key: "offset", Value: connector.Int(m.Offset)},
		{Key: "timestamp", Value: connector.Int(m.Timestamp.UnixMilli())},
		{Key: "headers", Value: headers(m.Headers)},
	}}
}

// value decodes a message value; a null value (a tombstone) is null.
func (d decoder) value(jp *connector.JSONParser, data []byte) (connector.Value, error) {
	if data == nil {
		return connector.Null(), nil
	}
	switch d.format {
	case "bytes":
		return connector.String(base64.StdEncoding.EncodeToString(data)), nil
	case "string":
		return connector.String(string(data)), nil
	}
	return jp.Parse(data)
}

// headers is an object in the order the headers came: a header sent once
// is a string, one sent several times a list of strings.
func headers(hs []kgo.RecordHeader) connector.Value {
	r := connector.NewRecord(len(hs))
	for _, h := range hs {
		v := connector.String(string(h.Value))
		old, ok := r.Get(h.Key)
		switch {
		case !ok:
			r.Set(h.Key, v)
		case old.Kind() == connector.KindArray:
			r.Set(h.Key, connector.Array(append(old.AsArray(), v)))
		default:
			r.Set(h.Key, connector.Array([]connector.Value{old, v}))
		}
	}
	return connector.Object(r)
}
