package parquet

import (
	"errors"
	"io"
	"os"
	"sync"

	pq "github.com/parquet-go/parquet-go"
)

// maxSpillFiles bounds the open temporary files: the columns after the
// first maxSpillFiles keep their pages in memory, so a wide table does not
// run the process out of file descriptors.
const maxSpillFiles = 128

// spillPool is the parquet writer's buffer pool for the encoded pages of
// the row group being built (pq.ColumnPageBuffers): one temporary file
// per column instead of memory, so the row group's pages (row_group_bytes
// of them) sit in the page cache, not in the process's heap. The files
// are created beside the output, unlinked at once where the platform
// allows it, reused from row group to row group (truncated when the
// writer gives one back) and closed by close.
type spillPool struct {
	dir string
	mem pq.BufferPool // beyond maxSpillFiles (set on first use)

	mu   sync.Mutex
	free []*spillFile
	all  []*spillFile
}

// spillBuffer is how many bytes of page writes a spill file gathers
// before it writes them: a page reaches it as a small header and a body,
// two system calls each without it.
const spillBuffer = 32 << 10

// spillFile is one column's temporary file with a write buffer. Reading,
// seeking or copying it out writes the buffer first; WriteTo hands the
// copy to the file, so a row group's pages reach the output by
// copy_file_range (see countingWriter.ReadFrom).
type spillFile struct {
	f   *os.File
	buf []byte
}

func (s *spillFile) Write(p []byte) (int, error) {
	if len(s.buf)+len(p) > cap(s.buf) {
		if err := s.flush(); err != nil {
			return 0, err
		}
		if len(p) >= cap(s.buf) {
			return s.f.Write(p)
		}
	}
	s.buf = append(s.buf, p...)
	return len(p), nil
}

func (s *spillFile) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	_, err := s.f.Write(s.buf)
	s.buf = s.buf[:0]
	return err
}

func (s *spillFile) Read(p []byte) (int, error) {
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.f.Read(p)
}

func (s *spillFile) Seek(offset int64, whence int) (int64, error) {
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.f.Seek(offset, whence)
}

func (s *spillFile) WriteTo(w io.Writer) (int64, error) {
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.f.WriteTo(w)
}

// reset empties the file for the next row group.
func (s *spillFile) reset() error {
	s.buf = s.buf[:0]
	if err := s.f.Truncate(0); err != nil {
		return err
	}
	_, err := s.f.Seek(0, io.SeekStart)
	return err
}

func (p *spillPool) GetBuffer() io.ReadWriteSeeker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		f := p.free[n-1]
		p.free = p.free[:n-1]
		return f
	}
	if len(p.all) >= maxSpillFiles {
		if p.mem == nil {
			p.mem = pq.NewBufferPool()
		}
		return p.mem.GetBuffer()
	}
	f, err := os.CreateTemp(p.dir, ".faucet-parquet-pages-*")
	if err != nil {
		return failedBuffer{err}
	}
	_ = os.Remove(f.Name()) // unlinked: nothing is left behind by a crash; where that fails, close removes it
	sf := &spillFile{f: f, buf: make([]byte, 0, spillBuffer)}
	p.all = append(p.all, sf)
	return sf
}

func (p *spillPool) PutBuffer(b io.ReadWriteSeeker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := b.(*spillFile)
	if !ok {
		if _, failed := b.(failedBuffer); !failed && p.mem != nil {
			p.mem.PutBuffer(b)
		}
		return
	}
	// The writer reads a buffer to its end: drop the old row group's
	// bytes before the file is handed out again.
	if f.reset() != nil {
		return // not reused; close still closes it
	}
	p.free = append(p.free, f)
}

// close closes (and, where unlinking failed, removes) every file.
func (p *spillPool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, sf := range p.all {
		errs = append(errs, sf.f.Close())
		if err := os.Remove(sf.f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	p.all, p.free = nil, nil
	return errors.Join(errs...)
}

// failedBuffer is the buffer of a file that could not be created: every
// use fails with why, so the write fails with it.
type failedBuffer struct{ err error }

func (b failedBuffer) Read([]byte) (int, error)       { return 0, b.err }
func (b failedBuffer) Write([]byte) (int, error)      { return 0, b.err }
func (b failedBuffer) Seek(int64, int) (int64, error) { return 0, b.err }
