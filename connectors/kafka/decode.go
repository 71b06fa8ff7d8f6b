package kafka

import (
	"encoding/base64"
	"fmt"
	"sync"
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

// decode fills p.Records (and p.Failed) from msgs into mem, and
// mem.origins with where each record came from. It runs on an engine
// worker; the parser is the page's own. The records refer to the bytes
// of the message values (the parser's strings are views), never to the
// kgo.Record structs themselves, so those can go once decode returns.
func (d decoder) decode(p *connector.Page, msgs []*kgo.Record, mem *pageMem) {
	jp := &mem.jp
	mem.size(len(msgs))
	p.Records = mem.recs[:0]
	for n, m := range msgs {
		v, err := d.value(jp, m.Value)
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
		i := len(p.Records)
		p.Records = append(p.Records, record(m, v, mem.fields[i*envelopeFields:(i+1)*envelopeFields:(i+1)*envelopeFields]))
		mem.origins = append(mem.origins, origin{topic: m.Topic, partition: m.Partition, offset: m.Offset, index: n})
	}
}

// origin is where a decoded record came from: its message, and that
// message's index in the page (failed and skipped messages included).
type origin struct {
	topic     string
	partition int32
	offset    int64
	index     int
}

// locate names decoded record i for people (topic/partition@offset) and
// gives its 1-based position in the run's stream, first being the number
// of messages taken before the page.
func (m *pageMem) locate(i int, first int64) (string, int64) {
	if m == nil || i < 0 || i >= len(m.origins) {
		return "", 0
	}
	o := m.origins[i]
	return o.String(), first + int64(o.index) + 1
}

func (o origin) String() string { return fmt.Sprintf("%s/%d@%d", o.topic, o.partition, o.offset) }

// envelopeFields is the number of fields of a message's record.
const envelopeFields = 7

// pageMem is the records and fields of one page (one slab each instead
// of a field slice per message) and the parser of its values, reused
// (memPool) once the engine has released the page.
type pageMem struct {
	jp      connector.JSONParser
	recs    []connector.Record
	fields  []connector.Field
	origins []origin // per record
}

var memPool sync.Pool

func getPageMem() *pageMem {
	if m, ok := memPool.Get().(*pageMem); ok {
		m.jp.Reset()
		return m
	}
	return &pageMem{}
}

// size makes room for n messages.
func (m *pageMem) size(n int) {
	if cap(m.recs) < n {
		m.recs = make([]connector.Record, 0, n)
	}
	if cap(m.fields) < n*envelopeFields {
		m.fields = make([]connector.Field, n*envelopeFields)
	}
	m.fields = m.fields[:n*envelopeFields]
	m.origins = m.origins[:0]
}

func (m *pageMem) put() {
	if m != nil {
		clear(m.fields) // drop the references to the page's messages
		clear(m.recs[:cap(m.recs)])
		clear(m.origins)
		memPool.Put(m)
	}
}

// where names a message for people: topic/partition@offset.
func where(m *kgo.Record) string {
	return origin{topic: m.Topic, partition: m.Partition, offset: m.Offset}.String()
}

// record is faucet-cli 1.x's message record: {key, value, topic,
// partition, offset, timestamp (ms), headers}, in fields (envelopeFields
// long).
func record(m *kgo.Record, v connector.Value, fields []connector.Field) connector.Record {
	key := connector.Null()
	if m.Key != nil {
		key = connector.String(string(m.Key))
	}
	fields[0] = connector.Field{Key: "key", Value: key}
	fields[1] = connector.Field{Key: "value", Value: v}
	fields[2] = connector.Field{Key: "topic", Value: connector.String(m.Topic)}
	fields[3] = connector.Field{Key: "partition", Value: connector.Int(int64(m.Partition))}
	fields[4] = connector.Field{Key: "offset", Value: connector.Int(m.Offset)}
	fields[5] = connector.Field{Key: "timestamp", Value: connector.Int(m.Timestamp.UnixMilli())}
	fields[6] = connector.Field{Key: "headers", Value: headers(m.Headers)}
	return connector.Record{Fields: fields}
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
	if len(hs) == 0 {
		return connector.Object(connector.Record{})
	}
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
