package parquet

import (
	"errors"
	"fmt"
	"io"

	pq "github.com/parquet-go/parquet-go"
)

// cursor streams the values (with their repetition and definition levels)
// of one leaf column of one row group, a buffer of values at a time, so a
// column chunk is never held whole: only its current page is in memory.
type cursor struct {
	pages pq.Pages
	page  pq.Page // the page vals reads, released when done
	vals  pq.ValueReader
	buf   []pq.Value
	i, n  int
	done  bool
	// name is the column's dotted path, for errors.
	name string
}

// cursorBuffer is how many values a cursor decodes at a time.
const cursorBuffer = 1024

func newCursor(chunk pq.ColumnChunk, name string, buf []pq.Value) *cursor {
	return &cursor{pages: chunk.Pages(), buf: buf, name: name}
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

// fill decodes the next values, moving on to the next page when the
// current one is exhausted.
func (c *cursor) fill() error {
	c.i, c.n = 0, 0
	for !c.done {
		if c.vals != nil {
			n, err := c.vals.ReadValues(c.buf)
			if n > 0 {
				c.n = n
				if err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("column %s: %w", c.name, err)
				}
				if errors.Is(err, io.EOF) {
					c.vals = nil
				}
				return nil
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("column %s: %w", c.name, err)
			}
			c.vals = nil
		}
		c.release()
		page, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) {
			c.done = true
			return nil
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
		c.page, c.vals = page, page.Values()
	}
	return nil
}

// release gives the current page's buffers back to parquet-go's pools
// once its values are consumed (strings were copied into the page's
// arena), so the next page reuses them instead of allocating.
func (c *cursor) release() {
	if c.page != nil {
		pq.Release(c.page)
		c.page = nil
	}
}

func (c *cursor) close() error {
	if c.pages == nil {
		return nil
	}
	c.vals = nil
	c.release()
	err := c.pages.Close()
	c.pages = nil
	return err
}
