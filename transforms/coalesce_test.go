package transforms

import "testing"

func TestCoalesce(t *testing.T) {
	runApply(t, "coalesce", []applyCase{
		{name: "default fills null in place",
			cfg:  `{"field": "status", "default": "unknown"}`,
			in:   `{"status": null, "id": 1}`,
			want: `{"status":"unknown","id":1}`},
		{name: "default fills a missing field at the end",
			cfg:  `{"field": "status", "default": {"code": 0}}`,
			in:   `{"id": 1}`,
			want: `{"id":1,"status":{"code":0}}`},
		{name: "present value untouched",
			cfg:  `{"field": "status", "default": "unknown"}`,
			in:   `{"status": "ok"}`,
			want: `{"status":"ok"}`},
		{name: "empty string is a value by default",
			cfg:  `{"field": "status", "default": "unknown"}`,
			in:   `{"status": ""}`,
			want: `{"status":""}`},
		{name: "treat_empty_string_as_null",
			cfg:  `{"field": "status", "default": "unknown", "treat_empty_string_as_null": true}`,
			in:   `{"status": ""}`,
			want: `{"status":"unknown"}`},
		{name: "from takes the first non-null",
			cfg:  `{"field": "phone", "from": ["mobile", "home", "work"]}`,
			in:   `{"phone": null, "mobile": null, "home": "123", "work": "456"}`,
			want: `{"phone":"123","mobile":null,"home":"123","work":"456"}`},
		{name: "from skips empty strings when asked",
			cfg:  `{"field": "phone", "from": ["mobile", "home"], "treat_empty_string_as_null": true}`,
			in:   `{"mobile": "", "home": "123"}`,
			want: `{"mobile":"","home":"123","phone":"123"}`},
		{name: "from with nothing usable leaves the record",
			cfg:  `{"field": "phone", "from": ["mobile"]}`,
			in:   `{"id": 1}`,
			want: `{"id":1}`},
		{name: "from copies nested values",
			cfg:  `{"field": "a", "from": ["b"]}`,
			in:   `{"b": {"x": [1]}}`,
			want: `{"b":{"x":[1]},"a":{"x":[1]}}`},
	})
}

func TestCoalesceConfig(t *testing.T) {
	runConfig(t, "coalesce", []configCase{
		{"missing field", `{"default": 1}`, `t.field: required key is missing`},
		{"neither", `{"field": "a"}`, `t: set exactly one of default and from`},
		{"null default counts as unset", `{"field": "a", "default": null}`, `t: set exactly one of default and from`},
		{"both", `{"field": "a", "default": 1, "from": ["b"]}`, `t: set exactly one of default and from, not both`},
		{"empty from name", `{"field": "a", "from": [""]}`, `t.from: field name must not be empty`},
	})
}

func TestCoalesceConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "coalesce", `{"field": "a", "default": [1, {"b": 2}]}`), `{"a":null}`, `{"a":[1,{"b":2}]}`)
}
