package transforms

import (
	"os"
	"path/filepath"
	"testing"
)

const regions = `"values": [{"id": "1", "name": "North America", "code": "NA"}, {"id": 2, "name": "EMEA"}, {"id": "1", "name": "shadowed"}]`

func TestLookup(t *testing.T) {
	runApply(t, "lookup", []applyCase{
		{name: "match adds fields in document order",
			cfg:  `{` + regions + `, "on": {"record": "region_id", "ref": "id"}, "add": {"region_code": "code", "region": "name"}}`,
			in:   `{"order": 7, "region_id": "1"}`,
			want: `{"order":7,"region_id":"1","region_code":"NA","region":"North America"}`},
		{name: "keys compare as text: 2 matches \"2\", a missing column is null",
			cfg:  `{` + regions + `, "on": {"record": "region_id", "ref": "id"}, "add": {"region_code": "code", "region": "name"}}`,
			in:   `{"region_id": "2"}`,
			want: `{"region_id":"2","region_code":null,"region":"EMEA"}`},
		{name: "number key on the record",
			cfg:  `{` + regions + `, "on": {"record": "region_id", "ref": "id"}, "add": {"region": "name"}}`,
			in:   `{"region_id": 1}`,
			want: `{"region_id":1,"region":"North America"}`},
		{name: "miss writes nulls by default",
			cfg:  `{` + regions + `, "on": {"record": "region_id", "ref": "id"}, "add": {"region": "name"}}`,
			in:   `{"region_id": "9"}`,
			want: `{"region_id":"9","region":null}`},
		{name: "miss with keep",
			cfg:  `{` + regions + `, "on": {"record": "region_id", "ref": "id"}, "add": {"region": "name"}, "on_missing": "keep"}`,
			in:   `{"region_id": "9"}`,
			want: `{"region_id":"9"}`},
		{name: "miss with error",
			cfg: `{` + regions + `, "on": {"record": "region_id", "ref": "id"}, "add": {"region": "name"}, "on_missing": "error"}`,
			in:  `{"region_id": "9"}`,
			err: `lookup: no reference row for region_id = "9"`},
		{name: "missing match field with error",
			cfg: `{` + regions + `, "on": {"record": "region_id", "ref": "id"}, "add": {"region": "name"}, "on_missing": "error"}`,
			in:  `{"x": 1}`,
			err: `lookup: the record has no field "region_id" to match on`},
	})
}

func TestLookupJSONL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ref.jsonl")
	if err := os.WriteFile(path, []byte("{\"id\": \"a\", \"v\": {\"n\": 1}}\n\n  {\"id\": \"b\", \"v\": 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runApply(t, "lookup", []applyCase{
		{name: "from a file",
			cfg:  `{"jsonl": ` + quote(path) + `, "on": {"record": "k", "ref": "id"}, "add": {"out": "v"}}`,
			in:   `{"k": "a"}`,
			want: `{"k":"a","out":{"n":1}}`},
	})
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"id\": 1}\n[1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runConfig(t, "lookup", []configCase{
		{"row not an object", `{"jsonl": ` + quote(bad) + `, "on": {"record": "k", "ref": "id"}, "add": {"o": "v"}}`,
			`t.jsonl: ` + bad + `:2: a reference row must be an object, got array`},
		{"missing file", `{"jsonl": ` + quote(filepath.Join(dir, "nope.jsonl")) + `, "on": {"record": "k", "ref": "id"}, "add": {"o": "v"}}`,
			`t.jsonl: reading the reference rows: open ` + filepath.Join(dir, "nope.jsonl") + `: no such file or directory`},
	})
}

func TestLookupConfig(t *testing.T) {
	runConfig(t, "lookup", []configCase{
		{"no reference", `{"on": {"record": "a", "ref": "b"}, "add": {"x": "y"}}`, `t: set values or jsonl (the reference rows)`},
		{"both references", `{"values": [], "jsonl": "f", "on": {"record": "a", "ref": "b"}, "add": {"x": "y"}}`, `t: set exactly one of values and jsonl, not both`},
		{"missing on", `{"values": [], "add": {"x": "y"}}`, `t.on: required key is missing`},
		{"empty on.ref", `{"values": [], "on": {"record": "a"}, "add": {"x": "y"}}`, `t.on.ref: must name the reference rows' match field`},
		{"unknown key in on", `{"values": [], "on": {"record": "a", "ref": "b", "x": 1}, "add": {"x": "y"}}`, `t.on.x: unknown key "x"`},
		{"empty add", `{"values": [], "on": {"record": "a", "ref": "b"}, "add": {}}`, `t.add: must name at least one field to add`},
		{"row not an object", `{"values": [1], "on": {"record": "a", "ref": "b"}, "add": {"x": "y"}}`, `t.values[0]: must be an object, got int`},
		{"bad on_missing", `{"values": [], "on": {"record": "a", "ref": "b"}, "add": {"x": "y"}, "on_missing": "drop"}`, `t.on_missing: must be one of null, keep, error, got "drop"`},
	})
}

func TestLookupConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "lookup", `{"values": [{"id": 1, "o": {"a": [1]}}], "on": {"record": "k", "ref": "id"}, "add": {"o": "o"}}`),
		`{"k":1}`, `{"k":1,"o":{"a":[1]}}`)
}
