package transforms

import "testing"

func TestSelect(t *testing.T) {
	runApply(t, "select", []applyCase{
		{name: "keeps listed fields in listed order",
			cfg:  `{"fields": ["c", "a"]}`,
			in:   `{"a": 1, "b": 2, "c": {"x": 3}, "d": 4}`,
			want: `{"c":{"x":3},"a":1}`},
		{name: "missing fields are ignored",
			cfg:  `{"fields": ["a", "zz"]}`,
			in:   `{"b": 2, "a": 1}`,
			want: `{"a":1}`},
		{name: "duplicate names select once",
			cfg:  `{"fields": ["a", "a", "b"]}`,
			in:   `{"b": 2, "a": 1}`,
			want: `{"a":1,"b":2}`},
		{name: "nothing matches",
			cfg:  `{"fields": ["x"]}`,
			in:   `{"a": 1}`,
			want: `{}`},
	})
}

func TestSelectConfig(t *testing.T) {
	runConfig(t, "select", []configCase{
		{"missing fields", `{}`, `t.fields: required key is missing`},
		{"empty list", `{"fields": []}`, `t.fields: must list at least one field`},
		{"empty name", `{"fields": ["a", ""]}`, `t.fields[1]: field name must not be empty`},
		{"not a list", `{"fields": "a"}`, `t.fields: expected a list, got string`},
	})
}

func TestSelectConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "select", `{"fields": ["b", "a"]}`), `{"a":1,"b":2,"c":3}`, `{"b":2,"a":1}`)
}
