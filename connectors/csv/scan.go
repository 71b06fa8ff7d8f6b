package csv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// readSize is how much input one read asks for. Pages are cut from it at
// record boundaries. (A variable so tests can force many refills.)
var readSize = fileio.ReadSize

// maxRecordBytes bounds one record (decoders keep int32 offsets).
const maxRecordBytes = 1 << 30

// The dialect is RFC 4180 read leniently, like the original's csv crate: a
// quote opens a quoted field only at the start of a field; "" inside a
// quoted field is one quote; bytes after a closing quote are kept literally
// up to the next delimiter; a quote inside an unquoted field is an ordinary
// character. scanRecords (the reader) and parseRecord (the decoders) must
// agree on it exactly, so that pages are cut where records end.

// chunker cuts an input stream into chunks of whole records. Each chunk
// holds a reference on the buffer it lives in (see readBuf).
type chunker struct {
	r      io.Reader
	cur    *fileio.Buffer // the buffer buf is in; the chunker holds one reference
	buf    []byte         // buf[off:] is unconsumed input
	off    int
	eof    bool
	err    error
	line   int   // line number of buf[off]
	rows   int64 // non-blank rows handed out so far
	delim  byte
	quote  byte
	bomOff bool // the BOM check at the start of the input was done
	cut    bool // a chunk was handed out already
}

func newChunker(r io.Reader, delim, quote byte) *chunker {
	return &chunker{r: r, line: 1, delim: delim, quote: quote}
}

// chunk is a run of whole records.
type chunk struct {
	buf       *fileio.Buffer // data lives here; release when done with the chunk
	data      []byte
	firstLine int
	records   int // record terminators seen (blank lines included)
	// firstRow is the 1-based position in the input of the chunk's first
	// non-blank row (header excluded once the header was consumed).
	firstRow int64
}

// next returns up to maxRecords records (0 = no limit but the buffer), or
// an empty chunk and the read error (io.EOF at the end). The final record of
// the input need not end with a newline; an unterminated quoted field at the
// end of input is returned as is for the decoder to report.
func (c *chunker) next(maxRecords int) (chunk, error) {
	for {
		rest := c.buf[c.off:]
		if len(rest) > 0 {
			if end, n, rows := scanRecords(rest, maxRecords, c.delim, c.quote); n > 0 {
				return c.take(end, n, rows), nil
			}
		}
		switch {
		case c.err != nil:
			return chunk{}, c.err
		case c.eof && len(rest) > 0:
			// Final record without a trailing newline (or an unterminated
			// quoted field).
			return c.take(len(rest), 1, 1), nil
		case c.eof:
			return chunk{}, io.EOF
		}
		c.fill()
	}
}

// release drops the chunk's reference on its buffer.
func (ch chunk) release() { ch.buf.Release() }

// close drops the chunker's own reference on its current buffer.
func (c *chunker) close() {
	c.cur.Release()
	c.cur, c.buf, c.off = nil, nil, 0
}

func (c *chunker) take(end, n, rows int) chunk {
	data := c.buf[c.off : c.off+end : c.off+end]
	c.cur.Retain()
	c.cut = true
	ch := chunk{buf: c.cur, data: data, firstLine: c.line, records: n, firstRow: c.rows + 1}
	c.rows += int64(rows)
	c.line += bytes.Count(data, []byte{'\n'})
	c.off += end
	return ch
}

// fill moves the unconsumed bytes into another buffer (from the pool, or
// larger when a record does not fit) and reads more.
func (c *chunker) fill() {
	rest := c.buf[c.off:]
	size := readSize
	for size < 2*len(rest) {
		size *= 2
	}
	if len(rest) > maxRecordBytes {
		c.eof, c.err = true, fmt.Errorf("a record at line %d is longer than %d bytes", c.line, maxRecordBytes)
		return
	}
	rb := fileio.GetBuffer(size)
	nb := rb.B[:size]
	copy(nb, rest)
	n, err := fileio.ReadFull(c.r, nb[len(rest):])
	c.cur.Release()
	c.cur = rb
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
		// Only at the very start of the input: a chunk may already have
		// been cut from the first bytes ("\n" then a BOM is data).
		if !c.cut && bytes.HasPrefix(c.buf, []byte{0xEF, 0xBB, 0xBF}) {
			c.off = 3
		}
	}
}

