package serve

import (
	"context"
	"slices"
	"sync"
)

// slotQueue is the runner's execution slots, handed out first come, first
// served: a run takes its place in line when it is submitted (or claimed),
// not when its goroutine first gets to run, so with one slot the runs of a
// queue start in the order they were accepted.
type slotQueue struct {
	size int

	mu      sync.Mutex
	free    int
	waiting []*slotTicket
}

// slotTicket is one place in line; granted is closed when it holds a slot.
type slotTicket struct {
	q       *slotQueue
	granted chan struct{}
}

func newSlotQueue(size int) *slotQueue {
	return &slotQueue{size: size, free: size}
}

// enqueue takes a place in line, holding a slot at once when one is free
// and nobody waits.
func (q *slotQueue) enqueue() *slotTicket {
	t := &slotTicket{q: q, granted: make(chan struct{})}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.free > 0 && len(q.waiting) == 0 {
		q.free--
		close(t.granted)
	} else {
		q.waiting = append(q.waiting, t)
	}
	return t
}

// wait blocks until t holds a slot (true) or ctx ends (false, holding no
// slot, also when both happened at once: a slot granted meanwhile goes to
// the next in line).
func (t *slotTicket) wait(ctx context.Context) bool {
	select {
	case <-t.granted:
	case <-ctx.Done():
	}
	if ctx.Err() == nil {
		return true
	}
	q := t.q
	q.mu.Lock()
	if i := slices.Index(q.waiting, t); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
		q.mu.Unlock()
		return false
	}
	q.mu.Unlock()
	q.release()
	return false
}

// release gives a slot back: to the first in line, or to the free pool.
func (q *slotQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		q.waiting = slices.Delete(q.waiting, 0, 1)
		close(next.granted)
		return
	}
	q.free++
}
