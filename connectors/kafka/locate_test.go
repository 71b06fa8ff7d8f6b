package kafka

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestPageLocatesRecordsPastFailedMessages: Locate takes a record's index
// among the decoded records, which a message that failed to decode (or
// was skipped) shifts against the messages; it must still name the
// record's own message and its position in the stream.
func TestPageLocatesRecordsPastFailedMessages(t *testing.T) {
	for _, skip := range []bool{false, true} {
		s := &Source{next: positions{}, taken: 10}
		s.dec = decoder{format: "json", skipBad: skip, skipped: &s.skipped}
		mem := getPageMem()
		mem.add([]*kgo.Record{
			{Topic: "t", Partition: 2, Offset: 40, Value: []byte(`not json`)},
			{Topic: "t", Partition: 2, Offset: 41, Value: []byte(`{"id":1}`)},
			{Topic: "u", Partition: 0, Offset: 7, Value: []byte(`{"id":2}`)},
		}, 1000, 0)
		p := s.page(mem)
		if err := p.Decode(p); err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 2 {
			t.Fatalf("skip=%v: %d records, want 2", skip, len(p.Records))
		}
		for i, want := range []struct {
			loc string
			row int64
		}{{"t/2@41", 12}, {"u/0@7", 13}} {
			loc, row := p.Locate(i)
			if loc != want.loc || row != want.row {
				t.Errorf("skip=%v: Locate(%d) = %q, %d; want %q, %d", skip, i, loc, row, want.loc, want.row)
			}
		}
		if loc, _ := p.Locate(2); loc != "" {
			t.Errorf("skip=%v: Locate past the records = %q", skip, loc)
		}
		if v, _ := p.Records[1].Get("value"); v.Kind() != connector.KindObject {
			t.Errorf("skip=%v: record 1 value %v", skip, v)
		}
		p.Release()
	}
}

// TestPageKeepsCopies: a page copies what it keeps of its messages (key,
// value, header values), so franz-go may reuse a batch's buffer once the
// messages are polled; keys and tombstones keep their nil-ness.
func TestPageKeepsCopies(t *testing.T) {
	val, key, hv := []byte(`{"id":1}`), []byte("k"), []byte("h1")
	msgs := []*kgo.Record{
		{Topic: "t", Offset: 1, Key: key, Value: val, Headers: []kgo.RecordHeader{{Key: "h", Value: hv}}},
		{Topic: "t", Offset: 2, Key: []byte{}, Value: nil},
		{Topic: "t", Offset: 3, Value: []byte(`"x"`)},
	}
	mem := getPageMem()
	mem.add(msgs[:2], 1000, 0)
	mem.add(msgs[2:], 1000, 0) // a second poll into the same page
	for _, b := range [][]byte{val, key, hv} {
		for i := range b {
			b[i] = 'X'
		}
	}
	s := &Source{next: positions{}}
	s.dec = decoder{format: "json", skipped: &s.skipped}
	p := s.page(mem)
	if err := p.Decode(p); err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, r := range p.Records {
		got = append(got, string(connector.AppendRecordJSON(nil, r)))
	}
	want := []string{
		`{"key":"k","value":{"id":1},"topic":"t","partition":0,"offset":1,"timestamp":-62135596800000,"headers":{"h":"h1"}}`,
		`{"key":"","value":null,"topic":"t","partition":0,"offset":2,"timestamp":-62135596800000,"headers":{}}`,
		`{"key":null,"value":"x","topic":"t","partition":0,"offset":3,"timestamp":-62135596800000,"headers":{}}`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if bm, _ := p.Bookmark.AsObject().Get("partition_offsets"); len(bm.AsArray()) != 1 {
		t.Errorf("bookmark %v", p.Bookmark)
	}
	p.Release()
}