// scanRecords returns the end offset just after the last complete record in
// b (at most maxRecords of them when maxRecords > 0), how many there are and
// how many of them are not blank lines. b must start at a record boundary.
//
// Only quotes and newlines matter for where records end: outside a quoted
// field a newline ends the record, and a quote opens a quoted field only at
// the start of a field, that is right after a delimiter or a newline (or at
// b[0]); any other quote outside a quoted field is an ordinary character.
// Inside, "" is a quote and a single quote closes the field. This is the
// field parser's state machine (parseRecord) reduced to the two bytes that
// can change the answer, so the reader, which runs on one goroutine, looks
// at eight bytes at a time and stops only at quotes and newlines.
func scanRecords(b []byte, maxRecords int, delim, quote byte) (end, n, rows int) {
	qq, nn := ones*uint64(quote), uint64(ones*'\n')
	i := 0
	for i < len(b) {
		p := i
		if i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			m := quoteMask(x, qq) | quoteMask(x, nn)
			if m == 0 {
				i += 8
				continue
			}
			p += bits.TrailingZeros64(m) / 8
		} else {
			for p < len(b) && b[p] != quote && b[p] != '\n' {
				p++
			}
			if p == len(b) {
				break
			}
		}
		if b[p] == '\n' {
			// A blank line (nothing, or a lone CR) is skipped by decoders.
			if !(p == end || (p == end+1 && b[end] == '\r')) {
				rows++
			}
			n++
			end = p + 1
			if n == maxRecords {
				return end, n, rows
			}
			i = p + 1
			continue
		}
		if p == 0 || b[p-1] == delim || b[p-1] == '\n' {
			j, _ := closeQuote(b, p+1, quote)
			if j < 0 {
				return end, n, rows
			}
			i = j + 1
			continue
		}
		i = p + 1 // a quote inside an unquoted field is data
	}
	return end, n, rows
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
//
// Inside a quoted field every quote toggles between "inside" and "maybe
// closed" ("" toggles twice), so the field ends at the first non-quote byte
// with an odd number of quotes before it; the quote before that byte closes
// the field. Eight bytes at a time: the quote flags of a word are gathered
// into a byte, whose prefix XOR gives the parity after each byte.
func closeQuote(b []byte, i int, quote byte) (int, bool) {
	qq := ones * uint64(quote)
	var parity uint64 // quotes seen so far, mod 2
	nq := 0           // quotes seen so far (all before the closing one are "")
	for i+8 <= len(b) {
		m := quoteMask(binary.LittleEndian.Uint64(b[i:]), qq)
		q8 := (m >> 7) * 0x0102040810204080 >> 56 // bit k: byte k is a quote
		p := q8
		p ^= p << 1
		p ^= p << 2
		p ^= p << 4
		p = (p ^ -parity) & 0xFF // bit k: odd number of quotes up to byte k
		if c := p &^ q8; c != 0 {
			k := bits.TrailingZeros64(c) // byte k ends the field, byte k-1 closes it
			if k == 0 {
				return i - 1, nq > 1
			}
			return i + k - 1, nq+bits.OnesCount64(q8&(1<<(k-1)-1)) > 0
		}
		parity = p >> 7
		nq += bits.OnesCount64(q8)
		i += 8
	}
	for ; i < len(b); i++ {
		if b[i] == quote {
			parity ^= 1
			nq++
		} else if parity == 1 {
			return i - 1, nq > 1
		}
	}
	if parity == 1 {
		return len(b) - 1, nq > 1
	}
	return -1, nq > 0
}
