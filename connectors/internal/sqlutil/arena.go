package sqlutil

import (
	"time"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
)

// Arena holds the text of one page's values. Strings it hands out point
// into large shared chunks, so a page of 1000 rows costs no allocation
// per value (the garbage collector was a third of the SQL sources' CPU
// time). A chunk is never written again where a string was cut from it
// until Reset, and the collector keeps it alive while one of its strings
// is in use. Not safe for concurrent use: one per page.
//
// A nil *Arena allocates every value on its own.
type Arena struct {
	buf    []byte
	chunks [][]byte // every chunk handed out, reused in order after Reset
	next   int      // index in chunks of the next one to reuse
	json   *connector.JSONParser
}

// arenaChunk is the size of a chunk; bigger values get their own allocation.
const arenaChunk = 32 << 10

// room makes sure n (at most arenaChunk) more bytes fit in the current chunk.
func (a *Arena) room(n int) {
	if cap(a.buf)-len(a.buf) >= n {
		return
	}
	if a.next < len(a.chunks) {
		a.buf = a.chunks[a.next][:0]
	} else {
		a.buf = make([]byte, 0, arenaChunk)
		a.chunks = append(a.chunks, a.buf)
	}
	a.next++
}

// Reset lets the arena reuse its memory: every string and value it handed
// out becomes invalid.
func (a *Arena) Reset() {
	a.buf, a.next = nil, 0
	if a.json != nil {
		a.json.Reset()
	}
}

// Bytes returns a copy of b that lives in the arena.
func (a *Arena) Bytes(b []byte) []byte {
	if a == nil || len(b) > arenaChunk/4 {
		return append([]byte(nil), b...)
	}
	a.room(len(b))
	i := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[i:len(a.buf):len(a.buf)]
}

// String returns a copy of b as a string.
func (a *Arena) String(b []byte) string {
	if a == nil || len(b) == 0 || len(b) > arenaChunk/4 {
		return string(b)
	}
	c := a.Bytes(b)
	return unsafe.String(unsafe.SliceData(c), len(c))
}

// Concat returns the concatenation of parts as one string.
func (a *Arena) Concat(parts ...[]byte) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if a == nil || n == 0 || n > arenaChunk/4 {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return string(b)
	}
	a.room(n)
	i := len(a.buf)
	for _, p := range parts {
		a.buf = append(a.buf, p...)
	}
	return unsafe.String(&a.buf[i], n)
}

// ParseJSON parses a JSON document; the value's strings point into the
// arena (src itself is not kept: drivers reuse it for the next row).
func (a *Arena) ParseJSON(src []byte) (connector.Value, error) {
	if a == nil {
		return connector.ParseJSON(src)
	}
	if a.json == nil {
		a.json = new(connector.JSONParser)
	}
	return a.json.Parse(a.Bytes(src))
}

// Format renders t with layout as a string in the arena (layouts up to 64
// bytes of output, as the RFC 3339 ones).
func (a *Arena) Format(t time.Time, layout string) string {
	if a == nil {
		return t.Format(layout)
	}
	a.room(64)
	i := len(a.buf)
	a.buf = t.AppendFormat(a.buf, layout)
	return unsafe.String(&a.buf[i], len(a.buf)-i)
}

// PageBuf is the memory of one page of a SQL source: its records, their
// fields and the text arena. The engine hands it back through
// Page.Release once it is done with the page and the next page reuses it,
// so a steady read allocates almost nothing. (Postgres -> JSON Lines, 1M
// rows: a new buffer per page spent a third of the CPU time in the
// garbage collector and peaked at 38 MiB RSS; reused, 2 collections.)
type PageBuf struct {
	Recs   []connector.Record
	Fields []connector.Field
	Arena  Arena
}

// PageBufs holds the buffers of released pages; a few are enough, as the
// engine keeps only a handful of pages in flight.
type PageBufs chan *PageBuf

// NewPageBufs returns an empty set of buffers.
func NewPageBufs() PageBufs { return make(PageBufs, 8) }

// Get returns a released buffer (reset), or a new one with room for batch
// records of n fields.
func (c PageBufs) Get(batch, n int) *PageBuf {
	select {
	case b := <-c:
		b.Arena.Reset()
		b.Recs, b.Fields = b.Recs[:0], b.Fields[:0]
		return b
	default:
	}
	return &PageBuf{
		Recs:   make([]connector.Record, 0, batch),
		Fields: make([]connector.Field, 0, batch*n),
	}
}

// Put keeps b for a later page, or drops it when enough are kept. Every
// value of the page b held becomes invalid.
func (c PageBufs) Put(b *PageBuf) {
	select {
	case c <- b:
	default:
	}
}
