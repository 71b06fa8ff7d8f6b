package kafka

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestSourceResumesFromTheBookmarkOnly(t *testing.T) {
	k := newCluster(t, 2, "orders")
	k.ids(t, "orders", 0, 1, 5)
	k.ids(t, "orders", 1, 6, 8)
	c := k.source(t, "topics", []any{"orders"}, "auto_offset_reset", "earliest", "idle_timeout", 1, "batch_size", 3)

	first := readRun(t, c, nil)
	got := valueIDs(t, first.recs)
	slices.Sort(got)
	if !slices.Equal(got, seqIDs(1, 8)) {
		t.Fatalf("first run read %v, want 1..8", got)
	}
	want := `{"partition_offsets":[{"topic":"orders","partition":0,"offset":5},{"topic":"orders","partition":1,"offset":3}]}`
	if first.bookmark == nil || first.bookmark.String() != want {
		t.Fatalf("first run bookmark %v, want %s", first.bookmark, want)
	}

	k.ids(t, "orders", 0, 9, 10)
	k.ids(t, "orders", 1, 11, 11)
	second := readRun(t, c, first.bookmark)
	got = valueIDs(t, second.recs)
	slices.Sort(got)
	if !slices.Equal(got, seqIDs(9, 11)) {
		t.Fatalf("second run read %v, want only the new 9..11", got)
	}
	want = `{"partition_offsets":[{"topic":"orders","partition":0,"offset":7},{"topic":"orders","partition":1,"offset":4}]}`
	if second.bookmark == nil || second.bookmark.String() != want {
		t.Fatalf("second run bookmark %v, want %s", second.bookmark, want)
	}

	// A run from the final bookmark with nothing new reads nothing.
	third := readRun(t, c, second.bookmark)
	if len(third.recs) != 0 {
		t.Fatalf("third run read %d records, want 0", len(third.recs))
	}
}

func TestSourceLatestStartsAtTheEndAndKeepsEmptyPartitions(t *testing.T) {
	k := newCluster(t, 2, "ev")
	k.ids(t, "ev", 0, 1, 4)
	// auto_offset_reset latest: nothing of what is there is read, but the
	// bookmark holds every partition's end, so what comes between runs is
	// not lost.
	c := k.source(t, "topics", []any{"ev"}, "idle_timeout", 1)
	src := openSource(t, c, nil)
	k.ids(t, "ev", 1, 5, 5) // arrives while the run is open
	var r run
	for {
		p, err := connectortest.NextPage(t.Context(), src)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		r.recs = append(r.recs, p.Records...)
		r.bookmark = p.Bookmark
	}
	if got := valueIDs(t, r.recs); !slices.Equal(got, []int64{5}) {
		t.Fatalf("latest read %v, want [5]", got)
	}
	want := `{"partition_offsets":[{"topic":"ev","partition":0,"offset":4},{"topic":"ev","partition":1,"offset":1}]}`
	if r.bookmark.String() != want {
		t.Fatalf("bookmark %v, want %s", r.bookmark, want)
	}
	k.ids(t, "ev", 0, 6, 6)
	again := readRun(t, c, r.bookmark)
	if got := valueIDs(t, again.recs); !slices.Equal(got, []int64{6}) {
		t.Fatalf("second run read %v, want [6]", got)
	}
}

