// Package fileio holds the file plumbing the file connectors share: glob
// expansion, transparent decompression on read, and a buffered, optionally
// gzip-compressed writer whose Flush makes the data durable.
package fileio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Compression values accepted by the file connectors' `compression` key.
const (
	CompressionAuto = "auto"
	CompressionNone = "none"
	CompressionGzip = "gzip"
)

// CompressionEnum is the struct-tag enum of the `compression` key.
const CompressionEnum = "auto,none,gzip"

// IsGzip resolves a `compression` setting for path: auto means gzip when the
// name ends in ".gz".
func IsGzip(path, compression string) bool {
	switch compression {
	case CompressionGzip:
		return true
	case CompressionNone:
		return false
	}
	return strings.HasSuffix(path, ".gz")
}

// Expand returns the files named by pattern: the file itself, or the sorted
// matches of a glob. A missing file or a glob matching nothing is an error.
func Expand(pattern string) ([]string, error) {
	if !strings.ContainsAny(pattern, "*?[") {
		st, err := os.Stat(pattern)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory", pattern)
		}
		return []string{pattern}, nil
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %w", pattern, err)
	}
	files := matches[:0]
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && !st.IsDir() {
			files = append(files, m)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no file matches %q", pattern)
	}
	sort.Strings(files)
	return files, nil
}

// Reader is an open input file, decompressed when needed.
type Reader struct {
	io.Reader
	c  io.Closer // the file, or the stream Inputs.OpenFunc returned
	gz *gzip.Reader
}

// Open opens path for reading, through gzip when compression says so.
func Open(path, compression string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return newReader(path, f, compression)
}

// newReader wraps rc, through gzip when compression says so for name.
func newReader(name string, rc io.ReadCloser, compression string) (*Reader, error) {
	r := &Reader{Reader: rc, c: rc}
	if IsGzip(name, compression) {
		gz, err := gzip.NewReader(bufio.NewReaderSize(rc, 256<<10))
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		r.gz, r.Reader = gz, gz
	}
	return r, nil
}

// Close closes the file.
func (r *Reader) Close() error {
	var err error
	if r.gz != nil {
		err = r.gz.Close()
	}
	return errors.Join(err, r.c.Close())
}

// ReadFull reads into buf until it is full or the input ends; it returns
// the count and io.EOF when the input ended.
func ReadFull(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m == 0 {
			// A reader that returns 0, nil repeatedly would spin; io.Reader
			// discourages it, so treat it as a short read.
			continue
		}
	}
	return n, nil
}

// Writer writes an output file through a large buffer and, optionally, gzip.
type Writer struct {
	Path string
	f    *os.File
	buf  *bufio.Writer
	gz   *gzip.Writer
	// gzOpen is true while a gzip member is in progress.
	gzOpen bool
}

// BufferSize is the size of the write buffer.
const BufferSize = 256 << 10

// Create opens path for writing (parent directories are created), appending
// or truncating.
func Create(path string, appendTo bool, compression string) (*Writer, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	flags := os.O_CREATE | os.O_WRONLY
	if appendTo {
		flags |= os.O_APPEND
	} else {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, err
	}
	w := &Writer{Path: path, f: f}
	if IsGzip(path, compression) {
		w.gz = gzip.NewWriter(w.buffer())
		w.gzOpen = true
	}
	return w, nil
}

// Size reports the current size of the file on disk (before buffered data).
func (w *Writer) Size() (int64, error) {
	st, err := w.f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// directWrite is the size from which an uncompressed write skips the
// buffer: a whole encoded page goes to the file in one call, uncopied.
const directWrite = 64 << 10

// Write writes p.
func (w *Writer) Write(p []byte) (int, error) {
	if w.gz != nil {
		if !w.gzOpen {
			w.gz.Reset(w.buffer())
			w.gzOpen = true
		}
		return w.gz.Write(p)
	}
	if len(p) >= directWrite {
		if err := w.flushBuffer(); err != nil {
			return 0, err
		}
		return w.f.Write(p)
	}
	return w.buffer().Write(p)
}

// buffer is the write buffer, made on first use: a sink whose writes all
// go to the file directly (whole encoded pages) never holds one.
func (w *Writer) buffer() *bufio.Writer {
	if w.buf == nil {
		w.buf = bufio.NewWriterSize(w.f, BufferSize)
	}
	return w.buf
}

// flushBuffer writes out the buffer, if there is one.
func (w *Writer) flushBuffer() error {
	if w.buf == nil {
		return nil
	}
	return w.buf.Flush()
}

// Flush finishes the current gzip member, writes out the buffer and fsyncs
// the file, so everything written so far survives a crash.
func (w *Writer) Flush() error {
	if err := w.FlushBuffers(); err != nil {
		return err
	}
	return w.f.Sync()
}

// FlushBuffers is Flush without the fsync: everything written so far is
// in the file for a reader, and the kernel writes it back when it will.
func (w *Writer) FlushBuffers() error {
	if w.gz != nil && w.gzOpen {
		if err := w.gz.Close(); err != nil {
			return err
		}
		w.gzOpen = false
	}
	return w.flushBuffer()
}

// Close flushes (without fsync) and closes the file.
func (w *Writer) Close() error {
	var err error
	if w.gz != nil && w.gzOpen {
		err = w.gz.Close()
		w.gzOpen = false
	}
	if ferr := w.flushBuffer(); err == nil {
		err = ferr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
