package connector

import (
	"reflect"
	"strconv"
	"strings"
)

// SchemaOf returns the JSON Schema (draft 2020-12 vocabulary) of a config
// struct, read from the same tags Decode honours plus `doc:"..."` for the
// description. cfg is a pointer to the zero struct, or nil for "any object".
func SchemaOf(cfg any) map[string]any {
	if cfg == nil {
		return map[string]any{"type": "object"}
	}
	return schemaOfType(reflect.TypeOf(cfg), 0)
}

var byteType = reflect.TypeOf(Byte(0))
var valueType = reflect.TypeOf(Value{})
var secretType = reflect.TypeOf(Secret(""))

func schemaOfType(t reflect.Type, depth int) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if depth > 8 {
		return map[string]any{}
	}
	switch t {
	case byteType:
		return map[string]any{"oneOf": []any{
			map[string]any{"type": "string", "minLength": 1, "maxLength": 2},
			map[string]any{"type": "integer", "minimum": 0, "maximum": 255},
		}}
	case valueType:
		return map[string]any{}
	case secretType:
		return map[string]any{"type": "string", "writeOnly": true}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaOfType(t.Elem(), depth+1)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOfType(t.Elem(), depth+1)}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		props := map[string]any{}
		var required []string
		for _, f := range configFields(t) {
			name := jsonName(f)
			s := schemaOfType(f.Type, depth+1)
			if doc := f.Tag.Get("doc"); doc != "" {
				s["description"] = doc
			}
			if enum := f.Tag.Get("enum"); enum != "" {
				vals := []any{}
				for _, e := range strings.Split(enum, ",") {
					vals = append(vals, e)
				}
				// On a map or list the enum constrains each element.
				switch {
				case s["additionalProperties"] != nil:
					s["additionalProperties"] = map[string]any{"type": "string", "enum": vals}
				case s["items"] != nil:
					s["items"] = map[string]any{"type": "string", "enum": vals}
				default:
					s["enum"] = vals
				}
			}
			if def, ok := f.Tag.Lookup("default"); ok {
				s["default"] = typedDefault(f.Type, def)
			}
			if f.Tag.Get("required") == "true" {
				required = append(required, name)
			}
			props[name] = s
		}
		out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			out["required"] = required
		}
		return out
	}
	return map[string]any{}
}

func typedDefault(t reflect.Type, def string) any {
	if t == byteType {
		return def
	}
	switch t.Kind() {
	case reflect.Bool:
		b, _ := strconv.ParseBool(def)
		return b
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, _ := strconv.ParseInt(def, 10, 64)
		return n
	case reflect.Float32, reflect.Float64:
		n, _ := strconv.ParseFloat(def, 64)
		return n
	}
	return def
}
