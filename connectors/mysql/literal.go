package mysql

import (
	"encoding/base64"
	"strconv"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// The sink writes its INSERT statements as text with the values inline,
// instead of one bind argument per value for the driver to interpolate:
// boxing 7M values into []any, converting and interpolating them was two
// thirds of the sink's CPU time (bench/sql/RESULTS.md). The text is what
// the driver's interpolation would send, except that quotes are doubled
// instead of backslash-escaped, which means the same whether or not the
// session has NO_BACKSLASH_ESCAPES. A string or byte value that holds a
// backslash cannot be written the same way in both modes: it stays a `?`
// argument, and the driver interpolates it for the session's mode.

// appendValue appends v as the literal arg(v, kind) would be interpolated
// to, or reports false (nothing appended) when it must be bound instead.
func appendValue(dst, scratch []byte, v connector.Value, kind colKind) (out, scratchOut []byte, ok bool) {
	if v.IsNull() {
		return append(dst, "NULL"...), scratch, true
	}
	switch kind {
	case kindJSON:
		scratch = connector.AppendJSON(scratch[:0], v)
		out, ok = appendQuoted(dst, scratch, "")
		return out, scratch, ok
	case kindBinary:
		if v.Kind() == connector.KindString {
			s := v.AsString()
			if n := base64.StdEncoding.DecodedLen(len(s)); cap(scratch) < n {
				scratch = make([]byte, n)
			}
			if n, err := base64.StdEncoding.Decode(scratch[:cap(scratch)], []byte(s)); err == nil {
				scratch = scratch[:n]
				out, ok = appendQuoted(dst, scratch, "_binary")
				return out, scratch, ok
			}
		}
	case kindDateTime, kindTimestamp:
		if v.Kind() == connector.KindString && mayHaveZone(v.AsString()) {
			if t, err := time.Parse(time.RFC3339Nano, v.AsString()); err == nil {
				dst = append(dst, '\'')
				dst = t.UTC().AppendFormat(dst, "2006-01-02 15:04:05.999999")
				return append(dst, '\''), scratch, true
			}
		}
	}
	// sqlutil.Arg(v, false)
	switch v.Kind() {
	case connector.KindBool:
		if v.AsBool() {
			return append(dst, '1'), scratch, true
		}
		return append(dst, '0'), scratch, true
	case connector.KindInt:
		return strconv.AppendInt(dst, v.AsInt(), 10), scratch, true
	case connector.KindFloat:
		if t, ok := v.ExactNumber(); ok {
			out, ok = appendQuoted(dst, t, "")
			return out, scratch, ok
		}
		return strconv.AppendFloat(dst, v.AsFloat(), 'g', -1, 64), scratch, true
	case connector.KindString:
		out, ok = appendQuoted(dst, v.AsString(), "")
		return out, scratch, ok
	}
	scratch = connector.AppendJSON(scratch[:0], v)
	out, ok = appendQuoted(dst, scratch, "")
	return out, scratch, ok
}

// mayHaveZone reports whether s ends like RFC 3339 text with a zone (Z or
// +hh:mm), without which time.Parse(time.RFC3339Nano) fails anyway: the
// naive DATETIME text the mysql source reads ("2020-01-01T00:00:31") then
// skips two failing parses (15% of MySQL -> MySQL's CPU time).
func mayHaveZone(s string) bool {
	n := len(s)
	return n > 0 && (s[n-1] == 'Z' || s[n-1] == 'z' || n >= 6 && (s[n-6] == '+' || s[n-6] == '-'))
}

// appendQuoted appends prefix'text' with quotes doubled, or reports false
// (dst unchanged) when text holds a backslash.
func appendQuoted[T string | []byte](dst []byte, text T, prefix string) ([]byte, bool) {
	mark := len(dst)
	dst = append(dst, prefix...)
	dst = append(dst, '\'')
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\'':
			dst = append(dst, text[start:i+1]...)
			dst = append(dst, '\'')
			start = i + 1
		case '\\':
			return dst[:mark], false
		}
	}
	dst = append(dst, text[start:]...)
	return append(dst, '\''), true
}
