package kafka

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// highWater is how many messages topic holds (its partitions' ends).
func highWater(t testing.TB, k *cluster, topic string) int {
	t.Helper()
	parts, err := partitions(t.Context(), k.cl, []string{topic})
	if err != nil {
		t.Fatal(err)
	}
	ends, err := listOffsets(t.Context(), k.cl, parts, -1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ends {
		n += int(e)
	}
	return n
}

func newTestSink(t testing.TB, c connector.Config) *Sink {
	t.Helper()
	s, err := newSink(c)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Sink)
}

func fixed(name string) map[string]any { return map[string]any{"type": "fixed", "name": name} }

func TestSinkRoundTripReadByAPlainConsumer(t *testing.T) {
	k := newCluster(t, 3, "out")
	s := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", fixed("out"), "key_path", "$.id",
		"headers_path", "$.meta.h", "compression", "zstd"))
	recs := connectortest.Records(2500)
	recs[0].Set("meta", connector.Object(rec(`{"h":{"trace":"t1","multi":["x","y"],"n":7}}`).Clone()))
	var pages []*connector.Page
	for i := 0; i < len(recs); i += 1000 {
		pages = append(pages, &connector.Page{Records: recs[i:min(i+1000, len(recs))], Seq: uint64(len(pages))})
	}
	if err := connectortest.WritePages(t.Context(), s, pages...); err != nil {
		t.Fatal(err)
	}
	got := k.readAll(t, "out", 2500)
	if len(got) != 2500 {
		t.Fatalf("read %d messages, want 2500", len(got))
	}
	byKey := map[string]*kgo.Record{}
	perPartition := map[int32][]string{}
	for _, m := range got {
		byKey[string(m.Key)] = m
		perPartition[m.Partition] = append(perPartition[m.Partition], string(m.Key))
	}
	for i, r := range recs {
		m := byKey[strconv.Itoa(i+1)]
		if m == nil {
			t.Fatalf("no message with key %d", i+1)
		}
		if want := string(connector.AppendRecordJSON(nil, r)); string(m.Value) != want {
			t.Fatalf("message %d value %s, want %s", i+1, m.Value, want)
		}
	}
	var hs []string
	for _, h := range byKey["1"].Headers {
		hs = append(hs, h.Key+"="+string(h.Value))
	}
	if strings.Join(hs, ",") != "trace=t1,multi=x,multi=y,n=7" {
		t.Fatalf("headers %v", hs)
	}
	// Keys are hashed to partitions: all three are used, and within one
	// the order of the records is kept.
	if len(perPartition) != 3 {
		t.Fatalf("messages went to %d partitions, want 3", len(perPartition))
	}
	for p, keys := range perPartition {
		for i := 1; i < len(keys); i++ {
			a, _ := strconv.Atoi(keys[i-1])
			b, _ := strconv.Atoi(keys[i])
			if a >= b {
				t.Fatalf("partition %d: key %d after %d", p, b, a)
			}
		}
	}
}

