package transforms

import "testing"

func TestValueCase(t *testing.T) {
	runApply(t, "value_case", []applyCase{
		{name: "lower",
			cfg:  `{"fields": ["e"], "mode": "lower"}`,
			in:   `{"e": "Ada@Example.COM"}`,
			want: `{"e":"ada@example.com"}`},
		{name: "upper",
			cfg:  `{"fields": ["c"], "mode": "upper"}`,
			in:   `{"c": "de-ß"}`,
			want: `{"c":"DE-ß"}`},
		{name: "trim",
			cfg:  `{"fields": ["s"], "mode": "trim"}`,
			in:   `{"s": " \t padded \n"}`,
			want: `{"s":"padded"}`},
		{name: "title",
			cfg:  `{"fields": ["s"], "mode": "title"}`,
			in:   `{"s": "new YORK o'brien  mary-jane"}`,
			want: `{"s":"New York O'brien  Mary-jane"}`},
		{name: "capitalize",
			cfg:  `{"fields": ["s"], "mode": "capitalize"}`,
			in:   `{"s": "hELLO wORLD"}`,
			want: `{"s":"Hello world"}`},
		{name: "capitalize unicode and empty",
			cfg:  `{"fields": ["s", "e"], "mode": "capitalize"}`,
			in:   `{"s": "élan", "e": ""}`,
			want: `{"s":"Élan","e":""}`},
		{name: "non-strings and missing fields pass through",
			cfg:  `{"fields": ["n", "b", "o", "zz"], "mode": "upper"}`,
			in:   `{"n": 1, "b": null, "o": {"a": "x"}}`,
			want: `{"n":1,"b":null,"o":{"a":"x"}}`},
	})
}

func TestValueCaseConfig(t *testing.T) {
	runConfig(t, "value_case", []configCase{
		{"missing mode", `{"fields": ["a"]}`, `t.mode: required key is missing`},
		{"unknown mode", `{"fields": ["a"], "mode": "snake"}`, `t.mode: must be one of lower, upper, trim, title, capitalize, got "snake"`},
		{"empty fields", `{"fields": [], "mode": "lower"}`, `t.fields: must list at least one field`},
	})
}

func TestValueCaseConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "value_case", `{"fields": ["a"], "mode": "title"}`), `{"a":"hello there"}`, `{"a":"Hello There"}`)
}
