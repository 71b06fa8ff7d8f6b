package nats

import (
	"encoding/base64"
	"slices"
	"time"

	"github.com/faucet-hq/faucet/connector"
	natsgo "github.com/nats-io/nats.go"
)

// message is what the source keeps of a received message until its page
// is decoded.
type message struct {
	data    []byte
	subject string
	header  natsgo.Header
	seq     uint64    // JetStream stream sequence; 0 for core NATS
	time    time.Time // JetStream storage time
}

// decoder turns messages into records (value_format and include).
type decoder struct {
	format                              string
	subject, headers, sequence, stamped bool
}

func newDecoder(format string, include []string) decoder {
	d := decoder{format: format}
	for _, inc := range include {
		switch inc {
		case "subject":
			d.subject = true
		case "headers":
			d.headers = true
		case "sequence":
			d.sequence = true
		case "timestamp":
			d.stamped = true
		}
	}
	return d
}

func (d decoder) envelope() bool { return d.subject || d.headers || d.sequence || d.stamped }

// decode fills p.Records from msgs. It runs on an engine worker.
func (d decoder) decode(p *connector.Page, msgs []message) {
	var jp connector.JSONParser
	p.Records = make([]connector.Record, 0, len(msgs))
	for i := range msgs {
		p.Records = append(p.Records, d.record(&jp, &msgs[i]))
	}
}

// record is the message's record: the payload itself when it is a JSON
// object and no metadata was asked for, otherwise {..., value}.
func (d decoder) record(jp *connector.JSONParser, m *message) connector.Record {
	v := d.value(jp, m.data)
	if !d.envelope() {
		if v.Kind() == connector.KindObject {
			return v.AsObject()
		}
		r := connector.NewRecord(1)
		r.Set("value", v)
		return r
	}
	r := connector.NewRecord(5)
	if d.subject {
		r.Set("subject", connector.String(m.subject))
	}
	if d.sequence {
		r.Set("sequence", connector.Int(int64(m.seq)))
	}
	if d.stamped {
		r.Set("timestamp", connector.Int(m.time.UnixMilli()))
	}
	if d.headers {
		r.Set("headers", headerValue(m.header))
	}
	r.Set("value", v)
	return r
}

// value decodes a payload: JSON where it parses (anything else is kept as
// text), the text itself, or base64.
func (d decoder) value(jp *connector.JSONParser, data []byte) connector.Value {
	switch d.format {
	case "bytes":
		return connector.String(base64.StdEncoding.EncodeToString(data))
	case "string":
		return connector.String(string(data))
	}
	if v, err := jp.Parse(data); err == nil {
		return v
	}
	return connector.String(string(data))
}

// headerValue is the headers as an object in key order: a header with one
// value is a string, one with several a list of strings.
func headerValue(h natsgo.Header) connector.Value {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	r := connector.NewRecord(len(keys))
	for _, k := range keys {
		vals := h[k]
		if len(vals) == 1 {
			r.Set(k, connector.String(vals[0]))
			continue
		}
		list := make([]connector.Value, len(vals))
		for i, v := range vals {
			list[i] = connector.String(v)
		}
		r.Set(k, connector.Array(list))
	}
	return connector.Object(r)
}