func TestSinkTopicAndPartitionFromRecords(t *testing.T) {
	k := newCluster(t, 2, "a", "b")
	s := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", map[string]any{"type": "from_path", "path": "$.to.topic"},
		"partition_path", "$.p"))
	page := &connector.Page{Records: []connector.Record{
		rec(`{"to":{"topic":"a"},"p":1,"n":1}`),
		rec(`{"to":{"topic":"b"},"p":0,"n":2}`),
		rec(`{"to":{"topic":"a"},"p":1,"n":3}`),
	}}
	if err := connectortest.WritePages(t.Context(), s, page); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range append(k.readAll(t, "a", 2), k.readAll(t, "b", 1)...) {
		got = append(got, fmt.Sprintf("%s/%d %s", m.Topic, m.Partition, m.Value))
	}
	want := []string{`a/1 {"to":{"topic":"a"},"p":1,"n":1}`, `a/1 {"to":{"topic":"a"},"p":1,"n":3}`, `b/0 {"to":{"topic":"b"},"p":0,"n":2}`}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestSinkBadRecordsFailThePageBeforeProducing(t *testing.T) {
	k := newCluster(t, 1, "out")
	for _, c := range []struct {
		name string
		kv   []any
		bad  string
		want string
	}{
		{"no topic", []any{"topic", map[string]any{"type": "from_path", "path": "$.to"}}, `{"id":2}`,
			"kafka: record 2 of page 0: topic path $.to: want a string, got nothing (missing)"},
		{"topic not a name", []any{"topic", map[string]any{"type": "from_path", "path": "$.to"}}, `{"to":"a b"}`, "not a valid topic name"},
		{"partition not a number", []any{"topic", fixed("out"), "partition_path", "$.p"}, `{"p":"1"}`,
			`partition_path $.p: want a partition number, got string "1"`},
		{"headers not an object", []any{"topic", fixed("out"), "headers_path", "$.h"}, `{"h":[1]}`, "headers_path $.h: want an object, got array"},
		{"header an object", []any{"topic", fixed("out"), "headers_path", "$.h"}, `{"h":{"x":{}}}`, `header "x" is an object`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSink(t, cfg(t, append([]any{"brokers", k.brokers}, c.kv...)...))
			good := rec(`{"to":"out","p":0,"h":{}}`)
			err := connectortest.WritePages(t.Context(), s, &connector.Page{Records: []connector.Record{good, rec(c.bad)}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if n := highWater(t, k, "out"); n != 0 {
				t.Fatalf("a page that failed produced %d messages", n)
			}
		})
	}
}

// A page longer than a partSize is built part by part: a bad record in
// a later part still fails the whole page before any part is produced,
// and is named by its place in the page.
func TestSinkBadRecordInALaterPartFailsThePage(t *testing.T) {
	k := newCluster(t, 1, "out")
	s := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", fixed("out"), "partition_path", "$.p"))
	bad := 2*partSize + 3 // 0-based
	page := &connector.Page{Seq: 6}
	for i := range 2*partSize + 10 {
		if i == bad {
			page.Records = append(page.Records, rec(`{"p":"x"}`))
			continue
		}
		page.Records = append(page.Records, rec(`{"p":0}`))
	}
	err := connectortest.WritePages(t.Context(), s, page)
	want := fmt.Sprintf("kafka: record %d of page 6: partition_path $.p", bad+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if n := highWater(t, k, "out"); n != 0 {
		t.Fatalf("a page that failed produced %d messages", n)
	}
}

func TestSinkDeliveryFailureFailsFlush(t *testing.T) {
	k := newCluster(t, 1, "out")
	s := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", fixed("out"), "partition_path", "$.p", "message_timeout", 5))
	if err := s.Open(t.Context(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Write(t.Context(), &connector.Page{Records: []connector.Record{rec(`{"p":0}`), rec(`{"p":7}`)}, Seq: 4}); err != nil {
		t.Fatal(err)
	}
	err := s.Flush(t.Context())
	if err == nil || !strings.Contains(err.Error(), `kafka: record 2 of page 4 to topic "out"`) {
		t.Fatalf("Flush: %v, want the failed record named", err)
	}
	// In a later part of a long page, the record keeps its page position.
	s2 := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", fixed("out"), "partition_path", "$.p", "message_timeout", 5))
	if err := s2.Open(t.Context(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	long := &connector.Page{Seq: 9}
	for i := range partSize + 20 {
		long.Records = append(long.Records, rec(fmt.Sprintf(`{"p":%d}`, map[bool]int{true: 7}[i == partSize+5])))
	}
	if err := s2.Write(t.Context(), long); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`kafka: record %d of page 9 to topic "out"`, partSize+6)
	if err := s2.Flush(t.Context()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Flush: %v, want %q", err, want)
	}
	// The failure sticks: the run must fail, not save a bookmark later.
	if err := s.Write(t.Context(), &connector.Page{Records: []connector.Record{rec(`{"p":0}`)}}); err == nil {
		t.Fatal("Write after a delivery failure succeeded")
	}
}

func TestSinkOpenErrors(t *testing.T) {
	k := newCluster(t, 1, "out")
	for _, c := range []struct {
		name string
		kv   []any
		want string
	}{
		{"unreachable broker", []any{"brokers", "127.0.0.1:1", "topic", fixed("out"), "open_timeout", 2}, "kafka: no broker of 127.0.0.1:1 answered"},
		{"missing topic", []any{"brokers", k.brokers, "topic", fixed("nope")}, `kafka: topic "nope" does not exist`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSink(t, cfg(t, c.kv...))
			err := s.Open(t.Context(), connector.SinkOptions{})
			_ = s.Close()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open: %v, want %q", err, c.want)
			}
		})
	}
}

func TestSinkConfigErrors(t *testing.T) {
	for _, c := range []struct {
		kv   []any
		want string
	}{
		{[]any{"brokers", "k:1", "topic", map[string]any{"type": "static", "name": "a"}}, "topic.type: must be one of fixed, from_path"},
		{[]any{"brokers", "k:1", "topic", map[string]any{"type": "fixed", "name": "a", "path": "$.t"}}, "topic.path: does not apply to type fixed"},
		{[]any{"brokers", "k:1", "topic", map[string]any{"type": "from_path", "path": "$."}}, "is not a JSONPath"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "partition_path", "$.a.*"}, "only $.name.name paths"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "acks", "none"}, "idempotent: needs acks: all"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "message_timeout", 0}, "message_timeout: must be a positive number"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "transactional_id_prefix", " "}, "transactional_id_prefix: must not be empty"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "commit_token_topic", "a:b"}, "commit_token_topic"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "commit_token_topic_partitions", 0}, "commit_token_topic_partitions: must be at least 1"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "commit_token_topic_replication", 0}, "commit_token_topic_replication: must be -1"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "batch_max_bytes", 100}, "batch_max_bytes: must be between 1024"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "max_buffered_bytes", 4096}, "max_buffered_bytes: must be at least batch_max_bytes"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "max_message_bytes", 4096}, "max_message_bytes: must be between batch_max_bytes (65536)"},
		{[]any{"brokers", "k:1", "topic", fixed("a"), "max_buffered_records", 0}, "max_buffered_records: must be at least 1"},
	} {
		_, err := newSink(cfg(t, c.kv...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.kv, err, c.want)
		}
	}
	if _, err := newSink(cfg(t, "brokers", "k:1", "topic", fixed("a"), "acks", "none", "idempotent", false)); err != nil {
		t.Errorf("acks none without idempotence: %v", err)
	}
}

