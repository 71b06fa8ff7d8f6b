package connector

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// refSafe[c] is true for ASCII bytes that need no escaping inside a JSON string.
var refSafe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONStringReference is the plain byte-at-a-time JSON string
// encoder the fast AppendJSONString must match exactly.
func appendJSONStringReference(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if refSafe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
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
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func TestAppendJSONStringMatchesReference(t *testing.T) {
	for _, s := range []string{"", "plain", "exactly8", "a\"b", "back\\slash", "tab\there", "\x00\x1f\x7f", "héllo wörld", "\xff\xfe bad", "line\u2028sep\u2029", "0123456789abcdef\n", strings.Repeat("x", 100) + "\"" + strings.Repeat("é", 9)} {
		if got, want := AppendJSONString(nil, s), appendJSONStringReference(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("a\"b\\c\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendJSONString(nil, s), appendJSONStringReference(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}
