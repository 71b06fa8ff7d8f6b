package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pipeline runs the real engine from topic "in" to topic "out" of k,
// keeping state in dir, as `faucet run` does.
func pipeline(t testing.TB, k *cluster, dir string, exactlyOnce bool) engine.Result {
	t.Helper()
	src, err := newSource(k.source(t, "topics", []any{"in"}, "auto_offset_reset", "earliest", "idle_timeout", 1, "batch_size", 4))
	if err != nil {
		t.Fatal(err)
	}
	snk, err := newSink(cfg(t, "brokers", k.brokers, "topic", fixed("out"), "key_path", "$.key"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), engine.Row{
		Pipeline: "kafka_test", ID: "row-0", StateKey: "kafka_test::row-0",
		Source: src, SourceType: "kafka", Sink: snk, SinkType: "kafka",
		State: state.NewFile(dir), ExactlyOnce: exactlyOnce,
		CheckpointEvery: -1,
		Retry:           engine.RetryPolicy{MaxAttempts: 1, Base: 10 * time.Millisecond, Max: 10 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// outIDs returns the value.id of each message in "out" (which must hold
// n), as a plain read_committed consumer reads them, sorted.
func outIDs(t testing.TB, k *cluster, n int) []int64 {
	t.Helper()
	var out []int64
	for _, m := range k.readAll(t, "out", n) {
		var r struct{ Value struct{ ID int64 } }
		if err := json.Unmarshal(m.Value, &r); err != nil {
			t.Fatalf("message %s: %v", m.Value, err)
		}
		out = append(out, r.Value.ID)
	}
	slices.Sort(out)
	return out
}

func TestPipelineSecondRunCopiesOnlyNewMessages(t *testing.T) {
	for _, eo := range []bool{false, true} {
		t.Run(map[bool]string{false: "at-least-once", true: "exactly-once"}[eo], func(t *testing.T) {
			k := newCluster(t, 2, "in", "out")
			k.ids(t, "in", 0, 1, 6)
			k.ids(t, "in", 1, 7, 10)
			dir := t.TempDir()
			if res := pipeline(t, k, dir, eo); res.Read != 10 || res.Written != 10 || !res.StateSaved {
				t.Fatalf("first run: %+v", res)
			}
			k.ids(t, "in", 1, 11, 15)
			if res := pipeline(t, k, dir, eo); res.Read != 5 || res.Written != 5 {
				t.Fatalf("second run: %+v", res)
			}
			if got := outIDs(t, k, 15); !slices.Equal(got, seqIDs(1, 15)) {
				t.Fatalf("out holds %v, want 1..15 once each", got)
			}
		})
	}
}

// Under exactly-once the sink's commit token decides where a run starts
// when the state store is behind (here: lost), so nothing is copied twice.
func TestPipelineExactlyOnceResumesFromTheSinkWhenStateIsLost(t *testing.T) {
	k := newCluster(t, 2, "in", "out")
	k.ids(t, "in", 0, 1, 6)
	pipeline(t, k, t.TempDir(), true)
	k.ids(t, "in", 0, 7, 9)
	res := pipeline(t, k, t.TempDir(), true)
	if res.Read != 3 || res.Written != 3 {
		t.Fatalf("run with lost state: %+v", res)
	}
	if got := outIDs(t, k, 9); !slices.Equal(got, seqIDs(1, 9)) {
		t.Fatalf("out holds %v, want 1..9 once each", got)
	}
	want := `{"partition_offsets":[{"topic":"in","partition":0,"offset":9},{"topic":"in","partition":1,"offset":0}]}`
	if res.Bookmark == nil || res.Bookmark.String() != want {
		t.Fatalf("bookmark %v, want %s", res.Bookmark, want)
	}
}

// A message larger than the sink's batches (64 KiB by default) goes
// through the engine like any other, in both deliveries: at-least-once
// moves the producer to larger batches mid-run, exactly-once starts with
// them.
func TestPipelineCarriesAMessageLargerThanABatch(t *testing.T) {
	for _, eo := range []bool{false, true} {
		t.Run(map[bool]string{false: "at-least-once", true: "exactly-once"}[eo], func(t *testing.T) {
			k := newCluster(t, 1, "in", "out")
			k.ids(t, "in", 0, 1, 5)
			big := fmt.Appendf(nil, `{"id":6,"pad":"%s"}`, strings.Repeat("x", 300_000))
			k.produce(t, &kgo.Record{Topic: "in", Partition: 0, Value: big})
			k.ids(t, "in", 0, 7, 12)
			if res := pipeline(t, k, t.TempDir(), eo); res.Read != 12 || res.Written != 12 {
				t.Fatalf("run: %+v", res)
			}
			if got := outIDs(t, k, 12); !slices.Equal(got, seqIDs(1, 12)) {
				t.Fatalf("out holds %v, want 1..12 once each", got)
			}
		})
	}
}
