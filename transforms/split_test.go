package transforms

import "testing"

func TestSplit(t *testing.T) {
	runApply(t, "split", []applyCase{
		{name: "in place",
			cfg:  `{"field": "tags", "delimiter": ","}`,
			in:   `{"tags": "a, b,,c", "x": 1}`,
			want: `{"tags":["a"," b","","c"],"x":1}`},
		{name: "trim keeps empty elements",
			cfg:  `{"field": "tags", "delimiter": ",", "trim": true}`,
			in:   `{"tags": " a , b ,, "}`,
			want: `{"tags":["a","b","",""]}`},
		{name: "multi-character delimiter and into",
			cfg:  `{"field": "path", "delimiter": " > ", "into": "parts"}`,
			in:   `{"path": "Income > Sales"}`,
			want: `{"path":"Income > Sales","parts":["Income","Sales"]}`},
		{name: "empty delimiter gives one element",
			cfg:  `{"field": "s", "delimiter": "", "trim": true}`,
			in:   `{"s": " abc "}`,
			want: `{"s":["abc"]}`},
		{name: "empty string gives one empty element",
			cfg:  `{"field": "s", "delimiter": ","}`,
			in:   `{"s": ""}`,
			want: `{"s":[""]}`},
		{name: "non-string and missing pass through",
			cfg:  `{"field": "s", "delimiter": ","}`,
			in:   `{"s": ["a"]}`,
			want: `{"s":["a"]}`},
	})
}

func TestSplitConfig(t *testing.T) {
	runConfig(t, "split", []configCase{
		{"missing field", `{"delimiter": ","}`, `t.field: required key is missing`},
		{"missing delimiter", `{"field": "a"}`, `t.delimiter: required key is missing`},
		{"empty field", `{"field": "", "delimiter": ","}`, `t.field: must not be empty`},
	})
}

func TestSplitConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "split", `{"field": "a", "delimiter": ";"}`), `{"a":"x;y"}`, `{"a":["x","y"]}`)
}
