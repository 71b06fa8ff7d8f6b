package parquet

import (
	"fmt"
	"strings"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// shape says how a schema node becomes a record value.
type shape uint8

const (
	shapeLeaf  shape = iota // a column value
	shapeGroup              // a nested object, fields in schema order
	shapeList               // a LIST-annotated group: an array of its elements
	shapeMap                // a MAP-annotated group: an object keyed by the key's text
)

// node is the read plan of one schema node: where its values are in the
// leaf columns and how to turn them into a connector.Value.
type node struct {
	name     string
	shape    shape
	optional bool
	repeated bool
	// unwrap marks the repeated group of a LIST whose only field is the
	// element: each repetition is that field's value, not a one-field object.
	unwrap bool
	def    int // definition level of a present value of this node
	rep    int // repetition level of this node
	// first and last+1 leaf column (index into the source's cursors).
	first, end int
	fields     []*node
	conv       leafConv // leaves only
}

// leafKind is how a leaf's physical value becomes a record value.
type leafKind uint8

const (
	leafBool leafKind = iota
	leafInt32
	leafUint32
	leafInt64
	leafUint64
	leafFloat
	leafDouble
	leafString    // UTF-8 text (STRING, ENUM, legacy UTF8)
	leafJSON      // JSON text, parsed into a nested value
	leafBinary    // bytes without a text annotation: base64
	leafDate      // days since 1970-01-01 as YYYY-MM-DD
	leafTimestamp // RFC 3339
	leafTime      // time of day
	leafDecimal   // exact decimal text
	leafInt96     // legacy Impala/Spark timestamp
	leafUUID
	leafFloat16
)

type leafConv struct {
	kind  leafKind
	phys  pq.Kind // the column's physical type; every value must have it
	unit  int64   // nanoseconds per stored unit (timestamps, times)
	utc   bool    // timestamp is adjusted to UTC (written with a Z)
	scale int32   // decimals
}

// planFields builds the read plan of the top-level fields named by columns
// (all of them when columns is empty), in file order. It returns the plan
// and the leaf column indexes (in the file) the plan reads, in order.
func planFields(schema *pq.Schema, columns []string) (plan []*node, leaves []int, err error) {
	// A damaged footer can hold a schema the library cannot describe.
	defer func() {
		if r := recover(); r != nil {
			plan, leaves, err = nil, nil, fmt.Errorf("corrupt schema: %v", r)
		}
	}()
	want := map[string]bool{}
	for _, c := range columns {
		want[c] = true
	}
	leaf := 0 // leaf index in the file
	seen := map[string]bool{}
	for _, f := range schema.Fields() {
		n := countLeaves(f)
		if len(want) == 0 || want[f.Name()] {
			seen[f.Name()] = true
			p, err := planNode(f, 0, 0, len(leaves))
			if err != nil {
				return nil, nil, err
			}
			plan = append(plan, p)
			for i := 0; i < n; i++ {
				leaves = append(leaves, leaf+i)
			}
		}
		leaf += n
	}
	for _, c := range columns {
		if !seen[c] {
			names := make([]string, 0, len(schema.Fields()))
			for _, f := range schema.Fields() {
				names = append(names, f.Name())
			}
			return nil, nil, fmt.Errorf("column %q is not in the file (columns: %s)", c, strings.Join(names, ", "))
		}
	}
	return plan, leaves, nil
}

func countLeaves(n pq.Node) int {
	if n.Leaf() {
		return 1
	}
	c := 0
	for _, f := range n.Fields() {
		c += countLeaves(f)
	}
	return c
}

// planNode plans field f whose parent has definition level def and
// repetition level rep; its leaves start at cursor index first.
func planNode(f pq.Field, def, rep, first int) (*node, error) {
	p := &node{name: f.Name(), optional: f.Optional(), repeated: f.Repeated(), first: first}
	if p.optional || p.repeated {
		def++
	}
	if p.repeated {
		rep++
	}
	p.def, p.rep = def, rep
	if f.Leaf() {
		conv, err := leafConvOf(f.Type())
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name(), err)
		}
		p.shape, p.conv, p.end = shapeLeaf, conv, first+1
		return p, nil
	}
	p.shape = shapeGroup
	lt := f.Type().LogicalType()
	ct := f.Type().ConvertedType()
	fields := f.Fields()
	switch {
	case (isList(lt, ct) || isMap(lt, ct)) && len(fields) == 1 && fields[0].Repeated():
		p.shape = shapeList
		if isMap(lt, ct) {
			p.shape = shapeMap
		}
	case ct != nil && *ct == deprecated.MapKeyValue && !p.repeated:
		p.shape = shapeMap
	}
	at := first
	for _, c := range fields {
		cp, err := planNode(c, def, rep, at)
		if err != nil {
			return nil, fmt.Errorf("%s.%w", f.Name(), err)
		}
		at = cp.end
		p.fields = append(p.fields, cp)
	}
	p.end = at
	if p.shape == shapeList {
		inner := p.fields[0]
		// Three-level lists wrap each element in a one-field group; the
		// legacy two-level form repeats the element itself. A one-field
		// group named "array" or "<list>_tuple" is a one-field struct
		// element (the format's backward-compatibility rules).
		if inner.shape == shapeGroup && len(inner.fields) == 1 && inner.name != "array" && inner.name != p.name+"_tuple" {
			inner.unwrap = true
		}
	}
	if p.shape == shapeMap && (len(p.fields) != 1 || len(p.fields[0].fields) != 2) {
		p.shape = shapeGroup // not the standard key_value layout: keep it as is
	}
	return p, nil
}

