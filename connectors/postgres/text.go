package postgres

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
)

// colKind is how a destination column wants its values as text.
type colKind uint8

const (
	kindScalar colKind = iota
	kindJSON           // json, jsonb: the value as JSON text
	kindBytea          // bytea: base64 strings decoded, sent as \x hex
	kindArray          // arrays: faucet arrays as array literals {a,b}
)

// pgCol is a column of the destination table.
type pgCol struct {
	name string
	typ  string // type name for casts, without modifiers ("integer[]")
	kind colKind
}

// appendText appends v as the column's text input form; null reports SQL NULL.
func appendText(dst []byte, v connector.Value, kind colKind) (out []byte, null bool) {
	if v.IsNull() {
		return dst, true
	}
	switch kind {
	case kindJSON:
		return connector.AppendJSON(dst, v), false
	case kindBytea:
		var raw []byte
		if v.Kind() == connector.KindString {
			s := v.AsString()
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				b = []byte(s)
			}
			raw = b
		} else {
			raw = []byte(v.Text())
		}
		dst = append(dst, '\\', 'x')
		return hex.AppendEncode(dst, raw), false
	case kindArray:
		if v.Kind() == connector.KindArray {
			return appendArray(dst, v), false
		}
	}
	return appendScalar(dst, v), false
}

func appendScalar(dst []byte, v connector.Value) []byte {
	switch v.Kind() {
	case connector.KindString:
		return append(dst, v.AsString()...)
	case connector.KindInt:
		return strconv.AppendInt(dst, v.AsInt(), 10)
	case connector.KindFloat:
		if t, ok := v.ExactNumber(); ok {
			return append(dst, t...)
		}
		f := v.AsFloat()
		switch {
		case math.IsNaN(f):
			return append(dst, "NaN"...)
		case math.IsInf(f, 1):
			return append(dst, "Infinity"...)
		case math.IsInf(f, -1):
			return append(dst, "-Infinity"...)
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64)
	case connector.KindBool:
		if v.AsBool() {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	}
	return connector.AppendJSON(dst, v)
}

// appendArray writes a Postgres array literal: {1,"a b",NULL,{2,3}}.
func appendArray(dst []byte, v connector.Value) []byte {
	dst = append(dst, '{')
	for i, e := range v.AsArray() {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch e.Kind() {
		case connector.KindNull:
			dst = append(dst, "NULL"...)
		case connector.KindArray:
			dst = appendArray(dst, e)
		case connector.KindInt, connector.KindFloat, connector.KindBool:
			dst = appendScalar(dst, e)
		default:
			var s []byte
			if e.Kind() == connector.KindString {
				s = []byte(e.AsString())
			} else {
				s = connector.AppendJSON(nil, e)
			}
			dst = append(dst, '"')
			for _, c := range s {
				if c == '"' || c == '\\' {
					dst = append(dst, '\\')
				}
				dst = append(dst, c)
			}
			dst = append(dst, '"')
		}
	}
	return append(dst, '}')
}

// copyEscaped marks the bytes COPY's text format escapes.
var copyEscaped = [256]bool{'\\': true, '\n': true, '\r': true, '\t': true}

// appendCopy appends text escaped for COPY ... FROM STDIN (FORMAT text).
// Runs without an escape are appended whole (byte by byte, this was a
// tenth of the sink's CPU time).
func appendCopy[T string | []byte](dst []byte, text T) []byte {
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !copyEscaped[c] {
			continue
		}
		dst = append(dst, text[start:i]...)
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		}
		start = i + 1
	}
	return append(dst, text[start:]...)
}

// appendCopyValue appends v for a column of kind as a COPY text field,
// writing strings and numbers straight into dst (no intermediate text);
// scratch is for the other cases, which go through appendText.
func appendCopyValue(dst, scratch []byte, v connector.Value, kind colKind) (out, scratchOut []byte) {
	if kind == kindScalar {
		switch v.Kind() {
		case connector.KindNull:
			return append(dst, '\\', 'N'), scratch
		case connector.KindString:
			return appendCopy(dst, v.AsString()), scratch
		case connector.KindInt, connector.KindFloat, connector.KindBool:
			return appendScalar(dst, v), scratch // digits, NaN, true: nothing to escape
		}
	}
	scratch, null := appendText(scratch[:0], v, kind)
	if null {
		return append(dst, '\\', 'N'), scratch
	}
	return appendCopy(dst, scratch), scratch
}
