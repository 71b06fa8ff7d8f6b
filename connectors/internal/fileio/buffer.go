package fileio

import (
	"sync/atomic"

	"github.com/faucet-hq/faucet/internal/recycle"
)

// ReadSize is the size of the read buffers file sources cut pages from.
const ReadSize = 256 << 10

// Buffer is a read buffer shared by the pages cut from it. Its holder keeps
// one reference; each page takes one more (Retain) and drops it when the
// engine releases the page (connector.Page.Release). When the last
// reference goes, a buffer of the standard size returns to a pool, so a
// steady stream reuses a few buffers instead of allocating one per read.
// Until then, decoders may keep string views into it.
type Buffer struct {
	B    []byte
	refs atomic.Int32
}

// bufferPool keeps released standard-size buffers: a source's reader
// takes them, the engine's writer releases the pages that held them.
var bufferPool = recycle.List[*Buffer]{Max: recycle.PagesInFlight}

// GetBuffer returns a buffer of at least size bytes holding one reference.
func GetBuffer(size int) *Buffer {
	if size <= ReadSize {
		if b, ok := bufferPool.Get(); ok {
			b.refs.Store(1)
			return b
		}
		size = ReadSize
	}
	b := &Buffer{B: make([]byte, size)}
	b.refs.Store(1)
	return b
}

// Retain takes one more reference.
func (b *Buffer) Retain() { b.refs.Add(1) }

// Release drops one reference; nil is a no-op.
func (b *Buffer) Release() {
	if b != nil && b.refs.Add(-1) == 0 && len(b.B) == ReadSize {
		bufferPool.Put(b)
	}
}
