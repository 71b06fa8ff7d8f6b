package nats

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	_ "github.com/faucet-hq/faucet/connectors/jsonl"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/state"
)

// run runs the real engine from a nats source config into a jsonl file
// (appending), as `faucet run` does.
func run(t testing.TB, src connector.Config, out string, mutate ...func(*engine.Row)) (engine.Result, error) {
	t.Helper()
	source, err := newSource(src)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := connector.Default.Sink("jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sink, err := spec.New(cfg("path", out, "append", true))
	if err != nil {
		t.Fatal(err)
	}
	row := engine.Row{
		Pipeline: "nats_test", ID: "row-0", StateKey: "nats_test::row-0",
		Source: source, SourceType: "nats", Sink: sink, SinkType: "jsonl",
		State:           state.NewFile(t.TempDir()),
		CheckpointEvery: 100 * time.Millisecond,
		Retry:           engine.RetryPolicy{MaxAttempts: 5, Base: 50 * time.Millisecond, Max: time.Second},
	}
	for _, m := range mutate {
		m(&row)
	}
	return engine.Run(context.Background(), row)
}

// fileIDs reads the "id" of every line of a jsonl file (none when it does
// not exist).
func fileIDs(t testing.TB, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ ID int64 }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: line %d: %v", path, len(out)+1, err)
		}
		out = append(out, r.ID)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tally counts each id; missing lists ids of 1..n never seen and dups
// those seen more than once.
func tally(ids []int64, n int) (missing, dups []int64) {
	seen := map[int64]int{}
	for _, id := range ids {
		seen[id]++
	}
	for i := int64(1); i <= int64(n); i++ {
		switch c := seen[i]; {
		case c == 0:
			missing = append(missing, i)
		case c > 1:
			dups = append(dups, i)
		}
	}
	return missing, dups
}