func TestSourceRecordFieldsAndFormats(t *testing.T) {
	k := newCluster(t, 1, "t")
	k.produce(t,
		&kgo.Record{Topic: "t", Key: []byte("a"), Value: []byte(`{"x":1}`),
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("1")}, {Key: "m", Value: []byte("x")}, {Key: "m", Value: []byte("y")}}},
		&kgo.Record{Topic: "t", Value: []byte{0, 0xff}},
		&kgo.Record{Topic: "t", Key: []byte("tomb")}, // null value
	)
	for _, c := range []struct {
		format string
		values []string
	}{
		{"string", []string{`"{\"x\":1}"`, "\"\\u0000\ufffd\"", `null`}}, // invalid UTF-8 becomes U+FFFD in JSON
		{"bytes", []string{`"` + base64.StdEncoding.EncodeToString([]byte(`{"x":1}`)) + `"`, `"AP8="`, `null`}},
	} {
		r := readRun(t, k.source(t, "topics", []any{"t"}, "auto_offset_reset", "earliest", "max_messages", 3, "value_format", c.format), nil)
		if len(r.recs) != 3 {
			t.Fatalf("%s: %d records, want 3", c.format, len(r.recs))
		}
		for i, want := range c.values {
			if v, _ := r.recs[i].Get("value"); v.String() != want {
				t.Errorf("%s: record %d value %s, want %s", c.format, i, v, want)
			}
		}
	}
	r := readRun(t, k.source(t, "topics", []any{"t"}, "auto_offset_reset", "earliest", "max_messages", 1), nil)
	got := connector.Object(r.recs[0])
	ts, _ := r.recs[0].Get("timestamp")
	if ts.Kind() != connector.KindInt || ts.AsInt() <= 0 {
		t.Fatalf("timestamp %v, want milliseconds", ts)
	}
	r.recs[0].Set("timestamp", connector.Int(0))
	want := `{"key":"a","value":{"x":1},"topic":"t","partition":0,"offset":0,"timestamp":0,"headers":{"h":"1","m":["x","y"]}}`
	if got.String() != want {
		t.Fatalf("record %s, want %s", got, want)
	}
}

func TestSourceDecodeErrors(t *testing.T) {
	k := newCluster(t, 1, "t")
	k.produce(t,
		&kgo.Record{Topic: "t", Value: []byte(`{"id":1}`)},
		&kgo.Record{Topic: "t", Value: []byte(`not json`)},
		&kgo.Record{Topic: "t", Value: []byte(`{"id":3}`)},
	)
	fail := readRun(t, k.source(t, "topics", []any{"t"}, "auto_offset_reset", "earliest", "max_messages", 3), nil)
	if got := valueIDs(t, fail.recs); !slices.Equal(got, []int64{1, 3}) {
		t.Fatalf("fail: records %v, want [1 3]", got)
	}
	if len(fail.failed) != 1 || fail.failed[0].Raw != "not json" || !strings.Contains(fail.failed[0].Error(), "t/0@1: kafka: value is not JSON") {
		t.Fatalf("fail: failed records %v", fail.failed)
	}
	skip := readRun(t, k.source(t, "topics", []any{"t"}, "auto_offset_reset", "earliest", "max_messages", 3, "on_decode_error", "skip"), nil)
	if got := valueIDs(t, skip.recs); !slices.Equal(got, []int64{1, 3}) || len(skip.failed) != 0 {
		t.Fatalf("skip: records %v, failed %d", got, len(skip.failed))
	}
	// The skipped message still moves the bookmark on.
	if want := `{"partition_offsets":[{"topic":"t","partition":0,"offset":3}]}`; skip.bookmark.String() != want {
		t.Fatalf("skip: bookmark %v, want %s", skip.bookmark, want)
	}
}

func TestSourceIdleTimeoutEndsAnEmptyRun(t *testing.T) {
	k := newCluster(t, 3, "quiet")
	r := readRun(t, k.source(t, "topics", []any{"quiet"}, "idle_timeout", 0.2), nil)
	if len(r.recs) != 0 || r.bookmark != nil {
		t.Fatalf("an idle run read %d records, bookmark %v", len(r.recs), r.bookmark)
	}
}

