package jsonl

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainRun returns the length of the prefix of s that a JSON string can
// hold as is: printable ASCII other than '"' and '\\'. It looks at eight
// bytes at a time.
func plainRun(s string) int {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				return i
			}
		}
		return len(s)
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (lsb * '"')
		b := x ^ (lsb * '\\')
		m := ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*0x20)&^x) & msb
		m |= x & msb // non-ASCII
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, byte for byte what
// connector.AppendJSONString writes (invalid UTF-8 becomes U+FFFD, U+2028
// and U+2029 are escaped), but skipping plain runs eight bytes at a time.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for {
		n := plainRun(s)
		dst = append(dst, s[:n]...)
		s = s[n:]
		if s == "" {
			return append(dst, '"')
		}
		c := s[0]
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
			s = s[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			dst = append(dst, s[:size]...)
		}
		s = s[size:]
	}
}
