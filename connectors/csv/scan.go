package csv

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// readSize is how much input one read asks for. Pages are cut from it at
// record boundaries. (A variable so tests can force many refills.)
var readSize = 1 << 20

// Field-parser states, shared by the chunker and the decoder so that both
// agree on where records end. The dialect is RFC 4180 read leniently, like
// the original's csv crate: a quote opens a quoted field only at the start of
// a field; "" inside a quoted field is one quote; bytes after a closing quote
// are kept literally up to the next delimiter; a quote inside an unquoted
// field is an ordinary character.
const (
	stStart  = iota // at the start of a field
	stPlain         // inside an unquoted field
	stQuoted        // inside a quoted field
	stClosed        // just after a quote inside a quoted field
)

// chunker cuts an input stream into chunks of whole records. Every chunk
// lives in a buffer that is never reused, so decoders may keep views into it.
type chunker struct {
	r      io.Reader
	buf    []byte // buf[off:] is unconsumed input
	off    int
	eof    bool
	err    error
	line   int // line number of buf[off]
	delim  byte
	quote  byte
	bomOff bool // the BOM check at the start of the input was done
}

func newChunker(r io.Reader, delim, quote byte) *chunker {
	return &chunker{r: r, line: 1, delim: delim, quote: quote}
}

// chunk is a run of whole records.
type chunk struct {
	data      []byte
	firstLine int
	records   int // record terminators seen (blank lines included)
}

// next returns up to maxRecords records (0 = no limit but the buffer), or
// an empty chunk and the read error (io.EOF at the end). The final record of
// the input need not end with a newline; an unterminated quoted field at the
// end of input is returned as is for the decoder to report.
func (c *chunker) next(maxRecords int) (chunk, error) {
	for {
		rest := c.buf[c.off:]
		if len(rest) > 0 {
			end, n := scanRecords(rest, maxRecords, c.delim, c.quote)
			if n > 0 {
				return c.take(end, n), nil
			}
			if c.eof {
				// Final record without a trailing newline (or an
				// unterminated quoted field).
				return c.take(len(rest), 1), nil
			}
		} else if c.eof {
			if c.err != nil {
				return chunk{}, c.err
			}
			return chunk{}, io.EOF
		}
		c.fill()
	}
}

func (c *chunker) take(end, n int) chunk {
	data := c.buf[c.off : c.off+end : c.off+end]
	ch := chunk{data: data, firstLine: c.line, records: n}
	c.line += bytes.Count(data, []byte{'\n'})
	c.off += end
	return ch
}

// fill moves the unconsumed bytes into a fresh, larger buffer and reads more.
func (c *chunker) fill() {
	rest := c.buf[c.off:]
	size := readSize
	for size < 2*len(rest) {
		size *= 2
	}
	nb := make([]byte, size)
	copy(nb, rest)
	n, err := fileio.ReadFull(c.r, nb[len(rest):])
	c.buf, c.off = nb[:len(rest)+n], 0
	if err != nil {
		c.eof = true
		if err != io.EOF {
			c.err = err
		}
	}
	// A byte-order mark at the start of the input is dropped. (Until three
	// bytes are in, what there is holds no newline, so nothing was cut yet.)
	if !c.bomOff && (len(c.buf) >= 3 || c.eof) {
		c.bomOff = true
		if bytes.HasPrefix(c.buf, []byte{0xEF, 0xBB, 0xBF}) {
			c.off = 3
		}
	}
}

// scanRecords returns the end offset just after the last complete record in
// b (at most maxRecords of them when maxRecords > 0) and how many there are.
func scanRecords(b []byte, maxRecords int, delim, quote byte) (end, n int) {
	st := stStart
	i := 0
	for i < len(b) {
		switch st {
		case stStart:
			ch := b[i]
			i++
			switch ch {
			case quote:
				st = stQuoted
			case delim:
			case '\n':
				n++
				end = i
				if n == maxRecords {
					return end, n
				}
			default:
				st = stPlain
			}
		case stPlain:
			for i < len(b) {
				ch := b[i]
				i++
				if ch == delim {
					st = stStart
					break
				}
				if ch == '\n' {
					st = stStart
					n++
					end = i
					if n == maxRecords {
						return end, n
					}
					break
				}
			}
		case stQuoted:
			j, _ := closeQuote(b, i, quote)
			if j < 0 {
				return end, n
			}
			i = j + 1
			st = stClosed
		case stClosed:
			ch := b[i]
			i++
			switch ch {
			case quote:
				st = stQuoted
			case delim:
				st = stStart
			case '\n':
				st = stStart
				n++
				end = i
				if n == maxRecords {
					return end, n
				}
			default:
				st = stPlain
			}
		}
	}
	return end, n
}

const (
	lo7  = 0x7F7F7F7F7F7F7F7F
	ones = 0x0101010101010101
)

// quoteMask returns a mask with the high bit set in exactly the bytes of x
// that equal q (no false positives, unlike the cheaper zero-byte test).
func quoteMask(x, qq uint64) uint64 {
	y := x ^ qq
	t := (y & lo7) + lo7
	return ^(t | y | lo7)
}

// closeQuote finds the quote that closes the quoted field whose content
// starts at b[i]: the first quote not doubled. It returns its index, or -1
// when b ends first, and whether doubled quotes were seen. A quote that is
// the last byte of b counts as closing.
func closeQuote(b []byte, i int, quote byte) (int, bool) {
	esc := false
	qq := ones * uint64(quote)
	for i+8 <= len(b) {
		m := quoteMask(binary.LittleEndian.Uint64(b[i:]), qq)
		for m != 0 {
			p := i + bits.TrailingZeros64(m)/8
			if p+1 < len(b) && b[p+1] == quote {
				esc = true
				if p+1 >= i+8 {
					i = p + 2
					goto reload
				}
				m &^= 0x80 << (8 * uint(p-i))
				m &^= 0x80 << (8 * uint(p+1-i))
				continue
			}
			return p, esc
		}
		i += 8
	reload:
	}
	for i < len(b) {
		if b[i] == quote {
			if i+1 < len(b) && b[i+1] == quote {
				esc = true
				i += 2
				continue
			}
			return i, esc
		}
		i++
	}
	return -1, esc
}
