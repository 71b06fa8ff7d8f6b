package transforms

import "testing"

func TestFlatten(t *testing.T) {
	runApply(t, "flatten", []applyCase{
		{name: "default separator, order kept",
			cfg:  `{}`,
			in:   `{"id": 1, "user": {"name": "a", "address": {"city": "b", "zip": "c"}}, "tail": true}`,
			want: `{"id":1,"user__name":"a","user__address__city":"b","user__address__zip":"c","tail":true}`},
		{name: "arrays untouched",
			cfg:  `{"separator": "."}`,
			in:   `{"a": {"list": [{"x": 1}], "n": null}}`,
			want: `{"a.list":[{"x":1}],"a.n":null}`},
		{name: "already flat",
			cfg:  `{}`,
			in:   `{"a": 1, "b": [2]}`,
			want: `{"a":1,"b":[2]}`},
		{name: "empty separator",
			cfg:  `{"separator": ""}`,
			in:   `{"a": {"b": 1}}`,
			want: `{"ab":1}`},
		{name: "empty nested object disappears",
			cfg:  `{}`,
			in:   `{"a": {}, "b": 1}`,
			want: `{"b":1}`},
		{name: "collision with a literal key",
			cfg: `{}`,
			in:  `{"a__b": 1, "a": {"b": 2}}`,
			err: `flatten: two fields flatten to the same key "a__b" (separator "__")`},
	})
}

func TestFlattenConfig(t *testing.T) {
	runConfig(t, "flatten", []configCase{
		{"wrong type", `{"separator": 1}`, `t.separator: expected a string, got number`},
		{"unknown key", `{"sep": "."}`, `t.sep: unknown key "sep"`},
	})
}

func TestFlattenConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "flatten", `{"separator": "_"}`), `{"a":{"b":{"c":1}},"d":2}`, `{"a_b_c":1,"d":2}`)
}
