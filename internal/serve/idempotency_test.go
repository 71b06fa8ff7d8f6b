package serve

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/memory"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

func TestIdempotencyReplayAndConflict(t *testing.T) {
	hn := newHarness(t)
	body := map[string]any{"config": slowPipeline(1), "idempotency_key": "k1", "labels": map[string]string{"a": "b"}}
	first := hn.submit(body)
	hn.wait(first["run_id"].(string))
	again := hn.submit(body)
	if again["run_id"] != first["run_id"] || again["status"] != "completed" {
		t.Fatalf("replay: %v vs %v", again, first)
	}
	// the request name is not part of the fingerprint
	named := map[string]any{"config": slowPipeline(1), "idempotency_key": "k1", "labels": map[string]string{"a": "b"}, "name": "other"}
	if r := hn.submit(named); r["run_id"] != first["run_id"] {
		t.Fatalf("name changed the fingerprint: %v", r)
	}
	for _, diff := range []map[string]any{
		{"config": slowPipeline(2), "idempotency_key": "k1", "labels": map[string]string{"a": "b"}},
		{"config": slowPipeline(1), "idempotency_key": "k1", "labels": map[string]string{"a": "c"}},
		{"config": slowPipeline(1), "idempotency_key": "k1", "labels": map[string]string{"a": "b"}, "timeout_secs": 5},
		{"config": slowPipeline(1), "idempotency_key": "k1", "labels": map[string]string{"a": "b"}, "clock": "2024-01-01T00:00:00Z"},
	} {
		r := hn.do("POST", "/v1/runs", writeTok, diff)
		if r.code != 409 || r.errCode(t) != CodeConflict {
			t.Fatalf("conflict: %d %s", r.code, r.body)
		}
	}
	// deleting the run releases its key
	if r := hn.do("DELETE", "/v1/runs/"+first["run_id"].(string), writeTok, nil); r.code != 204 {
		t.Fatalf("delete: %d", r.code)
	}
	fresh := hn.submit(map[string]any{"config": slowPipeline(2), "idempotency_key": "k1"})
	if fresh["run_id"] == first["run_id"] {
		t.Fatal("key not released by delete")
	}
	hn.wait(fresh["run_id"].(string))
	// only one submit audit per accepted run
	entries := hn.do("GET", "/v1/audit?action=run.submit", adminTok, nil).json(t)["entries"].([]any)
	if len(entries) != 2 || entries[0].(map[string]any)["config_fingerprint"] == nil {
		t.Fatalf("submit audits: %v", entries)
	}
}

// TestIdempotencyUnderLoad: 1,000 submissions from 32 concurrent clients on
// SQLite history; every key twice with one config, some keys again with
// another: one run per key, replays answer the winner's id, the losing
// fingerprint gets 409, never a 5xx.
func TestIdempotencyUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	url := "sqlite:" + filepath.Join(t.TempDir(), "history.db")
	h, err := sqlstore.OpenOptions(context.Background(), url, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hn := newHarness(t, func(c *Config) {
		c.History = h
		c.MaxConcurrentRuns = 4
		c.MaxQueuedRuns = 2000
	})
	runIdemLoad(t, hn, 400, 200)
}

func runIdemLoad(t *testing.T, hn *harness, keys, conflicting int) {
	type sub struct {
		key int
		alt bool
	}
	var subs []sub
	for k := 0; k < keys; k++ {
		subs = append(subs, sub{k, false}, sub{k, false})
	}
	for k := 0; k < conflicting; k++ {
		subs = append(subs, sub{k, true})
	}
	rand.New(rand.NewSource(1)).Shuffle(len(subs), func(i, j int) { subs[i], subs[j] = subs[j], subs[i] })
	type result struct {
		sub
		code  int
		runID string
	}
	results := make([]result, len(subs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := subs[i]
				pages := 1
				if s.alt {
					pages = 2
				}
				r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": slowPipeline(pages),
					"idempotency_key": fmt.Sprintf("key-%d", s.key), "labels": map[string]string{"k": fmt.Sprint(s.key)}})
				res := result{sub: s, code: r.code}
				if r.code == http.StatusAccepted {
					res.runID, _ = r.json(t)["run_id"].(string)
				}
				results[i] = res
			}
		}()
	}
	for i := range subs {
		next <- i
	}
	close(next)
	wg.Wait()
	perKey := map[int]map[bool][]result{}
	for _, r := range results {
		if r.code >= 500 || (r.code != 202 && r.code != 409) {
			t.Fatalf("key %d: status %d", r.key, r.code)
		}
		if perKey[r.key] == nil {
			perKey[r.key] = map[bool][]result{}
		}
		perKey[r.key][r.alt] = append(perKey[r.key][r.alt], r)
	}
	for k, byAlt := range perKey {
		var winner string
		accepted := map[bool]bool{}
		for alt, rs := range byAlt {
			for _, r := range rs {
				if r.code == 202 {
					accepted[alt] = true
					if winner == "" {
						winner = r.runID
					} else if r.runID != winner {
						t.Fatalf("key %d: two runs %s and %s", k, winner, r.runID)
					}
				}
			}
			// one fingerprint is all-accepted or all-refused
			for _, r := range rs {
				if (r.code == 202) != accepted[alt] {
					t.Fatalf("key %d alt=%v: mixed answers", k, alt)
				}
			}
		}
		if winner == "" || len(accepted) != 1 {
			t.Fatalf("key %d: accepted %v", k, accepted)
		}
	}
	// exactly one run per key in the history, and all of them finish
	deadline := time.Now().Add(60 * time.Second)
	for {
		page, err := hn.h.List(context.Background(), history.ListFilter{Limit: 10 * keys})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Runs) != keys {
			t.Fatalf("%d runs for %d keys", len(page.Runs), keys)
		}
		done := 0
		for _, r := range page.Runs {
			if r.Status == history.StatusCompleted {
				done++
			}
		}
		if done == keys {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d runs completed", done, keys)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// failingUpsert fails the next Upsert calls while fail > 0.
type failingUpsert struct {
	history.RunHistory
	mu   sync.Mutex
	fail int
}

func (f *failingUpsert) Upsert(ctx context.Context, rec history.RunRecord) error {
	f.mu.Lock()
	if f.fail > 0 {
		f.fail--
		f.mu.Unlock()
		return history.Backend("disk on fire")
	}
	f.mu.Unlock()
	return f.RunHistory.Upsert(ctx, rec)
}

// A claim whose record could not be written is released: the key is not
// burnt, and the store error is a 500 envelope.
func TestIdempotencyClaimReleasedWhenRecordFails(t *testing.T) {
	fh := &failingUpsert{RunHistory: memory.New(history.Options{}), fail: 1}
	hn := newHarness(t, func(c *Config) { c.History = fh })
	body := map[string]any{"config": slowPipeline(1), "idempotency_key": "burnt?"}
	r := hn.do("POST", "/v1/runs", writeTok, body)
	if r.code != 500 || r.errCode(t) != CodeInternal {
		t.Fatalf("failed write: %d %s", r.code, r.body)
	}
	if q := hn.s.Runner().Queued(); q != 0 {
		t.Fatalf("slot leaked: %d", q)
	}
	id := hn.submit(body)["run_id"].(string)
	hn.wait(id)
}
