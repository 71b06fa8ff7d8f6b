package kafka

import (
	"bytes"
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
