package connector

import (
	"math"
	"strconv"
)

// AppendJSON appends the compact JSON encoding of v to dst. Objects keep
// their key order. Non-finite floats (NaN, ±Inf) encode as null, as JSON has
// no spelling for them. Integral floats keep a ".0" so that a float read back
// stays a float (the original implementation's serde_json does the same).
func AppendJSON(dst []byte, v Value) []byte {
	switch v.kind {
	case KindNull:
		return append(dst, "null"...)
	case KindBool:
		if v.n != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindInt:
		return strconv.AppendInt(dst, int64(v.n), 10)
	case KindFloat:
		return AppendJSONFloat(dst, math.Float64frombits(v.n))
	case kindBigInt:
		return append(dst, v.str()...)
	case KindString:
		return AppendJSONString(dst, v.str())
	case KindArray:
		dst = append(dst, '[')
		for i, e := range v.AsArray() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, e)
		}
		return append(dst, ']')
	case KindObject:
		return AppendRecordJSON(dst, v.AsObject())
	}
	return append(dst, "null"...)
}

// AppendRecordJSON appends r as a compact JSON object.
func AppendRecordJSON(dst []byte, r Record) []byte {
	dst = append(dst, '{')
	for i := range r.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, r.Fields[i].Key)
		dst = append(dst, ':')
		dst = AppendJSON(dst, r.Fields[i].Value)
	}
	return append(dst, '}')
}

// AppendJSONFloat appends f in the shortest form that reads back as the same
// float64, always with a fraction or exponent.
func AppendJSONFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		start := len(dst)
		dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
		// 1e-07 -> 1e-7, like encoding/json.
		n := len(dst)
		if n-start >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
		return dst
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}
