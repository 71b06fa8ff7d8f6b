package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// cluster is an in-process Kafka (kfake speaks the real protocol) with
// the given topics, closed when the test ends.
type cluster struct {
	c       *kfake.Cluster
	brokers string
	cl      *kgo.Client // a plain client for producing and reading back
}

func newCluster(t testing.TB, partitions int32, topics ...string) *cluster {
	t.Helper()
	return startCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
}

// startCluster is newCluster with kfake's options as they are given.
func startCluster(t testing.TB, opts ...kfake.Opt) *cluster {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	k := &cluster{c: c, brokers: strings.Join(c.ListenAddrs(), ",")}
	k.cl, err = kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.cl.Close)
	return k
}

// produce writes msgs synchronously (each to its own Partition).
func (k *cluster) produce(t testing.TB, msgs ...*kgo.Record) {
	t.Helper()
	for len(msgs) > 0 {
		n := min(len(msgs), 10_000)
		if err := k.cl.ProduceSync(context.Background(), msgs[:n]...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		msgs = msgs[n:]
	}
}

// ids produces {"id": from..to} to partition p of topic.
func (k *cluster) ids(t testing.TB, topic string, p int32, from, to int) {
	t.Helper()
	msgs := make([]*kgo.Record, 0, to-from+1)
	for i := from; i <= to; i++ {
		msgs = append(msgs, &kgo.Record{Topic: topic, Partition: p, Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, `{"id":%d}`, i)})
	}
	k.produce(t, msgs...)
}

// readAll reads every committed message of topic with a plain consumer,
// up to the partitions' ends (transaction markers are read to know where
// a partition ends, and left out), and fails unless there are n.
func (k *cluster) readAll(t testing.TB, topic string, n int) []*kgo.Record {
	t.Helper()
	parts, err := partitions(t.Context(), k.cl, []string{topic})
	if err != nil {
		t.Fatal(err)
	}
	ends, err := listOffsets(t.Context(), k.cl, parts, -1)
	if err != nil {
		t.Fatal(err)
	}
	left := map[int32]int64{}
	for p, end := range ends {
		if end > 0 {
			left[p.partition] = end - 1
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for len(left) > 0 {
		fs := cl.PollFetches(t.Context())
		if err := fs.Err(); err != nil {
			t.Fatalf("after %d messages: %v", len(out), err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= left[r.Partition] {
				delete(left, r.Partition)
			}
			if !r.Attrs.IsControl() {
				out = append(out, r)
			}
		})
	}
	if len(out) != n {
		t.Fatalf("topic %q holds %d messages, want %d", topic, len(out), n)
	}
	return out
}

func cfg(t testing.TB, kv ...any) connector.Config { return connectortest.Cfg(t, kv...) }

func (k *cluster) source(t testing.TB, kv ...any) connector.Config {
	return cfg(t, append([]any{"brokers", k.brokers}, kv...)...)
}

func openSource(t testing.TB, c connector.Config, start *connector.Value) connector.Source {
	t.Helper()
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(t.Context(), connector.SourceOptions{StartBookmark: start}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return src
}

// run is one source run as the engine makes it: every page read, the
// last bookmark kept (through JSON, as the state store keeps it).
type run struct {
	recs     []connector.Record
	failed   []connector.RecordError
	bookmark *connector.Value
}

func readRun(t testing.TB, c connector.Config, start *connector.Value) run {
	t.Helper()
	src := openSource(t, c, start)
	var r run
	for {
		p, err := connectortest.NextPage(t.Context(), src)
		if errors.Is(err, io.EOF) {
			return r
		}
		if err != nil {
			t.Fatal(err)
		}
		r.recs = append(r.recs, p.Records...)
		r.failed = append(r.failed, p.Failed...)
		if p.Bookmark != nil {
			v, err := connector.ParseJSON(connector.AppendJSON(nil, *p.Bookmark))
			if err != nil {
				t.Fatal(err)
			}
			r.bookmark = &v
		}
	}
}

// valueIDs returns value.id of each record.
func valueIDs(t testing.TB, recs []connector.Record) []int64 {
	t.Helper()
	out := make([]int64, len(recs))
	for i, r := range recs {
		v, ok := r.Lookup([]string{"value", "id"})
		if !ok {
			t.Fatalf("record %d has no value.id: %v", i, connector.Object(r))
		}
		out[i] = v.AsInt()
	}
	return out
}

func seqIDs(from, to int) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, int64(i))
	}
	return out
}

func rec(json string) connector.Record {
	v, err := connector.ParseJSON([]byte(json))
	if err != nil {
		panic(err)
	}
	return v.AsObject()
}
