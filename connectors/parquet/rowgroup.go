package parquet

import "io"

// minRowGroupBytes is the smallest row_group_bytes accepted: below it a
// row group would hold a page or two per column.
const minRowGroupBytes = 64 << 10

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReadFrom lets a finished row group's pages go from their spill files to
// the output without passing through the process: the writer copies them
// with io.Copy through its bufio.Writer, which hands an empty buffer's
// copy to here, and an *os.File to *os.File copy is a copy_file_range on
// Linux.
func (c *countingWriter) ReadFrom(r io.Reader) (int64, error) {
	n, err := io.Copy(c.w, r)
	c.n += n
	return n, err
}

// buffered estimates the bytes of the row group being built: the writer's
// Size (bytes written so far plus the current row group's encoded pages,
// dictionaries and values not yet encoded) less what reached the file.
// The writer's own write buffer (32 KiB) is counted as in memory.
func (s *Sink) buffered() int64 {
	return s.w.Size() - s.out.n
}

// flushFull ends the row group once its estimated size reaches
// row_group_bytes, so the sink holds at most about that much, whatever
// row_group_size says. The check runs once per page, so a row group can
// exceed the budget by one page's worth of rows.
func (s *Sink) flushFull() error {
	if s.buffered() < s.cfg.RowGroupBytes {
		return nil
	}
	return s.endRowGroup()
}
