package cli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/faucet-hq/faucet/connector"
)

// writeNodeJSON writes a YAML node tree as indented JSON.
func writeNodeJSON(w *bytes.Buffer, n *yaml.Node, indent string) error {
	for n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else {
			n = n.Content[0]
		}
	}
	inner := indent + "  "
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			w.WriteString("{}")
			return nil
		}
		w.WriteString("{\n")
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.WriteString(inner)
			writeJSONString(w, n.Content[i].Value)
			w.WriteString(": ")
			if err := writeNodeJSON(w, n.Content[i+1], inner); err != nil {
				return err
			}
			if i+2 < len(n.Content) {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			w.WriteString("[]")
			return nil
		}
		w.WriteString("[\n")
		for i, c := range n.Content {
			w.WriteString(inner)
			if err := writeNodeJSON(w, c, inner); err != nil {
				return err
			}
			if i+1 < len(n.Content) {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "]")
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			w.WriteString("null")
		case "!!bool", "!!int", "!!float":
			var x any
			if err := n.Decode(&x); err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
			data, err := json.Marshal(x)
			if err != nil {
				return fmt.Errorf("line %d: %v cannot be written as JSON: %w", n.Line, n.Value, err)
			}
			w.Write(data)
		default:
			writeJSONString(w, n.Value)
		}
	default:
		return fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return nil
}

func writeJSONString(w *bytes.Buffer, s string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	w.Truncate(w.Len() - 1) // Encode's newline
}

// datasetsJSON renders --json: {source, datasets: [...]}, the shape of
// faucet-cli 1.x (name, kind, schema, estimated_rows, config_patch) plus
// columns, primary_key and replication_key.
func datasetsJSON(kind string, ds []connector.Dataset) ([]byte, error) {
	list := make([]connector.Value, len(ds))
	for i, d := range ds {
		r := connector.NewRecord(9)
		r.Set("name", connector.String(d.Name))
		r.Set("kind", connector.String(d.Kind))
		props := connector.NewRecord(len(d.Columns))
		cols := make([]connector.Value, len(d.Columns))
		for j, c := range d.Columns {
			props.Set(c.Name, jsonSchemaOf(c))
			col := connector.NewRecord(4)
			col.Set("name", connector.String(c.Name))
			col.Set("type", connector.String(string(c.Type)))
			col.Set("db_type", connector.String(c.DBType))
			col.Set("nullable", connector.Bool(c.Nullable))
			cols[j] = connector.Object(col)
		}
		schema := connector.NewRecord(2)
		schema.Set("type", connector.String("object"))
		schema.Set("properties", connector.Object(props))
		r.Set("schema", connector.Object(schema))
		if d.EstimatedRows != nil {
			r.Set("estimated_rows", connector.Int(*d.EstimatedRows))
		}
		r.Set("config_patch", connector.Object(d.Patch))
		r.Set("columns", connector.Array(cols))
		pk := make([]connector.Value, len(d.PrimaryKey))
		for j, k := range d.PrimaryKey {
			pk[j] = connector.String(k)
		}
		r.Set("primary_key", connector.Array(pk))
		if d.ReplicationKey != "" {
			r.Set("replication_key", connector.String(d.ReplicationKey))
		} else {
			r.Set("replication_key", connector.Null())
		}
		list[i] = connector.Object(r)
	}
	out := connector.NewRecord(2)
	out.Set("source", connector.String(kind))
	out.Set("datasets", connector.Array(list))
	var b bytes.Buffer
	if err := json.Indent(&b, connector.AppendJSON(nil, connector.Object(out)), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// jsonSchemaOf is a column's JSON Schema fragment ({"type": ...}, with
// "null" added when nullable), as faucet-cli 1.x reported it.
func jsonSchemaOf(c connector.Column) connector.Value {
	typ := "string"
	switch c.Type {
	case connector.ColumnInteger:
		typ = "integer"
	case connector.ColumnNumber:
		typ = "number"
	case connector.ColumnBoolean:
		typ = "boolean"
	case connector.ColumnJSON:
		typ = "object"
	case connector.ColumnArray:
		typ = "array"
	}
	r := connector.NewRecord(2)
	if c.Nullable {
		r.Set("type", connector.Array([]connector.Value{connector.String(typ), connector.String("null")}))
	} else {
		r.Set("type", connector.String(typ))
	}
	switch c.Type {
	case connector.ColumnTimestamp:
		r.Set("format", connector.String("date-time"))
	case connector.ColumnDate:
		r.Set("format", connector.String("date"))
	}
	return connector.Object(r)
}
