package sqlutil

import (
	"encoding/base64"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// ColType is a column's inferred base type.
type ColType uint8

// Base types, in widening order for numbers (Int widens to Float); any
// other mix becomes Text.
const (
	TypeUnknown ColType = iota // only nulls seen
	TypeBool
	TypeInt
	TypeFloat
	TypeText
	TypeJSON
)

// Column is a column name and its inferred type.
type Column struct {
	Name string
	Type ColType
}

// InferColumns returns the columns of recs in first-seen key order with
// the type that holds every value seen: ints and floats widen to float,
// other mixes become text, nested values JSON; a column that was always
// null is text, and so is one holding an integer above int64 (exact
// digits, which a float column would round).
func InferColumns(recs []connector.Record) []Column {
	var cols []Column
	at := map[string]int{}
	for _, r := range recs {
		for _, f := range r.Fields {
			i, ok := at[f.Key]
			if !ok {
				i = len(cols)
				at[f.Key] = i
				cols = append(cols, Column{Name: f.Key})
			}
			cols[i].Type = Widen(cols[i].Type, TypeOf(f.Value))
		}
	}
	for i := range cols {
		if cols[i].Type == TypeUnknown {
			cols[i].Type = TypeText
		}
	}
	return cols
}

// TypeOf is the base type of one value.
func TypeOf(v connector.Value) ColType {
	switch v.Kind() {
	case connector.KindBool:
		return TypeBool
	case connector.KindInt:
		return TypeInt
	case connector.KindFloat:
		if _, exact := v.ExactNumber(); exact {
			return TypeText // an integer above int64: a float column would round it
		}
		return TypeFloat
	case connector.KindString:
		return TypeText
	case connector.KindArray, connector.KindObject:
		return TypeJSON
	}
	return TypeUnknown
}

// Widen returns the type that holds values of both a and b.
func Widen(a, b ColType) ColType {
	switch {
	case a == b || b == TypeUnknown:
		return a
	case a == TypeUnknown:
		return b
	case (a == TypeInt && b == TypeFloat) || (a == TypeFloat && b == TypeInt):
		return TypeFloat
	}
	return TypeText
}

// Arg converts a value to a driver argument for a column of type t:
// scalars natively, nested values (and any value bound to a JSON column)
// as compact JSON text, null as nil. A bool bound to an integer column is
// 0 or 1.
func Arg(v connector.Value, jsonCol bool) any {
	if jsonCol && !v.IsNull() {
		return string(connector.AppendJSON(nil, v))
	}
	switch v.Kind() {
	case connector.KindNull:
		return nil
	case connector.KindBool:
		return v.AsBool()
	case connector.KindInt:
		return v.AsInt()
	case connector.KindFloat:
		if t, ok := v.ExactNumber(); ok {
			return t
		}
		return v.AsFloat()
	case connector.KindString:
		return v.AsString()
	}
	return string(connector.AppendJSON(nil, v))
}

// Bytes renders a binary column value the way faucet values carry it:
// base64 (standard encoding) text.
func Bytes(b []byte) connector.Value {
	return connector.String(base64.StdEncoding.EncodeToString(b))
}

// QuoteIdent quotes an identifier with q (`"` or "`"), doubling q inside.
func QuoteIdent(name string, q byte) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteByte(q)
	for i := 0; i < len(name); i++ {
		if name[i] == q {
			b.WriteByte(q)
		}
		b.WriteByte(name[i])
	}
	b.WriteByte(q)
	return b.String()
}

// QuoteQualified quotes "schema"."table" (schema may be empty).
func QuoteQualified(schema, table string, q byte) string {
	if schema == "" {
		return QuoteIdent(table, q)
	}
	return QuoteIdent(schema, q) + "." + QuoteIdent(table, q)
}

// Chunk splits n rows of cols columns each into runs that stay under
// maxParams bind parameters (and under maxRows rows when maxRows > 0).
func Chunk(n, cols, maxParams, maxRows int) [][2]int {
	per := maxParams / max(cols, 1)
	if per < 1 {
		per = 1
	}
	if maxRows > 0 && per > maxRows {
		per = maxRows
	}
	var out [][2]int
	for i := 0; i < n; i += per {
		out = append(out, [2]int{i, min(i+per, n)})
	}
	return out
}
