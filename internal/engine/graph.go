package engine

import (
	"context"
	"errors"
	"sync"
)

// Node is one matrix row in the run graph.
type Node struct {
	ID        string
	DependsOn []string
	Run       func(ctx context.Context) error
}

// NodeStatus is how a node ended.
type NodeStatus string

// Node outcomes.
const (
	NodeOK        NodeStatus = "ok"
	NodeFailed    NodeStatus = "failed"
	NodeSkipped   NodeStatus = "skipped"   // a dependency failed or was skipped
	NodeCancelled NodeStatus = "cancelled" // stopped by cancellation or on_error: abort
)

// NodeResult reports one node.
type NodeResult struct {
	ID     string
	Status NodeStatus
	Err    error
}

// graph is the scheduler state of one RunGraph call; mu guards all of it.
type graph struct {
	nodes        []Node
	max          int
	abortOnError bool
	ctx          context.Context
	cancel       context.CancelFunc

	mu         sync.Mutex
	wg         sync.WaitGroup
	results    []NodeResult
	waiting    []int   // unfinished dependencies per node
	dependents [][]int // nodes waiting on each node
	ready      []int   // runnable nodes, in the order they became ready
	running    int
	aborted    bool
}

// RunGraph runs nodes concurrently, at most maxConcurrent at a time, each
// once all its dependencies completed successfully. Ready nodes start in
// declaration order (a node becomes ready when its dependencies are done).
// A node whose dependency failed is skipped. With abortOnError the first
// failure cancels every running node and nothing new starts; otherwise
// independent nodes go on. Results come back in the order of nodes. The
// graph must be acyclic with known ids (the config loader checks that).
func RunGraph(ctx context.Context, nodes []Node, maxConcurrent int, abortOnError bool) []NodeResult {
	if maxConcurrent < 1 {
		maxConcurrent = 1
	}
	g := &graph{nodes: nodes, max: maxConcurrent, abortOnError: abortOnError}
	g.ctx, g.cancel = context.WithCancel(ctx)
	defer g.cancel()
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.ID] = i
	}
	g.results = make([]NodeResult, len(nodes))
	g.waiting = make([]int, len(nodes))
	g.dependents = make([][]int, len(nodes))
	for i, n := range nodes {
		g.results[i].ID = n.ID
		for _, d := range n.DependsOn {
			if j, ok := index[d]; ok {
				g.waiting[i]++
				g.dependents[j] = append(g.dependents[j], i)
			}
		}
	}
	g.mu.Lock()
	for i := range nodes {
		if g.waiting[i] == 0 {
			g.ready = append(g.ready, i)
		}
	}
	g.dispatch()
	g.mu.Unlock()
	g.wg.Wait()
	return g.results
}

// dispatch starts ready nodes while there is room. Called with mu held.
func (g *graph) dispatch() {
	for len(g.ready) > 0 && g.running < g.max {
		i := g.ready[0]
		g.ready = g.ready[1:]
		if g.aborted || g.ctx.Err() != nil {
			g.finish(i, NodeCancelled, nil)
			continue
		}
		g.running++
		g.wg.Add(1)
		go g.run(i)
	}
}

func (g *graph) run(i int) {
	defer g.wg.Done()
	err := g.nodes[i].Run(g.ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	switch {
	case err == nil:
		g.finish(i, NodeOK, nil)
	case errors.Is(err, context.Canceled) && g.ctx.Err() != nil:
		g.finish(i, NodeCancelled, err)
	default:
		g.finish(i, NodeFailed, err)
	}
	g.dispatch()
}

// finish records node i's outcome and releases or skips its dependents.
// Called with mu held.
func (g *graph) finish(i int, st NodeStatus, err error) {
	g.results[i].Status, g.results[i].Err = st, err
	if st == NodeFailed && g.abortOnError && !g.aborted {
		g.aborted = true
		g.cancel()
	}
	for _, j := range g.dependents[i] {
		g.waiting[j]--
		if st != NodeOK && g.results[j].Status == "" {
			g.results[j].Status = NodeSkipped
			if g.aborted || st == NodeCancelled {
				g.results[j].Status = NodeCancelled
			}
		}
		if g.waiting[j] > 0 {
			continue
		}
		if g.results[j].Status != "" {
			g.finish(j, g.results[j].Status, nil)
		} else {
			g.ready = append(g.ready, j)
		}
	}
}
