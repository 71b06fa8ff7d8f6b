package engine

import "sync/atomic"

// Stats are live counters of a running row, safe to read from another
// goroutine (the progress line).
type Stats struct {
	Read    atomic.Int64 // records the source produced, including failed ones
	Written atomic.Int64 // records the sink accepted
	DLQ     atomic.Int64 // records sent to the dead-letter queue
	Dropped atomic.Int64 // records a filter dropped
	Pages   atomic.Int64 // pages written
}
