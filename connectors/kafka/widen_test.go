package kafka

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// paddedRecord is {"id": id, "pad": "xxx..."} with a pad of size bytes.
func paddedRecord(id, size int) connector.Record {
	return rec(fmt.Sprintf(`{"id":%d,"pad":"%s"}`, id, strings.Repeat("x", size)))
}

// A message larger than batch_max_bytes (64 KiB by default) is sent, not
// refused: the sink waits for the messages before it and moves to
// batches of max_message_bytes, once, and the partition keeps the order
// of the records.
func TestSinkWidensBatchesForALargeMessage(t *testing.T) {
	k := newCluster(t, 1, "out")
	var logs bytes.Buffer
	holdFirstProducer(t, k)
	s := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", fixed("out")))
	if err := s.Open(t.Context(), connector.SinkOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	large := map[int]int{450: 200_000, 700: 300_000}
	var pages []*connector.Page
	for lo := 1; lo <= 900; lo += 300 {
		p := &connector.Page{Seq: uint64(len(pages))}
		for id := lo; id < lo+300; id++ {
			p.Records = append(p.Records, paddedRecord(id, large[id]))
		}
		pages = append(pages, p)
	}
	for _, p := range pages {
		if err := s.Write(t.Context(), p); err != nil {
			t.Fatalf("page %d: %v", p.Seq, err)
		}
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := k.readAll(t, "out", 900)
	for i, m := range got {
		want := string(connector.AppendRecordJSON(nil, paddedRecord(i+1, large[i+1])))
		if string(m.Value) != want {
			t.Fatalf("message %d (%d bytes) is not record %d (%d bytes)", i, len(m.Value), i+1, len(want))
		}
	}
	if n := strings.Count(logs.String(), "larger than batch_max_bytes"); n != 1 {
		t.Errorf("the sink moved to larger batches %d times, want once; logs:\n%s", n, logs.String())
	}
	if s.batchMax != s.cfg.MaxMessageBytes {
		t.Errorf("batch limit %d after the large message, want max_message_bytes %d", s.batchMax, s.cfg.MaxMessageBytes)
	}
}

// A message larger than max_message_bytes fails the write, named.
func TestSinkRefusesAMessageOverMaxMessageBytes(t *testing.T) {
	k := newCluster(t, 1, "out")
	s := newTestSink(t, cfg(t, "brokers", k.brokers, "topic", fixed("out"), "max_message_bytes", 100_000))
	if err := s.Open(t.Context(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &connector.Page{Seq: 3, Records: []connector.Record{paddedRecord(1, 10), paddedRecord(2, 150_000), paddedRecord(3, 10)}}
	err := s.Write(t.Context(), p)
	if err == nil {
		err = s.Flush(t.Context())
	}
	if err == nil || !strings.Contains(err.Error(), `record 2 of page 3 to topic "out"`) || !strings.Contains(err.Error(), "MESSAGE_TOO_LARGE") {
		t.Fatalf("err %v, want record 2 of page 3 refused as too large", err)
	}
}

// holdFirstProducer holds the first data request of the first producer
// that writes to k back until a request of another producer arrives (or
// 300 ms passed). A sink that switched producers without waiting for the
// first one's messages would have the second overtake them.
func holdFirstProducer(t *testing.T, k *cluster) {
	t.Helper()
	var first atomic.Int64
	first.Store(-1)
	var held atomic.Bool
	other := make(chan struct{})
	var otherOnce sync.Once
	k.c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		pid, ok := producerID(req.(*kmsg.ProduceRequest))
		if !ok {
			return nil, nil, false
		}
		first.CompareAndSwap(-1, pid)
		if pid != first.Load() {
			otherOnce.Do(func() { close(other) })
		} else if held.CompareAndSwap(false, true) {
			k.c.SleepControl(func() {
				select {
				case <-other:
				case <-time.After(300 * time.Millisecond):
				}
			})
		}
		return nil, nil, false // the cluster handles it as usual
	})
}

// producerID is the producer id of the request's first record batch.
func producerID(req *kmsg.ProduceRequest) (int64, bool) {
	for _, tp := range req.Topics {
		for _, p := range tp.Partitions {
			var b kmsg.RecordBatch
			if err := b.ReadFrom(p.Records); err == nil {
				return b.ProducerID, true
			}
		}
	}
	return 0, false
}
