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
		p := s.page([]*kgo.Record{
			{Topic: "t", Partition: 2, Offset: 40, Value: []byte(`not json`)},
			{Topic: "t", Partition: 2, Offset: 41, Value: []byte(`{"id":1}`)},
			{Topic: "u", Partition: 0, Offset: 7, Value: []byte(`{"id":2}`)},
		})
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