// TestSinkSmallBuffersKeepEveryMessage produces many pages through a
// producer whose buffer holds a fraction of one page (max_buffered_bytes
// and max_buffered_records far below a page), so Write waits for
// acknowledgements and the pages' message memory is reused while later
// pages are produced; the topics come from the records, and the text
// their strings point into is overwritten once Write returns, as the
// engine may reuse a released page. Every message must arrive intact, in
// order, on the topic its record named.
func TestSinkSmallBuffersKeepEveryMessage(t *testing.T) {
	k := newCluster(t, 1, "even", "odd")
	s := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", map[string]any{"type": "from_path", "path": "$.t"},
		"batch_max_bytes", 2048, "max_buffered_bytes", 2048, "max_buffered_records", 7, "linger", 0))
	// Pages longer than a partSize: a page's parts are settled, and
	// reused, one by one.
	const pages, per = 8, partSize + partSize/2
	var list []*connector.Page
	var texts [][]byte // the JSON the records' strings point into
	for p := range pages {
		page := &connector.Page{Seq: uint64(p)}
		for i := range per {
			n := p*per + i
			text := fmt.Appendf(nil, `{"t":%q,"n":%d}`, []string{"even", "odd"}[n%2], n)
			v, err := connector.ParseJSONZeroCopy(text)
			if err != nil {
				t.Fatal(err)
			}
			page.Records = append(page.Records, v.AsObject())
			texts = append(texts, text)
		}
		list = append(list, page)
	}
	if err := s.Open(t.Context(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for p, page := range list {
		if err := s.Write(t.Context(), page); err != nil {
			t.Fatal(err)
		}
		// The engine may reuse a written page's memory: scribble over
		// the text its strings (the topics) point into.
		for _, text := range texts[p*per : (p+1)*per] {
			for i := range text {
				text[i] = 'x'
			}
		}
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	for parity, topic := range []string{"even", "odd"} {
		msgs := k.readAll(t, topic, pages*per/2)
		for i, m := range msgs {
			want := fmt.Sprintf(`{"t":%q,"n":%d}`, topic, 2*i+parity)
			if string(m.Value) != want {
				t.Fatalf("%s message %d = %s, want %s", topic, i, m.Value, want)
			}
		}
	}
}
