package parquet

import (
	"bufio"
	"errors"
	"io"
)

// chunkSource gives a page's decompressed bytes a chunk at a time; a
// chunk is valid until the next call. io.EOF after the last.
type chunkSource interface {
	chunk() ([]byte, error)
}

// byteStream reads a page's decompressed bytes: a value inside the
// current chunk is a slice of it; one spanning chunks is put together in
// tmp. What take returns is valid until the next take.
type byteStream struct {
	b   []byte
	src chunkSource // nil: b is all there is
	tmp []byte
}

func (s *byteStream) reset(b []byte, src chunkSource) {
	s.b, s.src = b, src
}

var errShortPage = errors.New("page data ends early")

// take returns the next n bytes.
func (s *byteStream) take(n int) ([]byte, error) {
	if n <= len(s.b) {
		out := s.b[:n:n]
		s.b = s.b[n:]
		return out, nil
	}
	return s.gather(n)
}

func (s *byteStream) gather(n int) ([]byte, error) {
	s.tmp = append(s.tmp[:0], s.b...)
	s.b = nil
	for len(s.tmp) < n {
		if err := s.refill(); err != nil {
			if errors.Is(err, io.EOF) {
				err = errShortPage
			}
			return nil, err
		}
		k := min(n-len(s.tmp), len(s.b))
		s.tmp = append(s.tmp, s.b[:k]...)
		s.b = s.b[k:]
	}
	return s.tmp, nil
}

func (s *byteStream) ReadByte() (byte, error) {
	if len(s.b) > 0 {
		c := s.b[0]
		s.b = s.b[1:]
		return c, nil
	}
	b, err := s.gather(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// readerChunks is a chunkSource over a decompressing reader.
type readerChunks struct {
	r   io.Reader
	buf []byte
}

func (c *readerChunks) chunk() ([]byte, error) {
	if c.buf == nil {
		c.buf = make([]byte, 64<<10)
	}
	n, err := io.ReadAtLeast(c.r, c.buf, 1)
	return c.buf[:n], err
}

// Read copies the next bytes to p, for decompressors that take a reader.
func (s *byteStream) Read(p []byte) (int, error) {
	if err := s.refill(); err != nil {
		return 0, err
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

// pageBytes is a chunkSource of a page's compressed bytes straight from
// the chunk's read buffer, so a page is never read whole.
type pageBytes struct {
	r    *bufio.Reader
	left int // bytes of the page not yet handed out
	last int // bytes handed out by the last chunk, still in r
}

func (p *pageBytes) chunk() ([]byte, error) {
	if _, err := p.r.Discard(p.last); err != nil {
		return nil, err
	}
	p.last = 0
	if p.left == 0 {
		return nil, io.EOF
	}
	b, err := p.r.Peek(min(p.left, p.r.Size()))
	if len(b) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	p.last = len(b)
	p.left -= len(b)
	return b, nil
}

// finish skips what is left of the page, so the next page header can be
// read.
func (p *pageBytes) finish() error {
	_, err := p.r.Discard(p.last + p.left)
	p.last, p.left = 0, 0
	return err
}

// refill makes the next chunk current once this one is used up: io.EOF
// at the end, or the source's error.
func (s *byteStream) refill() error {
	for len(s.b) == 0 {
		if s.src == nil {
			return io.EOF
		}
		c, err := s.src.chunk()
		if len(c) == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return err
		}
		s.b = c
	}
	return nil
}
