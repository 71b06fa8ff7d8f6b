package config

import (
	"math"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
)

// node is the loader's working tree: a parsed document in which every value
// and every object key keeps its line and column, and objects keep their
// key order. Interpolation and params binding rewrite it in place; the
// structural decoder reads it; connector configs leave it as
// connector.Values.
type node struct {
	kind   connector.Kind
	scalar connector.Value // for null, bool, int, float and string
	items  []*node         // KindArray
	fields []field         // KindObject
	pos    Pos
}

type field struct {
	key    string
	keyPos Pos
	val    *node
}

func strNode(s string, pos Pos) *node {
	return &node{kind: connector.KindString, scalar: connector.String(s), pos: pos}
}

// get returns the field named key.
func (n *node) get(key string) (field, bool) {
	if n == nil || n.kind != connector.KindObject {
		return field{}, false
	}
	for _, f := range n.fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

func (n *node) isNull() bool { return n == nil || n.kind == connector.KindNull }

// value converts the subtree to a connector.Value (objects keep key order).
func (n *node) value() connector.Value {
	if n == nil {
		return connector.Null()
	}
	switch n.kind {
	case connector.KindArray:
		out := make([]connector.Value, len(n.items))
		for i, it := range n.items {
			out[i] = it.value()
		}
		return connector.Array(out)
	case connector.KindObject:
		r := connector.NewRecord(len(n.fields))
		for _, f := range n.fields {
			r.Fields = append(r.Fields, connector.Field{Key: f.key, Value: f.val.value()})
		}
		return connector.Object(r)
	}
	return n.scalar
}

// fromValue builds a subtree from a connector.Value, every node at pos (used
// when a typed param value replaces a scalar).
func fromValue(v connector.Value, pos Pos) *node {
	switch v.Kind() {
	case connector.KindArray:
		a := v.AsArray()
		n := &node{kind: connector.KindArray, pos: pos, items: make([]*node, len(a))}
		for i := range a {
			n.items[i] = fromValue(a[i], pos)
		}
		return n
	case connector.KindObject:
		r := v.AsObject()
		n := &node{kind: connector.KindObject, pos: pos}
		for _, f := range r.Fields {
			n.fields = append(n.fields, field{key: f.Key, keyPos: pos, val: fromValue(f.Value, pos)})
		}
		return n
	}
	return &node{kind: v.Kind(), scalar: v, pos: pos}
}

// describe renders a value for "expected X, got Y" messages.
func describe(n *node) string {
	if n == nil {
		return "nothing"
	}
	switch n.kind {
	case connector.KindNull:
		return "null"
	case connector.KindString:
		return strconv.Quote(n.scalar.AsString())
	case connector.KindArray:
		return "a list"
	case connector.KindObject:
		return "an object"
	case connector.KindFloat:
		f := n.scalar.AsFloat()
		if f == math.Trunc(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e15 {
			return strconv.FormatFloat(f, 'f', 1, 64)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return n.scalar.Text()
}

// posIndex maps a key path to where its key and its value are written.
type posIndex map[string]posEntry

type posEntry struct {
	key Pos // the key's position (zero for list items and the root)
	val Pos // the value's position
}

func (ix posIndex) build(n *node, path string, key Pos) {
	ix[path] = posEntry{key: key, val: n.pos}
	switch n.kind {
	case connector.KindArray:
		for i, it := range n.items {
			ix.build(it, indexPath(path, i), Pos{})
		}
	case connector.KindObject:
		for _, f := range n.fields {
			ix.build(f.val, joinPath(path, f.key), f.keyPos)
		}
	}
}

// at returns the best position for path: its value, else (for a key path
// that does not exist, such as a missing required key) the nearest existing
// ancestor.
func (ix posIndex) at(path string) Pos {
	for p := path; ; {
		if e, ok := ix[p]; ok {
			return e.val
		}
		if p == "" {
			return Pos{}
		}
		p = parentPath(p)
	}
}

// keyAt returns the position of the key at path (falling back to at).
func (ix posIndex) keyAt(path string) Pos {
	if e, ok := ix[path]; ok && e.key.Line > 0 {
		return e.key
	}
	return ix.at(path)
}

func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func indexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// parentPath drops the last segment of a key path ("a.b[2]" -> "a.b",
// "a.b" -> "a", "a" -> "").
func parentPath(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		switch p[i] {
		case '.':
			return p[:i]
		case '[':
			return p[:i]
		}
	}
	return ""
}
