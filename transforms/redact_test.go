package transforms

import "testing"

func TestRedact(t *testing.T) {
	runApply(t, "redact", []applyCase{
		{name: "default mask",
			cfg:  `{"fields": ["ssn", "pw"]}`,
			in:   `{"id": 1, "ssn": "123", "pw": {"x": 1}}`,
			want: `{"id":1,"ssn":"***","pw":"***"}`},
		{name: "missing field not added",
			cfg:  `{"fields": ["ssn"]}`,
			in:   `{"id": 1}`,
			want: `{"id":1}`},
		{name: "custom mask of any type",
			cfg:  `{"fields": ["a", "b"], "mask": {"redacted": true}}`,
			in:   `{"a": 1, "b": null}`,
			want: `{"a":{"redacted":true},"b":{"redacted":true}}`},
		{name: "null mask",
			cfg:  `{"fields": ["a"], "mask": null}`,
			in:   `{"a": "secret"}`,
			want: `{"a":null}`},
	})
}

func TestRedactConfig(t *testing.T) {
	runConfig(t, "redact", []configCase{
		{"missing fields", `{"mask": "x"}`, `t.fields: required key is missing`},
		{"empty fields", `{"fields": []}`, `t.fields: must list at least one field`},
	})
}

func TestRedactConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "redact", `{"fields": ["a"], "mask": ["x"]}`), `{"a":1,"b":2}`, `{"a":["x"],"b":2}`)
}