func TestSourceOpenErrors(t *testing.T) {
	k := newCluster(t, 1, "t")
	for _, c := range []struct {
		name  string
		cfg   connector.Config
		start string
		want  string
	}{
		{"unreachable broker", cfg(t, "brokers", "127.0.0.1:1", "topics", []any{"t"}, "idle_timeout", 1, "open_timeout", 2),
			"", "kafka: no broker of 127.0.0.1:1 answered"},
		{"missing topic", k.source(t, "topics", []any{"t", "nope"}, "idle_timeout", 1), "", `kafka: topic "nope" does not exist`},
		{"foreign bookmark", k.source(t, "topics", []any{"t"}, "idle_timeout", 1), `{"last_lsn":"0/1"}`, "is not a kafka bookmark"},
		{"bookmark beyond the end", k.source(t, "topics", []any{"t"}, "idle_timeout", 1),
			`{"partition_offsets":[{"topic":"t","partition":0,"offset":9}]}`, `bookmark offset 9 of topic "t" partition 0 is beyond its end (0)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := newSource(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var start *connector.Value
			if c.start != "" {
				v, err := connector.ParseJSON([]byte(c.start))
				if err != nil {
					t.Fatal(err)
				}
				start = &v
			}
			err = src.Open(context.Background(), connector.SourceOptions{StartBookmark: start})
			_ = src.Close()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open: %v, want %q", err, c.want)
			}
		})
	}
}

func TestSourceConfigErrors(t *testing.T) {
	for _, c := range []struct {
		kv   []any
		want string
	}{
		{[]any{"brokers", "k:9092", "topics", []any{"a"}}, "give idle_timeout or max_messages"},
		{[]any{"brokers", "k", "topics", []any{"a"}, "max_messages", 1}, `brokers: entry 0 ("k") is not host:port`},
		{[]any{"brokers", " , ", "topics", []any{"a"}, "max_messages", 1}, "give at least one broker"},
		{[]any{"brokers", "k:9092", "topics", []any{"a", "a"}, "max_messages", 1}, `topics[1]: topic "a" is listed twice`},
		{[]any{"brokers", "k:9092", "topics", []any{"a/b"}, "max_messages", 1}, "not a valid topic name"},
		{[]any{"brokers", "k:9092", "topics", []any{"a"}, "idle_timeout", -1}, "idle_timeout: must be a positive number"},
		{[]any{"brokers", "k:9092", "topics", []any{"a"}, "max_messages", 1, "auto_offset_reset", "smallest"}, "must be one of latest, earliest"},
		{[]any{"brokers", "k:9092", "topics", []any{"a"}, "max_messages", 1, "fetch_max_bytes", 10}, "fetch_max_bytes: must be 0 (sized to the round trip) or between 1024"},
		{[]any{"brokers", "k:9092", "topics", []any{"a"}, "max_messages", 1, "batch_bytes", -1}, "batch_bytes: must be between 0 (no limit)"},
		{[]any{"brokers", "k:9092", "topics", []any{"a"}, "max_messages", 1, "fetch_max_bytes", 1 << 20, "fetch_max_partition_bytes", 2 << 20}, "fetch_max_partition_bytes: must be 0 (sized to the round trip) or between 1024 and fetch_max_bytes (1048576)"},
		{[]any{"brokers", "k:9092", "topics", []any{"a"}, "max_messages", 1, "fetch_max_partition_bytes", 100}, "fetch_max_partition_bytes: must be 0 (sized to the round trip) or between 1024"},
	} {
		_, err := newSource(cfg(t, c.kv...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.kv, err, c.want)
		}
	}
}

func TestSourceStartPositionsFromPartialOrStaleBookmarks(t *testing.T) {
	k := newCluster(t, 2, "t")
	k.ids(t, "t", 0, 1, 5)
	k.ids(t, "t", 1, 6, 7)
	// Retention deleted offsets 0..2 of partition 0.
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Partition, rp.Offset = 0, 3
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 5000
	resp, err := req.RequestWith(t.Context(), k.cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode); err != nil {
		t.Fatal(err)
	}
	// The bookmark points at the deleted offset 1 of partition 0 and lacks
	// partition 1 (as if it was created since): partition 0 resumes at its
	// earliest offset, partition 1 is read from its start even though
	// auto_offset_reset is latest.
	start, err := connector.ParseJSON([]byte(`{"partition_offsets":[{"topic":"t","partition":0,"offset":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	src, err := newSource(k.source(t, "topics", []any{"t"}, "max_messages", 4, "idle_timeout", 5))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(t.Context(), connector.SourceOptions{StartBookmark: &start, Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var recs []connector.Record
	for {
		p, err := connectortest.NextPage(t.Context(), src)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, p.Records...)
	}
	got := valueIDs(t, recs)
	slices.Sort(got)
	if !slices.Equal(got, []int64{4, 5, 6, 7}) {
		t.Fatalf("read %v, want [4 5 6 7]", got)
	}
	if !strings.Contains(logs.String(), "bookmark offset was deleted by retention") || !strings.Contains(logs.String(), "skipped=2") {
		t.Fatalf("no retention warning in the log:\n%s", logs.String())
	}
}

func TestSourcePageSizes(t *testing.T) {
	k := newCluster(t, 1, "t")
	k.ids(t, "t", 0, 1, 10)
	for _, c := range []struct {
		kv    []any
		pages []int
	}{
		{[]any{"batch_size", 4, "max_messages", 10}, []int{4, 4, 2}},
		{[]any{"batch_size", 0, "max_messages", 7}, []int{7}},
		{[]any{"batch_size", 1000, "max_messages", 3}, []int{3}},
		// Key kN and value {"id":N} are 10 bytes for N < 10, 12 for 10:
		// pages cut by bytes, the count still applying.
		{[]any{"batch_size", 100, "batch_bytes", 40, "max_messages", 10}, []int{4, 4, 2}},
		{[]any{"batch_size", 3, "batch_bytes", 40, "max_messages", 10}, []int{3, 3, 3, 1}},
		{[]any{"batch_size", 100, "batch_bytes", 1, "max_messages", 3}, []int{1, 1, 1}},
		{[]any{"batch_size", 0, "batch_bytes", 40, "max_messages", 7}, []int{7}},
	} {
		src := openSource(t, k.source(t, append([]any{"topics", []any{"t"}, "auto_offset_reset", "earliest"}, c.kv...)...), nil)
		var pages []int
		for {
			p, err := connectortest.NextPage(t.Context(), src)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, len(p.Records))
		}
		if !slices.Equal(pages, c.pages) {
			t.Errorf("%v: pages of %v, want %v", c.kv, pages, c.pages)
		}
	}
}

// TestSourceSmallFetchesAndReleasedPages reads two partitions through
// fetches of at most 1 KiB and releases every page as soon as the next
// one is read, as the engine does, so page memory (records, fields, the
// parser's slabs) is reused while the previous page is still checked:
// every page must still hold its own messages, each partition in order.
func TestSourceSmallFetchesAndReleasedPages(t *testing.T) {
	k := newCluster(t, 2, "t")
	k.ids(t, "t", 0, 1, 600)
	k.ids(t, "t", 1, 601, 1200)
	src := openSource(t, k.source(t, "topics", []any{"t"}, "auto_offset_reset", "earliest", "max_messages", 1200,
		"batch_size", 37, "fetch_max_bytes", 1024, "fetch_max_partition_bytes", 1024), nil)
	var prev *connector.Page
	var prevIDs []int64
	last := map[int64]int64{} // partition -> last id
	total := 0
	for {
		p, err := connectortest.NextPage(t.Context(), src)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids := valueIDs(t, p.Records)
		if prev != nil {
			if got := valueIDs(t, prev.Records); !slices.Equal(got, prevIDs) {
				t.Fatalf("a page changed while the next was read: %v, was %v", got, prevIDs)
			}
			prev.Release()
		}
		for i, r := range p.Records {
			part := r.Fields[3].Value.AsInt()
			if ids[i] <= last[part] {
				t.Fatalf("partition %d: id %d after %d", part, ids[i], last[part])
			}
			last[part] = ids[i]
		}
		total += len(ids)
		prev, prevIDs = p, ids
	}
	if total != 1200 || last[0] != 600 || last[1] != 1200 {
		t.Fatalf("read %d messages, last ids %v; want 1200 ending at 600 and 1200", total, last)
	}
}
