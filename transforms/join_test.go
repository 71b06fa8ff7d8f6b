package transforms

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestJoin(t *testing.T) {
	runApply(t, "join", []applyCase{
		{name: "strings",
			cfg:  `{"field": "tags", "delimiter": ", "}`,
			in:   `{"tags": ["a", "b", "c"]}`,
			want: `{"tags":"a, b, c"}`},
		{name: "mixed elements",
			cfg:  `{"field": "v", "delimiter": "|"}`,
			in:   `{"v": ["s", 1, 2.5, 3.0, true, null, [1], {"k": "v"}]}`,
			want: `{"v":"s|1|2.5|3.0|true||[1]|{\"k\":\"v\"}"}`},
		{name: "into keeps the source",
			cfg:  `{"field": "v", "delimiter": "-", "into": "s"}`,
			in:   `{"v": [1, 2]}`,
			want: `{"v":[1,2],"s":"1-2"}`},
		{name: "empty array",
			cfg:  `{"field": "v", "delimiter": ","}`,
			in:   `{"v": []}`,
			want: `{"v":""}`},
		{name: "non-array and missing pass through",
			cfg:  `{"field": "v", "delimiter": ","}`,
			in:   `{"v": "a,b"}`,
			want: `{"v":"a,b"}`},
	})
}

func TestJoinConfig(t *testing.T) {
	runConfig(t, "join", []configCase{
		{"missing delimiter", `{"field": "a"}`, `t.delimiter: required key is missing`},
		{"missing field", `{"delimiter": ","}`, `t.field: required key is missing`},
	})
}

// split then join restores the string.
func TestSplitJoinRoundTrip(t *testing.T) {
	s := mustBuild(t, "split", `{"field": "a", "delimiter": "::"}`)
	j := mustBuild(t, "join", `{"field": "a", "delimiter": "::"}`)
	r := record(t, `{"a":"x::::y::"}`)
	for _, tr := range []connector.Transform{s, j} {
		if _, err := tr.Apply(&r); err != nil {
			t.Fatal(err)
		}
	}
	if got := recordJSON(r); got != `{"a":"x::::y::"}` {
		t.Fatalf("round trip gave %s", got)
	}
}

func TestJoinConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "join", `{"field": "a", "delimiter": ";"}`), `{"a":["x",1]}`, `{"a":"x;1"}`)
}
