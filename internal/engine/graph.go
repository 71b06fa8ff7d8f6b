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

// RunGraph runs nodes concurrently, at most maxConcurrent at a time, each
// once all its dependencies completed successfully. A node whose
// dependency failed is skipped. With abortOnError the first failure cancels
// every running node and nothing new starts; otherwise independent nodes go
// on. Results come back in the order of nodes. The graph must be acyclic
// with known ids (the config loader checks that).
func RunGraph(ctx context.Context, nodes []Node, maxConcurrent int, abortOnError bool) []NodeResult {
	if maxConcurrent < 1 {
		maxConcurrent = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.ID] = i
	}
	results := make([]NodeResult, len(nodes))
	waiting := make([]int, len(nodes)) // unfinished dependencies
	dependents := make([][]int, len(nodes))
	for i, n := range nodes {
		results[i].ID = n.ID
		for _, d := range n.DependsOn {
			if j, ok := index[d]; ok {
				waiting[i]++
				dependents[j] = append(dependents[j], i)
			}
		}
	}

	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxConcurrent)
	aborted := false
	var start func(i int)
	// finish records node i's outcome and releases its dependents.
	var finish func(i int, st NodeStatus, err error)
	finish = func(i int, st NodeStatus, err error) {
		results[i].Status, results[i].Err = st, err
		if st == NodeFailed && abortOnError {
			aborted = true
			cancel()
		}
		for _, j := range dependents[i] {
			waiting[j]--
			if st != NodeOK {
				if results[j].Status == "" {
					results[j].Status = NodeSkipped
					if aborted || errors.Is(err, context.Canceled) {
						results[j].Status = NodeCancelled
					}
				}
			}
			if waiting[j] == 0 {
				if results[j].Status != "" {
					finish(j, results[j].Status, nil)
				} else {
					start(j)
				}
			}
		}
	}
	start = func(i int) {
		if aborted || ctx.Err() != nil {
			finish(i, NodeCancelled, nil)
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				mu.Lock()
				finish(i, NodeCancelled, nil)
				mu.Unlock()
				return
			}
			err := nodes[i].Run(ctx)
			<-sem
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				finish(i, NodeOK, nil)
			case errors.Is(err, context.Canceled) && ctx.Err() != nil:
				finish(i, NodeCancelled, err)
			default:
				finish(i, NodeFailed, err)
			}
		}()
	}
	mu.Lock()
	for i := range nodes {
		if waiting[i] == 0 {
			start(i)
		}
	}
	mu.Unlock()
	wg.Wait()
	return results
}
