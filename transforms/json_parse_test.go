package transforms

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// parseError is connector.ParseJSON's message for s, which json_parse wraps.
func parseError(t *testing.T, s string) string {
	_, err := connector.ParseJSON([]byte(s))
	if err == nil {
		t.Fatalf("%s parses", s)
	}
	return err.Error()
}

func TestJSONParse(t *testing.T) {
	runApply(t, "json_parse", []applyCase{
		{name: "object keeps key order",
			cfg:  `{"fields": ["payload"]}`,
			in:   `{"id": 1, "payload": "{\"z\": 1, \"a\": [true, null, 2.5], \"m\": {\"k\": \"v\"}}"}`,
			want: `{"id":1,"payload":{"z":1,"a":[true,null,2.5],"m":{"k":"v"}}}`},
		{name: "scalars and several fields",
			cfg:  `{"fields": ["a", "b", "c"]}`,
			in:   `{"a": "42", "b": "\"s\"", "c": "null"}`,
			want: `{"a":42,"b":"s","c":null}`},
		{name: "non-strings and missing fields pass through",
			cfg:  `{"fields": ["a", "b", "zz"]}`,
			in:   `{"a": {"x": 1}, "b": 7}`,
			want: `{"a":{"x":1},"b":7}`},
		{name: "into keeps the source",
			cfg:  `{"fields": ["raw"], "into": "parsed"}`,
			in:   `{"raw": "[1,2]"}`,
			want: `{"raw":"[1,2]","parsed":[1,2]}`},
		{name: "on_error keep (default)",
			cfg:  `{"fields": ["a"]}`,
			in:   `{"a": "{oops"}`,
			want: `{"a":"{oops"}`},
		{name: "on_error null",
			cfg:  `{"fields": ["a"], "on_error": "null"}`,
			in:   `{"a": "{oops"}`,
			want: `{"a":null}`},
		{name: "on_error null with into",
			cfg:  `{"fields": ["a"], "on_error": "null", "into": "b"}`,
			in:   `{"a": "nope"}`,
			want: `{"a":"nope","b":null}`},
		{name: "on_error error",
			cfg: `{"fields": ["a"], "on_error": "error"}`,
			in:  `{"a": "{\"x\": }"}`,
			err: `json_parse: field "a" is not valid JSON: ` + parseError(t, `{"x": }`)},
		{name: "trailing garbage is an error",
			cfg: `{"fields": ["a"], "on_error": "error"}`,
			in:  `{"a": "1 2"}`,
			err: `json_parse: field "a" is not valid JSON: ` + parseError(t, `1 2`)},
	})
}

func TestJSONParseConfig(t *testing.T) {
	runConfig(t, "json_parse", []configCase{
		{"missing fields", `{}`, `t.fields: required key is missing`},
		{"empty fields", `{"fields": []}`, `t.fields: must list at least one field`},
		{"into with two fields", `{"fields": ["a", "b"], "into": "c"}`, `t.into: is only valid with exactly one field, got 2`},
		{"unknown on_error", `{"fields": ["a"], "on_error": "skip"}`, `t.on_error: must be one of keep, null, error, got "skip"`},
	})
}

func TestJSONParseConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "json_parse", `{"fields": ["p"]}`), `{"p":"{\"b\":1,\"a\":[2]}"}`, `{"p":{"b":1,"a":[2]}}`)
}
