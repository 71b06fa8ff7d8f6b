package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunGraphOrderSkipAndConcurrency(t *testing.T) {
	var mu sync.Mutex
	var order []string
	var running, peak atomic.Int32
	node := func(id string, fail bool, deps ...string) Node {
		return Node{ID: id, DependsOn: deps, Run: func(ctx context.Context) error {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			running.Add(-1)
			mu.Lock()
			order = append(order, id)
			mu.Unlock()
			if fail {
				return errors.New(id + " broke")
			}
			return nil
		}}
	}
	nodes := []Node{
		node("load", false),
		node("a", false, "load"), node("b", false, "load"), node("c", false, "load"),
		node("bad", true),
		node("after-bad", false, "bad"),
		node("after-after", false, "after-bad"),
		node("final", false, "a", "b", "c"),
	}
	res := RunGraph(context.Background(), nodes, 2, false)
	want := map[string]NodeStatus{
		"load": NodeOK, "a": NodeOK, "b": NodeOK, "c": NodeOK, "bad": NodeFailed,
		"after-bad": NodeSkipped, "after-after": NodeSkipped, "final": NodeOK,
	}
	for _, r := range res {
		if r.Status != want[r.ID] {
			t.Errorf("%s: %s, want %s (%v)", r.ID, r.Status, want[r.ID], r.Err)
		}
	}
	if peak.Load() > 2 {
		t.Errorf("%d nodes ran at once with max_concurrent 2", peak.Load())
	}
	pos := map[string]int{}
	for i, id := range order {
		pos[id] = i
	}
	for _, dep := range []string{"a", "b", "c"} {
		if pos["final"] < pos[dep] || pos[dep] < pos["load"] {
			t.Errorf("order %v breaks depends_on", order)
		}
	}
}

func TestRunGraphAbortCancelsOthers(t *testing.T) {
	nodes := []Node{
		{ID: "slow", Run: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
		{ID: "bad", Run: func(context.Context) error { time.Sleep(5 * time.Millisecond); return errors.New("boom") }},
		{ID: "later", DependsOn: []string{"slow"}, Run: func(context.Context) error { return nil }},
	}
	res := RunGraph(context.Background(), nodes, 4, true)
	if res[0].Status != NodeCancelled || res[1].Status != NodeFailed || res[2].Status != NodeCancelled {
		t.Fatalf("%+v", res)
	}
}
