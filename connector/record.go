package connector

import (
	"sort"
	"strings"
)

// Field is one key/value pair of a record.
type Field struct {
	Key   string
	Value Value
}

// Record is an insertion-ordered object: the unit that flows from source to
// sink. Key order is kept from source to sink. Fields is exported so hot paths
// (decoders, encoders) can work on it directly; keys are unique.
//
// Records produced by a source may share a backing array with the rest of
// their page (capacity is clipped to the record's own fields), so appending to
// one record never overwrites another.
type Record struct {
	Fields []Field
}

// NewRecord returns an empty record with room for n fields.
func NewRecord(n int) Record { return Record{Fields: make([]Field, 0, n)} }

// Len is the number of fields.
func (r Record) Len() int { return len(r.Fields) }

// Index returns the position of key, or -1.
func (r Record) Index(key string) int {
	for i := range r.Fields {
		if r.Fields[i].Key == key {
			return i
		}
	}
	return -1
}

// Get returns the value of key and whether it is present.
func (r Record) Get(key string) (Value, bool) {
	if i := r.Index(key); i >= 0 {
		return r.Fields[i].Value, true
	}
	return Value{}, false
}

// Set replaces the value of key, or appends key at the end.
func (r *Record) Set(key string, v Value) {
	if i := r.Index(key); i >= 0 {
		r.Fields[i].Value = v
		return
	}
	r.Fields = append(r.Fields, Field{Key: key, Value: v})
}

// Delete removes key, keeping the order of the others, and reports whether it
// was present.
func (r *Record) Delete(key string) bool {
	i := r.Index(key)
	if i < 0 {
		return false
	}
	copy(r.Fields[i:], r.Fields[i+1:])
	r.Fields[len(r.Fields)-1] = Field{}
	r.Fields = r.Fields[:len(r.Fields)-1]
	return true
}

// Keys returns the field names in order.
func (r Record) Keys() []string {
	out := make([]string, len(r.Fields))
	for i := range r.Fields {
		out[i] = r.Fields[i].Key
	}
	return out
}

// Clone returns a deep copy that shares no mutable storage with r.
func (r Record) Clone() Record {
	out := Record{Fields: make([]Field, len(r.Fields))}
	for i, f := range r.Fields {
		out.Fields[i] = Field{Key: f.Key, Value: f.Value.Clone()}
	}
	return out
}

// Detach returns a deep copy sharing no memory with r, key and string
// bytes included (see Page.Release).
func (r Record) Detach() Record {
	out := Record{Fields: make([]Field, len(r.Fields))}
	for i, f := range r.Fields {
		out.Fields[i] = Field{Key: strings.Clone(f.Key), Value: f.Value.Detach()}
	}
	return out
}

// Equal reports whether both records have the same keys in the same order
// with equal values.
func (r Record) Equal(o Record) bool {
	if len(r.Fields) != len(o.Fields) {
		return false
	}
	for i := range r.Fields {
		if r.Fields[i].Key != o.Fields[i].Key || !r.Fields[i].Value.Equal(o.Fields[i].Value) {
			return false
		}
	}
	return true
}

// Lookup follows a dotted path ("a.b.c") through nested objects; numeric
// segments index arrays. It reports whether the path exists.
func (r Record) Lookup(path []string) (Value, bool) {
	if len(path) == 0 {
		return Object(r), true
	}
	v, ok := r.Get(path[0])
	for _, seg := range path[1:] {
		if !ok {
			return Value{}, false
		}
		switch v.Kind() {
		case KindObject:
			v, ok = v.AsObject().Get(seg)
		case KindArray:
			i, err := atoiStrict(seg)
			a := v.AsArray()
			if err != nil || i < 0 || i >= len(a) {
				return Value{}, false
			}
			v = a[i]
		default:
			return Value{}, false
		}
	}
	return v, ok
}

func atoiStrict(s string) (int, error) {
	n := 0
	if s == "" {
		return 0, errNotIndex
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || n > 1<<30 {
			return 0, errNotIndex
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

type indexError struct{}

func (indexError) Error() string { return "not an array index" }

var errNotIndex error = indexError{}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
