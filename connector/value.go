package connector

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of value a record field can hold.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindString
	KindArray
	KindObject
)

var kindNames = [...]string{"null", "bool", "int", "float", "string", "array", "object"}

// String names the kind as it appears in error messages ("int", "string", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one typed field value: null, bool, int64, float64, string, an
// array of values or a nested object. The zero Value is null. Values are
// 24 bytes and passed by value; scalars and strings never allocate, and an
// array or object points at its backing array without boxing it.
type Value struct {
	p    unsafe.Pointer // string bytes, or the backing array of []Value / []Field
	n    uint64         // length (string, array, object), or bool/int64/float64 bits
	kind Kind
}

// kindBigInt is an integer above int64 (up to uint64) read from JSON: it
// reports KindFloat but keeps its digits (p, n), so writers reproduce it.
const kindBigInt Kind = 128

// Null returns the null value.
func Null() Value { return Value{} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.n = 1
	}
	return v
}

// Int returns an integer value.
func Int(i int64) Value { return Value{kind: KindInt, n: uint64(i)} }

// Float returns a floating-point value.
func Float(f float64) Value { return Value{kind: KindFloat, n: math.Float64bits(f)} }

// String returns a string value.
func String(s string) Value {
	return Value{kind: KindString, p: unsafe.Pointer(unsafe.StringData(s)), n: uint64(len(s))}
}

// Array returns an array value holding vs (not copied).
func Array(vs []Value) Value {
	return Value{kind: KindArray, p: unsafe.Pointer(unsafe.SliceData(vs)), n: uint64(len(vs))}
}

// Object returns a nested-object value holding the record's fields (not copied).
func Object(r Record) Value {
	return Value{kind: KindObject, p: unsafe.Pointer(unsafe.SliceData(r.Fields)), n: uint64(len(r.Fields))}
}

// bigInt returns the exact-digits value of an integer beyond int64.
func bigInt(digits string) Value {
	v := String(digits)
	v.kind = kindBigInt
	return v
}

// str is the string of a KindString (or kindBigInt) value.
func (v Value) str() string { return unsafe.String((*byte)(v.p), int(v.n)) }

// Kind reports the value's type.
func (v Value) Kind() Kind {
	if v.kind == kindBigInt {
		return KindFloat
	}
	return v.kind
}

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsBool returns the boolean; false unless Kind is KindBool.
func (v Value) AsBool() bool { return v.kind == KindBool && v.n != 0 }

// AsInt returns the integer; 0 unless Kind is KindInt.
func (v Value) AsInt() int64 {
	if v.kind != KindInt {
		return 0
	}
	return int64(v.n)
}

// AsFloat returns the number as float64 for KindFloat and KindInt, else 0.
func (v Value) AsFloat() float64 {
	switch v.kind {
	case KindFloat:
		return math.Float64frombits(v.n)
	case KindInt:
		return float64(int64(v.n))
	case kindBigInt:
		f, _ := strconv.ParseFloat(v.str(), 64)
		return f
	}
	return 0
}

// AsString returns the string; "" unless Kind is KindString.
func (v Value) AsString() string {
	if v.kind != KindString {
		return ""
	}
	return v.str()
}

// AsArray returns the elements of an array value; nil for other kinds.
func (v Value) AsArray() []Value {
	if v.kind != KindArray || v.p == nil {
		return nil
	}
	return unsafe.Slice((*Value)(v.p), int(v.n))
}

// AsObject returns a nested object as a Record; the zero Record for other kinds.
// The returned record shares storage with v.
func (v Value) AsObject() Record {
	if v.kind != KindObject || v.p == nil {
		return Record{}
	}
	return Record{Fields: unsafe.Slice((*Field)(v.p), int(v.n))}
}

// ExactNumber returns the decimal text of an integer read from JSON above
// the int64 range but within uint64 (ids, counters; faucet-cli 1.x kept them
// as u64). Such a value is a KindFloat, which cannot hold it exactly, and
// keeps its text so that writers reproduce it digit for digit. ok is false
// for every other value.
func (v Value) ExactNumber() (text string, ok bool) {
	if v.kind == kindBigInt {
		return v.str(), true
	}
	return "", false
}

// Text renders a scalar the way a CSV cell or a string cast shows it: strings
// as themselves, numbers and booleans in their JSON spelling, null as "",
// arrays and objects as compact JSON.
func (v Value) Text() string {
	switch v.kind {
	case KindNull:
		return ""
	case KindString, kindBigInt:
		return v.str()
	case KindBool:
		if v.n != 0 {
			return "true"
		}
		return "false"
	case KindInt:
		return strconv.FormatInt(int64(v.n), 10)
	}
	return string(AppendJSON(nil, v))
}

