package kafka

import (
	"slices"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/recycle"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pageMem is everything one page holds: copies of its messages (taken
// while polling, so a page never holds on to franz-go's batches: a
// decompressed batch of a megabyte stays alive only until its last
// message is polled, whatever page that message lands in) and, once
// decoded, its records (decodeMem). It is reused (memPool) once the
// engine has trimmed or released the page.
type pageMem struct {
	msgs []message
	data []byte   // the keys, values and header values of msgs, back to back
	hdrs []header // the headers of msgs, back to back
	kept []int32  // per decoded record: its message's index in msgs

	dec *decodeMem
}

// decodeMem is a page's decoded records: their fields (one slab instead
// of a field slice per message) and the parser of their values. It is
// pooled apart from the messages because fewer pages need one: none of
// the pages still to be decoded.
type decodeMem struct {
	jp     connector.JSONParser
	recs   []connector.Record
	fields []connector.Field
}

// message is what a page keeps of a fetched message.
type message struct {
	topic      string
	partition  int32
	offset     int64
	timestamp  int64 // ms
	key, value span  // in pageMem.data
	headers    span  // in pageMem.hdrs
}

// header is a message header; its value is in pageMem.data.
type header struct {
	key   string
	value span
}

// span is a part of pageMem.data or pageMem.hdrs; a nil key or value
// (absent key, tombstone) has start -1.
type span struct{ start, end int }

// memPool keeps released pages' memory for the next page (the engine's
// writer releases pages, the source's reader takes them).
var memPool = recycle.List[*pageMem]{Max: recycle.PagesInFlight}

// decodePool keeps trimmed and released pages' decodeMem.
var decodePool = recycle.List[*decodeMem]{Max: recycle.PagesInFlight}

func getPageMem() *pageMem {
	if m, ok := memPool.Get(); ok {
		return m
	}
	return &pageMem{}
}

// add copies msgs into the page until it holds want messages or, with
// maxBytes > 0, until the next one would take the page's data (keys,
// values and header values) past maxBytes (a page takes its first
// message whatever its size), and returns the messages it did not take.
func (m *pageMem) add(msgs []*kgo.Record, want, maxBytes int) []*kgo.Record {
	n, need := 0, 0
	for _, r := range msgs {
		size := len(r.Key) + len(r.Value)
		for _, h := range r.Headers {
			size += len(h.Value)
		}
		if len(m.msgs)+n == want || maxBytes > 0 && len(m.msgs)+n > 0 && len(m.data)+need+size > maxBytes {
			break
		}
		n, need = n+1, need+size
	}
	m.data = slices.Grow(m.data, need)
	m.msgs = slices.Grow(m.msgs, n)
	for _, r := range msgs[:n] {
		msg := message{
			topic: r.Topic, partition: r.Partition, offset: r.Offset,
			timestamp: r.Timestamp.UnixMilli(),
			key:       m.keep(r.Key), value: m.keep(r.Value),
			headers: span{start: len(m.hdrs)},
		}
		for _, h := range r.Headers {
			// Header values point into the batch buffer too.
			m.hdrs = append(m.hdrs, header{key: h.Key, value: m.keep(h.Value)})
		}
		msg.headers.end = len(m.hdrs)
		m.msgs = append(m.msgs, msg)
	}
	if n == len(msgs) {
		return nil
	}
	return msgs[n:]
}

// keep appends b to data.
func (m *pageMem) keep(b []byte) span {
	if b == nil {
		return span{-1, -1}
	}
	s := span{start: len(m.data)}
	m.data = append(m.data, b...)
	s.end = len(m.data)
	return s
}

// bytes is the part of data s covers (nil for a nil key or value).
func (m *pageMem) bytes(s span) []byte {
	if s.start < 0 {
		return nil
	}
	return m.data[s.start:s.end:s.end]
}

// takeDecodeMem gives the page a decodeMem with room for the records of
// every message.
func (m *pageMem) takeDecodeMem() *decodeMem {
	d, ok := decodePool.Get()
	if !ok {
		d = &decodeMem{}
	}
	n := len(m.msgs)
	if cap(d.recs) < n {
		d.recs = make([]connector.Record, 0, n)
	}
	if cap(d.fields) < n*envelopeFields {
		d.fields = make([]connector.Field, n*envelopeFields)
	}
	d.fields = d.fields[:n*envelopeFields]
	m.dec = d
	m.kept = m.kept[:0]
	return d
}

// dropDecoded gives the decoded records' memory back.
func (m *pageMem) dropDecoded() {
	if d := m.dec; d != nil {
		m.dec = nil
		d.jp.Reset()
		clear(d.fields) // drop the references into data and the parser
		clear(d.recs[:cap(d.recs)])
		d.recs = d.recs[:0]
		decodePool.Put(d)
	}
}

// put empties the page's memory and pools it.
func (m *pageMem) put() {
	if m == nil {
		return
	}
	m.dropDecoded()
	clear(m.msgs) // drop the topics
	clear(m.hdrs) // and the header keys
	m.msgs, m.data, m.hdrs, m.kept = m.msgs[:0], m.data[:0], m.hdrs[:0], m.kept[:0]
	memPool.Put(m)
}

// locate names decoded record i for people (topic/partition@offset) and
// gives its 1-based position in the run's stream, first being the number
// of messages taken before the page.
func (m *pageMem) locate(i int, first int64) (string, int64) {
	if m == nil || i < 0 || i >= len(m.kept) {
		return "", 0
	}
	j := m.kept[i]
	return m.msgs[j].where(), first + int64(j) + 1
}

// where names a message for people: topic/partition@offset.
func (msg *message) where() string { return where(msg.topic, msg.partition, msg.offset) }
