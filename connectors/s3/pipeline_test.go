package s3

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/state"
)

// TestPipelineThroughEngine runs the real engine from an s3 source to an
// s3 sink while the store refuses the uploads of one object more often
// than the SDK retries: the engine's retries bring the run through and
// the output holds every record exactly once, in order.
func TestPipelineThroughEngine(t *testing.T) {
	f := newFakeS3(t, "in", "out")
	const objects, per = 10, 500
	for o := 0; o < objects; o++ {
		var b strings.Builder
		for i := o*per + 1; i <= (o+1)*per; i++ {
			fmt.Fprintf(&b, "{\"id\":%d}\n", i)
		}
		f.put(t, "in", fmt.Sprintf("src/%02d.jsonl.gz", o), gz(t, []byte(b.String())))
	}
	var refused atomic.Int64
	f.setFailPut(func(path string) bool {
		return strings.HasSuffix(path, "/p-000001.jsonl") && refused.Add(1) <= 4
	})
	src, err := newSource(f.cfg(t, "in", "prefix", "src/", "list_max_keys", 3, "batch_size", 300))
	if err != nil {
		t.Fatal(err)
	}
	snk, err := newSink(f.cfg(t, "out", "prefix", "dst/", "run_id", "p", "max_records_per_file", 1200))
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), engine.Row{
		Pipeline: "s3_test", ID: "row-0", StateKey: "s3_test::row-0",
		Source: src, SourceType: "s3", Sink: snk, SinkType: "s3",
		State:           state.NewFile(t.TempDir()),
		CheckpointEvery: time.Hour,
		Retry:           engine.RetryPolicy{MaxAttempts: 5, Base: 10 * time.Millisecond, Max: 100 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != objects*per || res.Written != objects*per {
		t.Errorf("read %d, wrote %d, want %d", res.Read, res.Written, objects*per)
	}
	if r := refused.Load(); r < 5 {
		t.Errorf("the store refused %d uploads: the fault did not happen", r)
	}
	keys := f.keys(t, "out", "dst/")
	if len(keys) != 5 { // 5000 records, 1200 per object
		t.Errorf("objects %q, want 5", keys)
	}
	next := int64(1)
	for _, k := range keys {
		for _, line := range strings.Split(strings.TrimSpace(string(f.get(t, "out", k))), "\n") {
			var r struct{ ID int64 }
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			if r.ID != next {
				t.Fatalf("%s: id %d, want %d", k, r.ID, next)
			}
			next++
		}
	}
	if next != objects*per+1 {
		t.Errorf("output holds %d records, want %d", next-1, objects*per)
	}
}