// String implements fmt.Stringer with the value's JSON form.
func (v Value) String() string { return string(AppendJSON(nil, v)) }

// Equal reports deep equality. Int and Float compare by kind first: Int(1)
// and Float(1) are different values.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case KindNull:
		return true
	case KindString, kindBigInt:
		return v.str() == w.str()
	case KindFloat:
		return math.Float64frombits(v.n) == math.Float64frombits(w.n)
	case KindArray:
		a, b := v.AsArray(), w.AsArray()
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				return false
			}
		}
		return true
	case KindObject:
		return v.AsObject().Equal(w.AsObject())
	}
	return v.n == w.n
}

// Clone returns a deep copy whose nested arrays and objects share nothing
// with v. Strings are immutable and shared.
func (v Value) Clone() Value {
	switch v.kind {
	case KindArray:
		a := v.AsArray()
		out := make([]Value, len(a))
		for i := range a {
			out[i] = a[i].Clone()
		}
		return Array(out)
	case KindObject:
		return Object(v.AsObject().Clone())
	}
	return v
}

// Detach returns a deep copy that shares no memory at all with v, strings
// included: what to keep when v points into a page's reusable buffers.
func (v Value) Detach() Value {
	switch v.kind {
	case KindString:
		return String(strings.Clone(v.str()))
	case kindBigInt:
		return bigInt(strings.Clone(v.str()))
	case KindArray:
		a := v.AsArray()
		out := make([]Value, len(a))
		for i := range a {
			out[i] = a[i].Detach()
		}
		return Array(out)
	case KindObject:
		return Object(v.AsObject().Detach())
	}
	return v
}

// FromAny converts a value decoded by encoding/json or yaml.v3 (nil, bool,
// numbers, string, []any, map[string]any, or an ordered *yaml.Node tree turned
// into []KeyValue by the config loader) into a Value. Map keys are sorted for
// determinism since Go maps have no order; callers that need the document
// order pass []KeyValue instead.
func FromAny(x any) (Value, error) {
	switch t := x.(type) {
	case nil:
		return Null(), nil
	case Value:
		return t, nil
	case bool:
		return Bool(t), nil
	case int:
		return Int(int64(t)), nil
	case int64:
		return Int(t), nil
	case int32:
		return Int(int64(t)), nil
	case uint64:
		if t > math.MaxInt64 {
			return Float(float64(t)), nil
		}
		return Int(int64(t)), nil
	case float64:
		return Float(t), nil
	case float32:
		return Float(float64(t)), nil
	case string:
		return String(t), nil
	case []byte:
		return String(string(t)), nil
	case []any:
		out := make([]Value, len(t))
		for i, e := range t {
			v, err := FromAny(e)
			if err != nil {
				return Value{}, err
			}
			out[i] = v
		}
		return Array(out), nil
	case []KeyValue:
		r := Record{Fields: make([]Field, 0, len(t))}
		for _, kv := range t {
			v, err := FromAny(kv.Value)
			if err != nil {
				return Value{}, err
			}
			r.Fields = append(r.Fields, Field{Key: kv.Key, Value: v})
		}
		return Object(r), nil
	case map[string]any:
		keys := sortedKeys(t)
		r := Record{Fields: make([]Field, 0, len(t))}
		for _, k := range keys {
			v, err := FromAny(t[k])
			if err != nil {
				return Value{}, err
			}
			r.Fields = append(r.Fields, Field{Key: k, Value: v})
		}
		return Object(r), nil
	}
	return Value{}, fmt.Errorf("unsupported value type %T", x)
}

// KeyValue is one entry of an ordered map, as produced by the config loader.
type KeyValue struct {
	Key   string
	Value any
}

// Any converts v to plain Go values: nil, bool, int64, float64, string,
// []any and map[string]any (object key order is lost).
func (v Value) Any() any {
	switch v.kind {
	case KindNull:
		return nil
	case KindBool:
		return v.n != 0
	case KindInt:
		return int64(v.n)
	case KindFloat, kindBigInt:
		return v.AsFloat()
	case KindString:
		return v.str()
	case KindArray:
		a := v.AsArray()
		out := make([]any, len(a))
		for i := range a {
			out[i] = a[i].Any()
		}
		return out
	case KindObject:
		r := v.AsObject()
		out := make(map[string]any, len(r.Fields))
		for _, f := range r.Fields {
			out[f.Key] = f.Value.Any()
		}
		return out
	}
	return nil
}
