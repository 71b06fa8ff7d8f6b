package transforms

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestSet(t *testing.T) {
	runApply(t, "set", []applyCase{
		{name: "appends new keys in document order",
			cfg:  `{"values": {"z": 1, "a": "x", "m": null}}`,
			in:   `{"id": 1}`,
			want: `{"id":1,"z":1,"a":"x","m":null}`},
		{name: "replaces existing keys in place",
			cfg:  `{"values": {"id": 99, "new": true}}`,
			in:   `{"first": 0, "id": 1, "last": 2}`,
			want: `{"first":0,"id":99,"last":2,"new":true}`},
		{name: "any JSON value",
			cfg:  `{"values": {"tags": ["a", {"b": 1}], "meta": {"v": 2.5}}}`,
			in:   `{}`,
			want: `{"tags":["a",{"b":1}],"meta":{"v":2.5}}`},
	})
}

// A constant object set on two records must not be shared by them: a later
// in-place transform on one would otherwise change the other.
func TestSetCopiesCompositeConstants(t *testing.T) {
	tr := mustBuild(t, "set", `{"values": {"meta": {"old_k": 1}}}`)
	rk := mustBuild(t, "rename_keys", `{"pattern": "^old_", "replacement": "new_"}`)
	r1, r2 := record(t, `{}`), record(t, `{}`)
	for _, r := range []*connector.Record{&r1, &r2} {
		if _, err := tr.Apply(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rk.Apply(&r1); err != nil {
		t.Fatal(err)
	}
	if got := string(connector.AppendRecordJSON(nil, r2)); got != `{"meta":{"old_k":1}}` {
		t.Fatalf("second record changed through the first: %s", got)
	}
}

func TestSetConfig(t *testing.T) {
	runConfig(t, "set", []configCase{
		{"missing values", `{}`, `t.values: required key is missing`},
		{"empty values", `{"values": {}}`, `t.values: must set at least one field`},
		{"empty key", `{"values": {"": 1}}`, `t.values: field name must not be empty`},
		{"not an object", `{"values": [1]}`, `t.values: expected an object, got array`},
	})
}

func TestSetConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "set", `{"values": {"a": 9, "obj": {"k": [1]}}}`), `{"a":1,"b":2}`, `{"a":9,"b":2,"obj":{"k":[1]}}`)
}
