// Package recycle is a bounded free list for the buffers a pipeline
// hands from one goroutine to another and back (a page's memory, made by
// a source's reader, released by the engine's writer).
//
// sync.Pool suits neither half of that: what one goroutine puts back
// lands in its processor's private slot, which a Get on another
// processor never sees, so the reader keeps making new buffers while
// released ones wait; and every garbage collection empties the pool, so
// they are made again after each cycle. A List keeps up to its bound of
// items for whoever asks next, across collections. The price: what it
// holds stays until it is taken, so a process keeps the largest pages
// it made (at most Max of each kind) until it reuses them or exits.
package recycle

import (
	"runtime"
	"sync"
)

// PagesInFlight bounds the lists of page memory: the engine keeps two
// pages per worker and one worker per processor by default, and a
// source is building one more.
var PagesInFlight = 2*runtime.GOMAXPROCS(0) + 2

// List holds up to Max released items. The zero value keeps none; a
// List is safe for concurrent use.
type List[T any] struct {
	Max  int
	mu   sync.Mutex
	free []T
}

// Get returns a released item, or ok false when there is none.
func (l *List[T]) Get() (item T, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.free)
	if n == 0 {
		return item, false
	}
	item = l.free[n-1]
	var zero T
	l.free[n-1] = zero
	l.free = l.free[:n-1]
	return item, true
}

// Put keeps item for a later Get unless the list is full; it reports
// whether it kept it.
func (l *List[T]) Put(item T) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) >= l.Max {
		return false
	}
	l.free = append(l.free, item)
	return true
}
