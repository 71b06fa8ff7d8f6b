package kafka

import (
	"bytes"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestPageMemAddLimits: add takes messages until the page holds want of
// them or the next would take the page's keys and values past maxBytes;
// the first message of a page is taken whatever its size, and what is
// not taken is handed back in order. Header values count as data.
func TestPageMemAddLimits(t *testing.T) {
	msg := func(n int) *kgo.Record { return &kgo.Record{Key: []byte("k"), Value: bytes.Repeat([]byte("v"), n-1)} }
	for _, c := range []struct {
		name            string
		already         []int // sizes (key + value) already in the page
		sizes           []int
		want, maxBytes  int
		taken, leftover int
	}{
		{"count", nil, []int{10, 10, 10}, 2, 0, 2, 1},
		{"all", nil, []int{10, 10, 10}, 5, 0, 3, 0},
		{"bytes", nil, []int{10, 10, 10}, 100, 25, 2, 1},
		{"bytes exactly", nil, []int{10, 10, 10}, 100, 20, 2, 1},
		{"first message over the limit", nil, []int{50, 10}, 100, 25, 1, 1},
		{"page already holds bytes", []int{20}, []int{10, 10}, 100, 25, 0, 2},
		{"page already holds messages", []int{10}, []int{10, 10}, 2, 0, 1, 1},
	} {
		m := &pageMem{}
		for _, n := range c.already {
			m.add([]*kgo.Record{msg(n)}, 1000, 0)
		}
		var in []*kgo.Record
		for _, n := range c.sizes {
			in = append(in, msg(n))
		}
		left := m.add(in, c.want, c.maxBytes)
		if got := len(m.msgs) - len(c.already); got != c.taken || len(left) != c.leftover {
			t.Errorf("%s: took %d, left %d; want %d and %d", c.name, got, len(left), c.taken, c.leftover)
		}
		if len(left) > 0 && left[0] != in[c.taken] {
			t.Errorf("%s: the leftover does not start after the last message taken", c.name)
		}
		if c.maxBytes > 0 && len(m.msgs) > 1 && len(m.data) > c.maxBytes {
			t.Errorf("%s: %d bytes in a page of at most %d", c.name, len(m.data), c.maxBytes)
		}
	}
}

func TestPageMemAddCountsHeaderValues(t *testing.T) {
	msg := &kgo.Record{Key: []byte("k"), Value: []byte("v"), Headers: []kgo.RecordHeader{{Key: "h", Value: bytes.Repeat([]byte("x"), 18)}}}
	m := &pageMem{}
	// 20 bytes a message with its header value: two fit in 45, three do not.
	left := m.add([]*kgo.Record{msg, msg, msg}, 1000, 45)
	if len(m.msgs) != 2 || len(left) != 1 || len(m.data) != 40 {
		t.Fatalf("took %d (%d bytes), left %d; want 2 (40 bytes) and 1", len(m.msgs), len(m.data), len(left))
	}
	if got := string(m.bytes(m.hdrs[m.msgs[1].headers.start].value)); got != string(msg.Headers[0].Value) {
		t.Fatalf("second message's header value %q", got)
	}
}

// TestPageTrimGivesItsMemoryBack: once the engine trims an encoded
// page, all its memory is back in the pools for the next page, and the
// Release that follows does not pool it twice.
func TestPageTrimGivesItsMemoryBack(t *testing.T) {
	for {
		if _, ok := memPool.Get(); !ok {
			break
		}
	}
	m := getPageMem()
	m.add([]*kgo.Record{
		{Topic: "t", Partition: 1, Offset: 7, Value: []byte(`{"a":1}`)},
		{Topic: "t", Partition: 1, Offset: 8, Value: []byte(`not json`)},
		{Topic: "t", Partition: 1, Offset: 9, Value: []byte(`{"a":"\u00e9"}`)},
	}, 10, 0)
	s := &Source{dec: decoder{format: "json", skipBad: true, skipped: new(atomic.Int64)}, next: positions{}}
	p := s.page(m)
	if err := p.Materialize(); err != nil || len(p.Records) != 2 {
		t.Fatalf("decoded %d records (%v)", len(p.Records), err)
	}
	if loc, row := p.Locate(1); loc != "t/1@9" || row != 3 {
		t.Fatalf("record 1 is %s (row %d), want t/1@9 (row 3)", loc, row)
	}
	dec := m.dec
	p.TrimRecords()
	if p.Records != nil || p.Locate != nil || p.Bookmark == nil {
		t.Fatal("a trimmed page keeps its records or Locate, or lost its bookmark")
	}
	if m.dec != nil || len(m.msgs) != 0 {
		t.Fatal("trimming kept the page's memory")
	}
	if got, ok := decodePool.Get(); !ok || got != dec {
		t.Fatal("the trimmed page's decoded memory is not the pool's next")
	}
	p.Done()
	if got, ok := memPool.Get(); !ok || got != m {
		t.Fatal("the trimmed page's memory is not in the pool")
	}
	if _, ok := memPool.Get(); ok {
		t.Fatal("Release after Trim pooled the page's memory a second time")
	}
}
