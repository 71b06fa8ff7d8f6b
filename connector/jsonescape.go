package connector

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

const (
	ones = 0x0101010101010101
	lo7  = 0x7F7F7F7F7F7F7F7F
)

// eqMask has the high bit set in exactly the bytes of x equal to c (in all
// of its bytes: cc is c repeated).
func eqMask(x, cc uint64) uint64 {
	y := x ^ cc
	return ^((y&lo7 + lo7) | y | lo7)
}

// specialMask flags, exactly, the bytes of x a JSON string cannot hold as
// they are: '"', '\\', control bytes and every non-ASCII byte (which is
// checked for valid UTF-8, U+2028 and U+2029 one rune at a time).
func specialMask(x uint64) uint64 {
	ctl := ^((x & lo7) + 0x60*ones) &^ x & msb // ASCII below 0x20
	return ctl | x&msb | eqMask(x, '"'*ones) | eqMask(x, '\\'*ones)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a quoted JSON string. Invalid UTF-8 is
// replaced by U+FFFD; U+2028 and U+2029 are escaped for JavaScript safety.
// It looks at eight bytes at a time and copies the plain runs between
// special bytes in one go (jsonescape_test.go checks it against a plain
// byte-at-a-time reference).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	if len(s) == 0 {
		return append(dst, '"')
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	start, i := 0, 0 // b[start:] up to the next special byte is not yet copied
	for i+8 <= len(b) {
		m := specialMask(binary.LittleEndian.Uint64(b[i:]))
		next, skip := i+8, 0
		for m != 0 {
			p := i + bits.TrailingZeros64(m)/8
			m &= m - 1
			if p < skip {
				continue // a later byte of a rune already looked at
			}
			c := b[p]
			if c >= utf8.RuneSelf {
				if size := plainRune(b[p:]); size > 0 {
					skip = p + size
					next = max(next, skip)
					continue
				}
			}
			dst = append(dst, b[start:p]...)
			if c == '"' || c == '\\' { // the usual special bytes, inline
				dst = append(dst, '\\', c)
				start = p + 1
			} else {
				dst, start = appendSpecial(dst, b, p)
			}
			skip = start
			next = max(next, start)
		}
		i = next
	}
	for i < len(b) {
		if c := b[i]; c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		if size := plainRune(b[i:]); size > 0 {
			i += size
			continue
		}
		dst = append(dst, b[start:i]...)
		dst, start = appendSpecial(dst, b, i)
		i = start
	}
	dst = append(dst, b[start:]...)
	return append(dst, '"')
}

// plainRune returns the length of the valid multi-byte rune at the start of
// b when it needs no escaping, else 0.
func plainRune(b []byte) int {
	if b[0] < utf8.RuneSelf {
		return 0
	}
	r, size := utf8.DecodeRune(b)
	if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
		return 0
	}
	return size
}

// appendSpecial writes the special byte (or rune) at b[p] and returns the
// offset after it. A valid rune other than U+2028/U+2029 is copied as is.
func appendSpecial(dst []byte, b []byte, p int) ([]byte, int) {
	c := b[p]
	if c < utf8.RuneSelf {
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		return dst, p + 1
	}
	r, size := utf8.DecodeRune(b[p:])
	switch {
	case r == utf8.RuneError && size == 1:
		dst = append(dst, "\ufffd"...)
	case r == '\u2028' || r == '\u2029':
		dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
	default:
		dst = append(dst, b[p:p+size]...)
	}
	return dst, p + size
}
