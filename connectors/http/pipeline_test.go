package http

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/faucet-hq/faucet/connectors/jsonl"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/pipeline"
)

// runPipeline runs a jsonl file of records 1..n into the http sink at url
// through the real pipeline (config, registry, engine), with a jsonl DLQ
// when dlq is set.
func runPipeline(t *testing.T, dir string, n int, sink string, dlq bool) (engine.Result, error) {
	t.Helper()
	var in strings.Builder
	for id := 1; id <= n; id++ {
		fmt.Fprintf(&in, `{"id":%d,"name":"item-%d"}`+"\n", id, id)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf(`version: 1
name: push
pipeline:
  source:
    type: jsonl
    config: {path: %q, batch_size: 10}
  sink:
    type: http
    config: %s
  state:
    type: file
    config: {path: %q}
`, filepath.Join(dir, "in.jsonl"), sink, filepath.Join(dir, "state"))
	if dlq {
		yaml += fmt.Sprintf("  dlq:\n    sink: {type: jsonl, config: {path: %q}}\n", filepath.Join(dir, "dlq.jsonl"))
	}
	doc, err := config.LoadBytes(filepath.Join(dir, "pipeline.yaml"), []byte(yaml), config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	row, err := pipeline.Build(doc, invs[0], pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer row.State.Close()
	return engine.Run(context.Background(), row)
}

// envelope is the part of a dead-letter record the tests read.
type envelope struct {
	Error struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	Reason    string `json:"reason"`
	Stage     string `json:"stage"`
	Connector string `json:"connector"`
	Payload   struct {
		ID int64 `json:"id"`
	} `json:"payload"`
}

func readDLQ(t *testing.T, path string) []envelope {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []envelope
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e envelope
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestDeadLetters runs the real pipeline into an endpoint that refuses
// some records with 400: they land in the DLQ with the endpoint's answer,
// the rest at the endpoint, and the run succeeds; without a DLQ the run
// fails naming the first refused record.
func TestDeadLetters(t *testing.T) {
	refuse := func(id int64) bool { return id%9 == 0 }
	decide := func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string) {
		for _, id := range ids {
			if refuse(id) {
				return 400, nil
			}
		}
		return 0, nil
	}
	for _, mode := range []string{"Individual", "Array"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			e := newEndpoint(t, decide)
			batch := 1
			if mode == "Array" {
				batch = 3 // arrays of 3: a refused id takes its two neighbours along
			}
			res, err := runPipeline(t, dir, 50, fmt.Sprintf("{url: %q, batch_mode: {type: %s}, batch_size: %d}", e.srv.URL, mode, batch), true)
			if err != nil {
				t.Fatal(err)
			}
			// The source's pages hold 10 records; arrays are cut within
			// a page. A record is dead when its array held a refused one.
			dead := func(id int64) bool {
				pageStart := id - (id-1)%10
				start := id - (id-pageStart)%int64(batch)
				for m := start; m < start+int64(batch) && m < pageStart+10; m++ {
					if refuse(m) {
						return true
					}
				}
				return false
			}
			if got, want := e.got(), without(seq(1, 50), dead); !equalIDs(got, want) {
				t.Errorf("endpoint received %v, want %v", got, want)
			}
			envs := readDLQ(t, filepath.Join(dir, "dlq.jsonl"))
			var ids []int64
			for _, env := range envs {
				ids = append(ids, env.Payload.ID)
				if env.Stage != "sink" || env.Reason != "partial" || env.Connector != "http" || !strings.Contains(env.Error.Message, "HTTP 400") {
					t.Errorf("envelope %+v", env)
				}
			}
			var want []int64
			for _, id := range seq(1, 50) {
				if dead(id) {
					want = append(want, id)
				}
			}
			if !equalIDs(ids, want) {
				t.Errorf("dead letters %v, want %v", ids, want)
			}
			if res.Written != int64(50-len(want)) || res.DLQ != int64(len(want)) {
				t.Errorf("written %d, dead-lettered %d; want %d and %d", res.Written, res.DLQ, 50-len(want), len(want))
			}
		})
	}
	t.Run("no DLQ: the run fails naming the record", func(t *testing.T) {
		dir := t.TempDir()
		e := newEndpoint(t, decide)
		_, err := runPipeline(t, dir, 50, fmt.Sprintf("{url: %q, concurrency: 1}", e.srv.URL), false)
		// Named by the source's location of the refused record.
		if err == nil || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), "in.jsonl:9:") {
			t.Fatalf("want the refusal of record 9, got %v", err)
		}
	})
}

// TestTransportFailureFailsRun: an endpoint that cannot be reached fails
// the run after the retries, and no bookmark is saved past what was sent.
func TestTransportFailureFailsRun(t *testing.T) {
	srv := httptest.NewServer(nethttp.NotFoundHandler())
	srv.Close()
	dir := t.TempDir()
	res, err := runPipeline(t, dir, 20, fmt.Sprintf("{url: %q, max_retries: 2, retry_backoff: 0.01}", srv.URL), false)
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "sink http") {
		t.Fatalf("want the transport failure, got %v", err)
	}
	if res.Written != 0 {
		t.Errorf("%d records counted as written", res.Written)
	}
}
