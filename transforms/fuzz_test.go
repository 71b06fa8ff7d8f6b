package transforms

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// FuzzTransforms applies the key-rewriting and value transforms to arbitrary
// JSON objects: none may panic, and every object of a result keeps unique
// keys (the record invariant collisions are errors to protect).
func FuzzTransforms(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`,
		`{"firstName": "x", "first_name": {"a b": [{"C#": 1}]}}`,
		`{"a__b": 1, "a": {"b": 2}}`,
		`{"n": "42", "f": " 1.5 ", "b": "yes", "t": "2024-01-02", "arr": [1, "2"], "o": {"%": null}}`,
		`{"": {"": ""}, "%": "%"}`,
	} {
		f.Add(s)
	}
	specs := [][2]string{
		{"rename_keys", `{"pattern": "[^a-z]", "replacement": ""}`},
		{"rename_keys", `{"pattern": "^(.)", "replacement": "${1}_"}`},
		{"keys_case", `{"mode": "snake"}`},
		{"keys_case", `{"mode": "camel"}`},
		{"spell_symbols", `{"separator": ""}`},
		{"flatten", `{"separator": "_"}`},
		{"cast", `{"fields": {"n": "int", "f": "float", "b": "bool", "t": "timestamp", "o": "string"}, "on_error": "null"}`},
		{"json_encode", `{"fields": ["o", "arr"]}`},
		{"json_parse", `{"fields": ["n", "f"]}`},
		{"value_case", `{"fields": ["n", "t"], "mode": "title"}`},
		{"filter", `{"expr": "n == \"42\" || len(arr ?? []) > 1"}`},
	}
	var trs []connector.Transform
	for _, s := range specs {
		trs = append(trs, mustBuild(f, s[0], s[1]))
	}
	f.Fuzz(func(t *testing.T, doc string) {
		v, err := connector.ParseJSON([]byte(doc))
		if err != nil || v.Kind() != connector.KindObject {
			return
		}
		for i, tr := range trs {
			r := v.AsObject().Clone()
			if _, err := tr.Apply(&r); err != nil {
				continue
			}
			if dup := duplicateKey(r.Fields); dup != "" {
				t.Fatalf("%s %s on %s: duplicate key %q in %s", specs[i][0], specs[i][1], doc, dup, recordJSON(r))
			}
		}
	})
}

func duplicateKey(fields []connector.Field) string {
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Key] {
			return f.Key
		}
		seen[f.Key] = true
		if d := duplicateInValue(f.Value); d != "" {
			return d
		}
	}
	return ""
}

func duplicateInValue(v connector.Value) string {
	switch v.Kind() {
	case connector.KindObject:
		return duplicateKey(v.AsObject().Fields)
	case connector.KindArray:
		for _, e := range v.AsArray() {
			if d := duplicateInValue(e); d != "" {
				return d
			}
		}
	}
	return ""
}
