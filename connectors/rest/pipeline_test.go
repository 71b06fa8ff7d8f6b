package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/faucet-hq/faucet/connectors/jsonl"
	_ "github.com/faucet-hq/faucet/connectors/sqlite"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/pipeline"
)

// build loads a pipeline config as `faucet run` does and builds its only
// row (sources, sinks and state store from the registry).
func build(t *testing.T, dir, yaml string) (engine.Row, error) {
	t.Helper()
	doc, err := config.LoadBytes(filepath.Join(dir, "pipeline.yaml"), []byte(yaml), config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Build(doc, invs[0], pipeline.Options{})
}

// runRow builds and runs the pipeline; stats, when set, receives the
// live counters.
func runRow(ctx context.Context, t *testing.T, dir, yaml string, stats *engine.Stats) (engine.Result, error) {
	t.Helper()
	row, err := build(t, dir, yaml)
	if err != nil {
		t.Fatal(err)
	}
	if row.State != nil {
		defer row.State.Close()
	}
	row.Stats = stats
	return engine.Run(ctx, row)
}

// store is a growing list of records served in ascending id order, two
// per page, page_number paging.
type store struct {
	mu   sync.Mutex
	ids  []int
	hold func(page int) // called before serving a page (may block)
}

func (s *store) add(from, to int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := from; id <= to; id++ {
		s.ids = append(s.ids, id)
	}
}

func (s *store) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := max(atoi(r.URL.Query(), "page"), 1)
		if s.hold != nil {
			s.hold(p)
		}
		s.mu.Lock()
		var out []any
		for _, id := range s.ids[min(2*(p-1), len(s.ids)):min(2*p, len(s.ids))] {
			out = append(out, item(id))
		}
		s.mu.Unlock()
		if out == nil {
			out = []any{}
		}
		writeJSON(w, out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func restToJSONL(url, dir string, ascending bool) string {
	return fmt.Sprintf(`version: 1
name: api
pipeline:
  source:
    type: rest
    config:
      base_url: %s
      path: /items
      pagination: {type: page_number, param_name: page}
      replication_key: id
      replication_key_ascending: %t
  sink:
    type: jsonl
    config: {path: %q, append: true}
  state:
    type: file
    config: {path: %q}
`, url, ascending, filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "state"))
}

// outIDs reads the ids of the jsonl output.
func outIDs(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
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
			t.Fatal(err)
		}
		out = append(out, r.ID)
	}
	return out
}

// savedBookmark reads the row's state file ("" when none).
func savedBookmark(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "state", "api%3A%3Arow-0.json"))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// TestIncrementalRuns runs the real pipeline twice against a growing
// API: the first run reads everything and saves the highest id, the
// second reads only the records added since.
func TestIncrementalRuns(t *testing.T) {
	for _, ascending := range []bool{false, true} {
		t.Run(fmt.Sprintf("replication_key_ascending=%t", ascending), func(t *testing.T) {
			dir := t.TempDir()
			api := &store{}
			api.add(1, 9)
			srv := api.serve(t)
			cfg := restToJSONL(srv.URL, dir, ascending)
			res, err := runRow(context.Background(), t, dir, cfg, nil)
			if err != nil || res.Written != 9 || savedBookmark(t, dir) != "9" {
				t.Fatalf("first run: %d written, bookmark %q, %v", res.Written, savedBookmark(t, dir), err)
			}
			api.add(10, 14)
			res, err = runRow(context.Background(), t, dir, cfg, nil)
			if err != nil || res.Written != 5 || savedBookmark(t, dir) != "14" {
				t.Fatalf("second run: %d written, bookmark %q, %v", res.Written, savedBookmark(t, dir), err)
			}
			if got := outIDs(t, filepath.Join(dir, "out.jsonl")); !equalIDs(got, seq(1, 14)) {
				t.Errorf("output %v, want 1..14 once each", got)
			}
			res, err = runRow(context.Background(), t, dir, cfg, nil)
			if err != nil || res.Written != 0 {
				t.Errorf("third run: %d written, %v", res.Written, err)
			}
		})
	}
}