func isList(lt *format.LogicalType, ct *deprecated.ConvertedType) bool {
	if lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	return ct != nil && *ct == deprecated.List
}

func isMap(lt *format.LogicalType, ct *deprecated.ConvertedType) bool {
	if lt != nil {
		if _, ok := lt.Value.(*format.MapType); ok {
			return true
		}
	}
	return ct != nil && (*ct == deprecated.Map || *ct == deprecated.MapKeyValue)
}

// leafConvOf chooses the conversion of a leaf column from its physical and
// logical type (falling back on the legacy converted type), and checks
// that the two agree: a damaged or odd footer must not make the reader
// take an integer for a byte array.
func leafConvOf(t pq.Type) (leafConv, error) {
	c, err := pickConv(t)
	if err != nil {
		return c, err
	}
	c.phys = t.Kind()
	ok := false
	switch c.kind {
	case leafBool:
		ok = c.phys == pq.Boolean
	case leafInt32, leafUint32, leafDate:
		ok = c.phys == pq.Int32
	case leafInt64, leafUint64, leafTimestamp:
		ok = c.phys == pq.Int64
	case leafTime:
		ok = c.phys == pq.Int32 || c.phys == pq.Int64
	case leafFloat:
		ok = c.phys == pq.Float
	case leafDouble:
		ok = c.phys == pq.Double
	case leafInt96:
		ok = c.phys == pq.Int96
	case leafDecimal:
		ok = c.phys == pq.Int32 || c.phys == pq.Int64 || c.phys == pq.ByteArray || c.phys == pq.FixedLenByteArray
	default: // text, JSON, binary, UUID, FLOAT16
		ok = c.phys == pq.ByteArray || c.phys == pq.FixedLenByteArray
	}
	if !ok {
		return c, fmt.Errorf("logical type %s cannot annotate physical type %s", t, c.phys)
	}
	return c, nil
}

func pickConv(t pq.Type) (leafConv, error) {
	lt := t.LogicalType()
	if lt != nil && lt.Value != nil {
		switch l := lt.Value.(type) {
		case *format.StringType, *format.EnumType:
			return leafConv{kind: leafString}, nil
		case *format.JsonType:
			return leafConv{kind: leafJSON}, nil
		case *format.DateType:
			return leafConv{kind: leafDate}, nil
		case *format.TimestampType:
			if l.Unit.Value == nil {
				return leafConv{}, fmt.Errorf("timestamp without a time unit")
			}
			return leafConv{kind: leafTimestamp, unit: int64(l.Unit.Value.Duration()), utc: l.IsAdjustedToUTC}, nil
		case *format.TimeType:
			if l.Unit.Value == nil {
				return leafConv{}, fmt.Errorf("time without a time unit")
			}
			return leafConv{kind: leafTime, unit: int64(l.Unit.Value.Duration())}, nil
		case *format.DecimalType:
			return leafConv{kind: leafDecimal, scale: l.Scale}, nil
		case *format.UUIDType:
			return leafConv{kind: leafUUID}, nil
		case *format.Float16Type:
			return leafConv{kind: leafFloat16}, nil
		case *format.IntType:
			if !l.IsSigned {
				if t.Kind() == pq.Int64 {
					return leafConv{kind: leafUint64}, nil
				}
				return leafConv{kind: leafUint32}, nil
			}
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.UTF8, deprecated.Enum:
			return leafConv{kind: leafString}, nil
		case deprecated.Json:
			return leafConv{kind: leafJSON}, nil
		case deprecated.Date:
			return leafConv{kind: leafDate}, nil
		case deprecated.TimestampMillis:
			return leafConv{kind: leafTimestamp, unit: 1e6, utc: true}, nil
		case deprecated.TimestampMicros:
			return leafConv{kind: leafTimestamp, unit: 1e3, utc: true}, nil
		case deprecated.TimeMillis:
			return leafConv{kind: leafTime, unit: 1e6}, nil
		case deprecated.TimeMicros:
			return leafConv{kind: leafTime, unit: 1e3}, nil
		case deprecated.Uint32, deprecated.Uint16, deprecated.Uint8:
			return leafConv{kind: leafUint32}, nil
		case deprecated.Uint64:
			return leafConv{kind: leafUint64}, nil
		}
	}
	switch t.Kind() {
	case pq.Boolean:
		return leafConv{kind: leafBool}, nil
	case pq.Int32:
		return leafConv{kind: leafInt32}, nil
	case pq.Int64:
		return leafConv{kind: leafInt64}, nil
	case pq.Int96:
		return leafConv{kind: leafInt96}, nil
	case pq.Float:
		return leafConv{kind: leafFloat}, nil
	case pq.Double:
		return leafConv{kind: leafDouble}, nil
	case pq.ByteArray, pq.FixedLenByteArray:
		return leafConv{kind: leafBinary}, nil
	}
	return leafConv{}, fmt.Errorf("unsupported parquet type %s", t)
}
