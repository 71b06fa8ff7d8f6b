package transforms

import "testing"

func TestRenameField(t *testing.T) {
	runApply(t, "rename_field", []applyCase{
		{name: "keeps position",
			cfg:  `{"fields": {"b": "beta"}}`,
			in:   `{"a": 1, "b": 2, "c": 3}`,
			want: `{"a":1,"beta":2,"c":3}`},
		{name: "missing source is a no-op",
			cfg:  `{"fields": {"zz": "y"}}`,
			in:   `{"a": 1}`,
			want: `{"a":1}`},
		{name: "swap",
			cfg:  `{"fields": {"a": "b", "b": "a"}}`,
			in:   `{"a": 1, "b": 2}`,
			want: `{"b":1,"a":2}`},
		{name: "chain applies to the original record",
			cfg:  `{"fields": {"a": "b", "b": "c"}}`,
			in:   `{"a": 1, "b": 2}`,
			want: `{"b":1,"c":2}`},
		{name: "identity rename",
			cfg:  `{"fields": {"a": "a"}}`,
			in:   `{"a": 1}`,
			want: `{"a":1}`},
		{name: "target exists",
			cfg: `{"fields": {"a": "b"}}`,
			in:  `{"a": 1, "b": 2}`,
			err: `rename_field: cannot rename "a" to "b": the record already has "b"`},
		{name: "target freed by a rename that has no source",
			cfg:  `{"fields": {"a": "b", "b": "c", "c": "d"}}`,
			in:   `{"a": 1, "c": 3, "b": 2}`,
			want: `{"b":1,"d":3,"c":2}`},
	})
}

func TestRenameFieldConfig(t *testing.T) {
	runConfig(t, "rename_field", []configCase{
		{"missing fields", `{}`, `t.fields: required key is missing`},
		{"empty", `{"fields": {}}`, `t.fields: must rename at least one field`},
		{"empty target", `{"fields": {"a": ""}}`, `t.fields.a: new name must not be empty`},
		{"two sources, one target", `{"fields": {"a": "x", "b": "x"}}`, `t.fields: "a" and "b" both rename to "x"`},
		{"non-string target", `{"fields": {"a": 1}}`, `t.fields: expected a string, got number`},
	})
}

func TestRenameFieldConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "rename_field", `{"fields": {"a": "b", "b": "a"}}`), `{"a":1,"b":2}`, `{"b":1,"a":2}`)
}