// TestCancelMidPagination stops a run while the source waits for page 5
// (pages 1-4 written) and checks the bookmark: in the ascending mode it
// is the last committed page's, and a rerun delivers the rest exactly
// once; by default it stays where it was (only the last page carries
// one), and the rerun reads everything again.
func TestCancelMidPagination(t *testing.T) {
	for _, ascending := range []bool{true, false} {
		t.Run(fmt.Sprintf("replication_key_ascending=%t", ascending), func(t *testing.T) {
			dir := t.TempDir()
			api := &store{}
			api.add(1, 20)
			var stats engine.Stats
			reached := make(chan struct{})
			var once sync.Once
			var holding atomic.Bool
			holding.Store(true)
			release := make(chan struct{})
			api.hold = func(page int) {
				if page != 5 || !holding.Load() {
					return
				}
				// Wait until pages 1-4 are in the sink, then let the test
				// cancel, and answer only after that.
				deadline := time.Now().Add(10 * time.Second)
				for stats.Written.Load() < 8 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				once.Do(func() { close(reached) })
				<-release
			}
			srv := api.serve(t)
			cfg := restToJSONL(srv.URL, dir, ascending)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := runRow(ctx, t, dir, cfg, &stats)
				done <- err
			}()
			select {
			case <-reached:
			case err := <-done:
				t.Fatalf("the run ended before page 5: %v", err)
			}
			cancel()
			err := <-done
			holding.Store(false)
			close(release)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled run: %v", err)
			}
			written := outIDs(t, filepath.Join(dir, "out.jsonl"))
			if !equalIDs(written, seq(1, 8)) {
				t.Fatalf("cancelled run wrote %v, want 1..8", written)
			}
			want := ""
			if ascending {
				want = "8"
			}
			if got := savedBookmark(t, dir); got != want {
				t.Fatalf("bookmark after the cancel %q, want %q", got, want)
			}
			if _, err := runRow(context.Background(), t, dir, cfg, nil); err != nil {
				t.Fatal(err)
			}
			all := outIDs(t, filepath.Join(dir, "out.jsonl"))
			wantAll := append(seq(1, 8), seq(1, 20)...) // at-least-once: all again
			if ascending {
				wantAll = seq(1, 20)
			}
			if !equalIDs(all, wantAll) {
				t.Errorf("after the rerun the output is %v, want %v", all, wantAll)
			}
			if got := savedBookmark(t, dir); got != "20" {
				t.Errorf("final bookmark %q, want 20", got)
			}
		})
	}
}

// TestExactlyOnceNeedsReplay: delivery: exactly_once is refused for a
// rest source that cannot replay its pages from a bookmark, naming the
// setting, and accepted in the ascending mode.
func TestExactlyOnceNeedsReplay(t *testing.T) {
	dir := t.TempDir()
	cfg := func(source string) string {
		return fmt.Sprintf(`version: 1
name: api
delivery: exactly_once
pipeline:
  source:
    type: rest
    config: {base_url: "http://127.0.0.1:1", %s}
  sink:
    type: sqlite
    config: {path: %q, table_name: items, create_table: true}
  state:
    type: file
    config: {path: %q}
`, source, filepath.Join(dir, "db.sqlite"), filepath.Join(dir, "state"))
	}
	for _, tc := range []struct{ source, err string }{
		{"replication_key: id", "set replication_key_ascending: true"},
		{"path: /x", "a full-table read has no bookmark"},
		{"replication_key: id, replication_key_ascending: true", ""},
	} {
		row, err := build(t, dir, cfg(tc.source))
		if err == nil {
			pipeline.Close(row)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.source, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "delivery: exactly_once: source rest")):
			t.Errorf("%s: want an error saying %q, got %v", tc.source, tc.err, err)
		}
	}
}
