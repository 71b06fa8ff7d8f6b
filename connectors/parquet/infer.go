package parquet

import (
	"fmt"
	"reflect"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/faucet-hq/faucet/connector"
)

// colType is the Parquet type the sink gives a column.
type colType uint8

const (
	colNone   colType = iota // only nulls seen so far
	colInt                   // INT64
	colFloat                 // DOUBLE
	colBool                  // BOOLEAN
	colString                // BYTE_ARRAY annotated STRING
	colJSON                  // BYTE_ARRAY annotated JSON: arrays and objects
)

var colTypeNames = [...]string{"null", "int64", "double", "boolean", "string", "json"}

func (t colType) String() string { return colTypeNames[t] }

func colTypeOf(k connector.Kind) colType {
	switch k {
	case connector.KindInt:
		return colInt
	case connector.KindFloat:
		return colFloat
	case connector.KindBool:
		return colBool
	case connector.KindString:
		return colString
	case connector.KindArray, connector.KindObject:
		return colJSON
	}
	return colNone
}

// sinkColumn is one column of the file the sink writes.
type sinkColumn struct {
	name string
	typ  colType
}

// inferColumns derives the file's columns from the first page: every key
// in first-seen order, typed by its non-null values (integers and floats
// together make a double; a column with only nulls becomes a string).
// Other mixes are an error naming the field.
func inferColumns(recs []connector.Record) ([]sinkColumn, error) {
	var cols []sinkColumn
	index := map[string]int{}
	for ri, r := range recs {
		for _, f := range r.Fields {
			i, ok := index[f.Key]
			if !ok {
				i = len(cols)
				index[f.Key] = i
				cols = append(cols, sinkColumn{name: f.Key})
			}
			t := colTypeOf(f.Value.Kind())
			switch c := &cols[i]; {
			case t == colNone || t == c.typ:
			case c.typ == colNone:
				c.typ = t
			case t == colFloat && c.typ == colInt || t == colInt && c.typ == colFloat:
				c.typ = colFloat
			default:
				return nil, fmt.Errorf("field %q is %s in record %d of the first page but %s before; the column needs one type", f.Key, f.Value.Kind(), ri+1, c.typ)
			}
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("the records of the first page have no fields; a Parquet file needs at least one column")
	}
	for i := range cols {
		if cols[i].typ == colNone {
			cols[i].typ = colString
		}
	}
	return cols, nil
}

// fileSchema is the Parquet schema of cols: every column optional, in
// the given order (parquet.Group would sort them by name).
func fileSchema(cols []sinkColumn) *pq.Schema {
	fields := make(orderedGroup, len(cols))
	for i, c := range cols {
		var n pq.Node
		switch c.typ {
		case colInt:
			n = pq.Leaf(pq.Int64Type)
		case colFloat:
			n = pq.Leaf(pq.DoubleType)
		case colBool:
			n = pq.Leaf(pq.BooleanType)
		case colJSON:
			n = pq.JSON()
		default:
			n = pq.String()
		}
		fields[i] = namedField{Node: pq.Optional(n), name: c.name}
	}
	return pq.NewSchema("faucet", fields)
}

// orderedGroup is a group node whose fields keep their order.
type orderedGroup []pq.Field

func (g orderedGroup) ID() int                     { return 0 }
func (g orderedGroup) String() string              { return pq.Group{}.String() }
func (g orderedGroup) Type() pq.Type               { return pq.Group{}.Type() }
func (g orderedGroup) Optional() bool              { return false }
func (g orderedGroup) Repeated() bool              { return false }
func (g orderedGroup) Required() bool              { return true }
func (g orderedGroup) Leaf() bool                  { return false }
func (g orderedGroup) Fields() []pq.Field          { return g }
func (g orderedGroup) Encoding() encoding.Encoding { return nil }
func (g orderedGroup) Compression() compress.Codec { return nil }
func (g orderedGroup) GoType() reflect.Type        { return reflect.TypeFor[map[string]any]() }

// namedField names a node inside an orderedGroup.
type namedField struct {
	pq.Node
	name string
}

func (f namedField) Name() string { return f.name }

// Value is only used to map Go structs onto a schema, which the sink
// never does.
func (f namedField) Value(base reflect.Value) reflect.Value { return reflect.Value{} }
