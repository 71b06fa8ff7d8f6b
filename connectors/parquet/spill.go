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
	free []*os.File
	all  []*os.File
	err  error // the first failure to create a file
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
		if p.err == nil {
			p.err = err
		}
		return failedBuffer{err}
	}
	if os.Remove(f.Name()) == nil { // unlinked: nothing is left behind by a crash
		p.all = append(p.all, f)
		return f
	}
	p.all = append(p.all, f) // close removes it
	return f
}

func (p *spillPool) PutBuffer(b io.ReadWriteSeeker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := b.(*os.File)
	if !ok {
		if _, failed := b.(failedBuffer); !failed && p.mem != nil {
			p.mem.PutBuffer(b)
		}
		return
	}
	// The writer reads a buffer to its end: drop the old row group's
	// bytes before the file is handed out again.
	if f.Truncate(0) != nil {
		return // not reused; close still closes it
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return
	}
	p.free = append(p.free, f)
}

// close closes (and, where unlinking failed, removes) every file.
func (p *spillPool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, f := range p.all {
		errs = append(errs, f.Close())
		if err := os.Remove(f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
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
