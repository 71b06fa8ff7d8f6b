package transforms

import "testing"

func TestDrop(t *testing.T) {
	runApply(t, "drop", []applyCase{
		{name: "removes listed fields keeping order",
			cfg:  `{"fields": ["b", "d"]}`,
			in:   `{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}`,
			want: `{"a":1,"c":3,"e":5}`},
		{name: "missing fields are a no-op",
			cfg:  `{"fields": ["zz"]}`,
			in:   `{"a": 1}`,
			want: `{"a":1}`},
		{name: "top level only",
			cfg:  `{"fields": ["x"]}`,
			in:   `{"a": {"x": 1}}`,
			want: `{"a":{"x":1}}`},
		{name: "long list uses a set",
			cfg:  `{"fields": ["f1","f2","f3","f4","f5","f6","f7","f8","f9","f10"]}`,
			in:   `{"f1":1,"keep":0,"f5":5,"f10":10,"also":1}`,
			want: `{"keep":0,"also":1}`},
		{name: "everything",
			cfg:  `{"fields": ["a", "b"]}`,
			in:   `{"a": 1, "b": 2}`,
			want: `{}`},
	})
}

func TestDropConfig(t *testing.T) {
	runConfig(t, "drop", []configCase{
		{"missing fields", `{}`, `t.fields: required key is missing`},
		{"empty list", `{"fields": []}`, `t.fields: must list at least one field`},
	})
}

func TestDropConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "drop", `{"fields": ["b"]}`), `{"a":1,"b":2,"c":3}`, `{"a":1,"c":3}`)
}
