package kafka

import (
	"encoding/base64"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
)

// decoder turns messages into records (value_format, on_decode_error).
type decoder struct {
	format  string
	skipBad bool
	skipped *atomic.Int64 // values skipped under on_decode_error: skip
}

// decode fills p.Records (and p.Failed) from the messages in mem, and
// mem.kept with the message each record came from. It runs on an engine
// worker; the parser is the page's own. The records' strings are views
// into mem.data (the parser's are), so they live as long as the page.
func (d decoder) decode(p *connector.Page, mem *pageMem) {
	dm := mem.takeDecodeMem()
	jp := &dm.jp
	p.Records = dm.recs[:0]
	for n := range mem.msgs {
		msg := &mem.msgs[n]
		raw := mem.bytes(msg.value)
		v, err := d.value(jp, raw)
		if err != nil {
			if d.skipBad {
				d.skipped.Add(1)
				continue
			}
			p.Failed = append(p.Failed, connector.RecordError{
				Stage: connector.StageSource, Component: "kafka", Location: msg.where(),
				Raw: string(raw), Err: fmt.Errorf("value is not JSON (value_format json): %w", err),
			})
			continue
		}
		i := len(p.Records)
		p.Records = append(p.Records, mem.record(dm.fields, i, msg, v))
		mem.kept = append(mem.kept, int32(n))
	}
}

// where names a message for people: topic/partition@offset.
func where(topic string, partition int32, offset int64) string {
	return fmt.Sprintf("%s/%d@%d", topic, partition, offset)
}

// envelopeFields is the number of fields of a message's record.
const envelopeFields = 7

// record is faucet-cli 1.x's message record: {key, value, topic,
// partition, offset, timestamp (ms), headers} of msg, with its decoded
// value v, in the fields of the page's i-th record (in slab).
func (m *pageMem) record(slab []connector.Field, i int, msg *message, v connector.Value) connector.Record {
	fields := slab[i*envelopeFields : (i+1)*envelopeFields : (i+1)*envelopeFields]
	k := connector.Null()
	if key := m.bytes(msg.key); key != nil {
		k = connector.String(view(key))
	}
	fields[0] = connector.Field{Key: "key", Value: k}
	fields[1] = connector.Field{Key: "value", Value: v}
	fields[2] = connector.Field{Key: "topic", Value: connector.String(msg.topic)}
	fields[3] = connector.Field{Key: "partition", Value: connector.Int(int64(msg.partition))}
	fields[4] = connector.Field{Key: "offset", Value: connector.Int(msg.offset)}
	fields[5] = connector.Field{Key: "timestamp", Value: connector.Int(msg.timestamp)}
	fields[6] = connector.Field{Key: "headers", Value: m.headers(msg)}
	return connector.Record{Fields: fields}
}

// view is b as a string without a copy: every byte a record refers to is
// the page's own (pageMem), valid until the engine releases the page.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// value decodes a message value; a null value (a tombstone) is null.
func (d decoder) value(jp *connector.JSONParser, data []byte) (connector.Value, error) {
	if data == nil {
		return connector.Null(), nil
	}
	switch d.format {
	case "bytes":
		return connector.String(base64.StdEncoding.EncodeToString(data)), nil
	case "string":
		return connector.String(view(data)), nil
	}
	return jp.Parse(data)
}

// headers is an object in the order the headers came: a header sent once
// is a string, one sent several times a list of strings.
func (m *pageMem) headers(msg *message) connector.Value {
	hs := m.hdrs[msg.headers.start:msg.headers.end]
	if len(hs) == 0 {
		return connector.Object(connector.Record{})
	}
	r := connector.NewRecord(len(hs))
	for _, h := range hs {
		v := connector.String(view(m.bytes(h.value)))
		old, ok := r.Get(h.key)
		switch {
		case !ok:
			r.Set(h.key, v)
		case old.Kind() == connector.KindArray:
			r.Set(h.key, connector.Array(append(old.AsArray(), v)))
		default:
			r.Set(h.key, connector.Array([]connector.Value{old, v}))
		}
	}
	return connector.Object(r)
}
