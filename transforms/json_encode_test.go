package transforms

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestJSONEncode(t *testing.T) {
	runApply(t, "json_encode", []applyCase{
		{name: "objects and arrays become JSON text",
			cfg:  `{"fields": ["address", "items"]}`,
			in:   `{"id": 1, "address": {"z": "1", "a": null}, "items": [1, "two", {"x": 3.0}]}`,
			want: `{"id":1,"address":"{\"z\":\"1\",\"a\":null}","items":"[1,\"two\",{\"x\":3.0}]"}`},
		{name: "scalars and missing fields unchanged",
			cfg:  `{"fields": ["a", "b", "zz"]}`,
			in:   `{"a": "x", "b": 2}`,
			want: `{"a":"x","b":2}`},
	})
}

func TestJSONEncodeConfig(t *testing.T) {
	runConfig(t, "json_encode", []configCase{
		{"empty fields", `{"fields": []}`, `t.fields: must list at least one field`},
	})
}

// json_encode then json_parse gives the record back.
func TestJSONEncodeParseRoundTrip(t *testing.T) {
	enc := mustBuild(t, "json_encode", `{"fields": ["o"]}`)
	dec := mustBuild(t, "json_parse", `{"fields": ["o"], "on_error": "error"}`)
	in := `{"o":{"b":[1,2.5,"x",null,{"c":true}],"a":"é\n"}}`
	r := record(t, in)
	for _, tr := range []connector.Transform{enc, dec} {
		if _, err := tr.Apply(&r); err != nil {
			t.Fatal(err)
		}
	}
	if got := recordJSON(r); got != in {
		t.Fatalf("round trip\n got: %s\nwant: %s", got, in)
	}
}

func TestJSONEncodeConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "json_encode", `{"fields": ["o"]}`), `{"o":{"a":[1]}}`, `{"o":"{\"a\":[1]}"}`)
}
