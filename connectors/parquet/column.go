package parquet

import (
	"errors"
	"fmt"
	"io"

	pq "github.com/parquet-go/parquet-go"
)

// cursor streams the values (with their repetition and definition levels)
// of one leaf column of one row group, a buffer of values at a time, so a
// column chunk is never held whole.
type cursor struct {
	src  valueSource
	buf  []pq.Value
	i, n int
	done bool
	// name is the column's dotted path, for errors.
	name string
}

// valueSource is where a cursor's values come from: a chunkStream (no
// page held decompressed) or parquet-go's pages (one page held).
type valueSource interface {
	// ReadValues fills buf; io.EOF after the last value. Byte arrays are
	// valid until the next call.
	ReadValues(buf []pq.Value) (int, error)
	Close() error
}

// cursorBuffer is how many values a cursor decodes at a time.
const cursorBuffer = 1024

func newCursor(src valueSource, name string, buf []pq.Value) *cursor {
	return &cursor{src: src, buf: buf, name: name}
}

// peek returns the next value without consuming it; ok is false at the end
// of the column chunk.
func (c *cursor) peek() (v pq.Value, ok bool, err error) {
	if c.i < c.n {
		return c.buf[c.i], true, nil
	}
	if err := c.fill(); err != nil {
		return pq.Value{}, false, err
	}
	if c.i < c.n {
		return c.buf[c.i], true, nil
	}
	return pq.Value{}, false, nil
}

// next consumes the next value; reaching the end of the chunk while a row
// still needs values means the file is inconsistent.
func (c *cursor) next() (pq.Value, error) {
	v, ok, err := c.peek()
	if err != nil {
		return pq.Value{}, err
	}
	if !ok {
		return pq.Value{}, fmt.Errorf("column %s: fewer values than rows", c.name)
	}
	c.i++
	return v, nil
}

// fill decodes the next values.
func (c *cursor) fill() error {
	c.i, c.n = 0, 0
	if c.done {
		return nil
	}
	n, err := c.src.ReadValues(c.buf)
	c.n = n
	switch {
	case errors.Is(err, io.EOF):
		c.done = true
	case err != nil:
		return fmt.Errorf("column %s: %w", c.name, err)
	}
	return nil
}

func (c *cursor) close() error {
	if c.src == nil {
		return nil
	}
	err := c.src.Close()
	c.src = nil
	return err
}

// pageValues reads a column chunk through parquet-go's pages, holding one
// decoded page at a time.
type pageValues struct {
	pages pq.Pages
	page  pq.Page // the page vals reads, released when done
	vals  pq.ValueReader
}

func (p *pageValues) ReadValues(buf []pq.Value) (int, error) {
	for {
		if p.vals != nil {
			n, err := p.vals.ReadValues(buf)
			if errors.Is(err, io.EOF) {
				p.vals = nil
				err = nil
			}
			if n > 0 || err != nil {
				return n, err
			}
		}
		p.release()
		page, err := p.pages.ReadPage()
		if err != nil {
			return 0, err
		}
		p.page, p.vals = page, page.Values()
	}
}

// release gives the current page's buffers back to parquet-go's pools
// once its values are consumed (strings were copied into the page's
// arena), so the next page reuses them instead of allocating.
func (p *pageValues) release() {
	if p.page != nil {
		pq.Release(p.page)
		p.page = nil
	}
}

func (p *pageValues) Close() error {
	p.vals = nil
	p.release()
	return p.pages.Close()
}
