package parquet

import (
	"encoding/binary"
	"errors"
	"io"
)

// snappyStream decompresses one snappy block (the raw format Parquet
// pages use: the uncompressed length as a varint, then literals and
// back-references) as a stream, reading the block as it goes and keeping
// only the last snappyWindow bytes of output for back-references. The
// snappy library compresses in independent 64 KiB fragments, so none of
// its references reaches farther, and a page of many MiB costs a few
// hundred KiB instead of its compressed and decompressed sizes. A small
// block (snappyWhole), or one with a farther reference (another
// encoder's), is decompressed whole instead.
type snappyStream struct {
	in    *byteStream // the block
	whole func() ([]byte, error)
	total int    // the uncompressed length the block claims
	done  int    // bytes produced so far
	out   []byte // kept output, then output not yet read
	r     int    // next byte of out to read
	lit   int    // bytes of a literal still to copy from in
	buf   []byte // the block decompressed whole, when it is
	err   error
	// wasWhole says it was.
	wasWhole bool
}

var errSnappy = errors.New("snappy: corrupt input")

const (
	snappyWindow = 64 << 10
	snappyChunk  = 64 << 10 // output decoded between reads
	snappyWhole  = 256 << 10
)

// reset starts on a block of size bytes read from in; whole returns the
// complete block, for decompressing it at once.
func (z *snappyStream) reset(in *byteStream, size int, whole func() ([]byte, error)) error {
	total, err := binary.ReadUvarint(in)
	// No element makes more than 64 bytes of 3 (a 2-byte-offset copy):
	// a larger claim is damage, and must not be allocated.
	if err != nil || total > uint64(size)*64/3+64 {
		return errSnappy
	}
	out, buf := z.out[:0], z.buf[:0]
	*z = snappyStream{in: in, whole: whole, total: int(total), out: out, buf: buf}
	if total <= snappyWhole {
		return z.decodeWhole()
	}
	if cap(z.out) < snappyWindow+snappyChunk+64 {
		z.out = make([]byte, 0, snappyWindow+snappyChunk+64)
	}
	return nil
}

// decodeWhole decompresses the block at once; reading goes on from
// where the stream was.
func (z *snappyStream) decodeWhole() error {
	src, err := z.whole()
	if err != nil {
		return err
	}
	b, err := snappyCodec{}.Decode(z.buf, src)
	if err != nil || len(b) != z.total {
		return errSnappy
	}
	z.buf = b
	z.out, z.r = b, z.done-(len(z.out)-z.r) // unread output stays unread
	z.done, z.lit, z.wasWhole = z.total, 0, true
	return nil
}

// chunk returns the next decompressed bytes, valid until the next call.
func (z *snappyStream) chunk() ([]byte, error) {
	for z.r == len(z.out) {
		if z.err != nil {
			return nil, z.err
		}
		if z.done == z.total {
			return nil, io.EOF
		}
		z.decode()
	}
	b := z.out[z.r:]
	z.r = len(z.out)
	return b, nil
}

// decode drops output that was read and is beyond the window, then
// decodes about snappyChunk more.
func (z *snappyStream) decode() {
	if drop := len(z.out) - snappyWindow; drop > 0 {
		z.out = z.out[:copy(z.out, z.out[drop:])]
		z.r -= drop
	}
	in, out := z.in, z.out
	limit := len(out) + snappyChunk
	for len(out) < limit && z.done < z.total {
		if z.lit > 0 {
			if in.refill() != nil {
				z.out, z.err = out, errSnappy
				return
			}
			n := min(z.lit, limit-len(out), len(in.b))
			out = append(out, in.b[:n]...)
			in.b = in.b[n:]
			z.lit -= n
			z.done += n
			continue
		}
		var length, offset int
		if b := in.b; len(b) >= 5 && b[0]&3 != 0 {
			// A copy whose tag is whole in this chunk: the common case.
			length, offset = copyTag(b)
			in.b = b[1+copyExtra[b[0]&3]:]
		} else {
			lit, l, o, err := z.tag()
			if err != nil {
				z.out, z.err = out, err
				return
			}
			if lit > 0 {
				z.lit = lit
				continue
			}
			length, offset = l, o
		}
		if offset <= 0 || offset > len(out) || z.done+length > z.total {
			z.out = out
			z.farCopy(offset, length)
			return
		}
		from := len(out) - offset
		if offset >= length {
			out = append(out, out[from:from+length]...)
		} else {
			for i := range length { // overlapping: a run
				out = append(out, out[from+i])
			}
		}
		z.done += length
	}
	z.out = out
}

// copyExtra is the bytes after the tag of a copy, by the tag's low bits.
var copyExtra = [4]int{0, 1, 2, 4}

// copyTag decodes the copy whose tag starts b (len(b) >= 5).
func copyTag(b []byte) (length, offset int) {
	switch t := b[0]; t & 3 {
	case 1:
		return 4 + int(t>>2)&7, int(t&0xe0)<<3 | int(b[1])
	case 2:
		return 1 + int(t>>2), int(binary.LittleEndian.Uint16(b[1:]))
	default:
		return 1 + int(t>>2), int(binary.LittleEndian.Uint32(b[1:]))
	}
}

// tag reads the next element's tag through in, for a tag that may span
// chunks: a literal's length (lit > 0), or a copy.
func (z *snappyStream) tag() (lit, length, offset int, err error) {
	t, err := z.in.ReadByte()
	if err != nil {
		return 0, 0, 0, errSnappy
	}
	if t&3 == 0 {
		x := int(t >> 2)
		if x >= 60 {
			b, err := z.in.take(x - 59)
			if err != nil {
				return 0, 0, 0, errSnappy
			}
			x = 0
			for i := len(b) - 1; i >= 0; i-- {
				x = x<<8 | int(b[i])
			}
		}
		if z.done+x+1 > z.total {
			return 0, 0, 0, errSnappy
		}
		return x + 1, 0, 0, nil
	}
	b, err := z.in.take(copyExtra[t&3])
	if err != nil {
		return 0, 0, 0, errSnappy
	}
	var tb [5]byte
	tb[0] = t
	copy(tb[1:], b)
	length, offset = copyTag(tb[:])
	return 0, length, offset, nil
}

// farCopy handles a copy decode cannot do from its window: damage (an
// error), or a reference farther back than the window, which is not the
// snappy library's output: then the whole block is decompressed and
// reading goes on from it. z.out is current on entry.
func (z *snappyStream) farCopy(offset, length int) {
	if offset <= 0 || offset > z.done || z.done+length > z.total {
		z.err = errSnappy
		return
	}
	if err := z.decodeWhole(); err != nil {
		z.err = err
	}
}
