package sqlutil

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// ParseMapping reads a column_mapping option: "auto_map" (or nil, the
// default) maps record fields to columns of the same name and returns "";
// {<jsonKind>: {column: NAME}} stores each record as JSON in one column
// and returns NAME (default "data"). jsonKinds are the accepted spellings
// of the object form ("json", and "jsonb" for postgres).
func ParseMapping(v any, jsonKinds ...string) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		if t == "auto_map" {
			return "", nil
		}
		return "", connector.ConfigErrorf("column_mapping", "must be auto_map or {%s: {column: NAME}}, got %q", jsonKinds[0], t)
	case map[string]any:
		if len(t) != 1 {
			return "", connector.ConfigErrorf("column_mapping", "must have exactly one key (%s)", strings.Join(jsonKinds, " or "))
		}
		for k, inner := range t {
			ok := false
			for _, j := range jsonKinds {
				ok = ok || k == j
			}
			if !ok {
				return "", connector.ConfigErrorf("column_mapping."+k, "unknown mapping (valid: auto_map, %s)", strings.Join(jsonKinds, ", "))
			}
			if inner == nil {
				return "data", nil
			}
			m, isMap := inner.(map[string]any)
			if !isMap {
				return "", connector.ConfigErrorf("column_mapping."+k, "must be an object {column: NAME}")
			}
			col := "data"
			for ik, iv := range m {
				if ik != "column" {
					return "", connector.ConfigErrorf("column_mapping."+k+"."+ik, "unknown key %q", ik)
				}
				s, isStr := iv.(string)
				if !isStr || s == "" {
					return "", connector.ConfigErrorf("column_mapping."+k+".column", "must be a non-empty string")
				}
				col = s
			}
			return col, nil
		}
	}
	return "", connector.ConfigErrorf("column_mapping", "must be auto_map or an object, got %s", fmt.Sprintf("%T", v))
}

// ParamArgs converts positional query params from a config (as decoded
// from JSON: nil, bool, float64, string, lists, objects) to driver
// arguments: integral numbers as int64, lists and objects as JSON text.
func ParamArgs(params []any) ([]any, error) {
	out := make([]any, len(params))
	for i, p := range params {
		switch t := p.(type) {
		case nil, bool, string:
			out[i] = t
		case float64:
			if t == float64(int64(t)) && t >= -(1<<53) && t <= 1<<53 {
				out[i] = int64(t)
			} else {
				out[i] = t
			}
		default:
			b, err := json.Marshal(t)
			if err != nil {
				return nil, connector.ConfigErrorf(fmt.Sprintf("params[%d]", i), "%v", err)
			}
			out[i] = string(b)
		}
	}
	return out, nil
}
