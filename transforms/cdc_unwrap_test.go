package transforms

import "testing"

func TestCDCUnwrap(t *testing.T) {
	runApply(t, "cdc_unwrap", []applyCase{
		{name: "insert",
			cfg:  `{}`,
			in:   `{"op": "c", "before": null, "after": {"id": 1, "name": "a"}, "ts": 5}`,
			want: `{"id":1,"name":"a","__op":"u"}`},
		{name: "update with long op names",
			cfg:  `{}`,
			in:   `{"op": "update", "before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "b"}}`,
			want: `{"id":1,"name":"b","__op":"u"}`},
		{name: "delete uses before",
			cfg:  `{}`,
			in:   `{"op": "d", "before": {"id": 1}, "after": null}`,
			want: `{"id":1,"__op":"d"}`},
		{name: "delete falls back to the document key",
			cfg:  `{}`,
			in:   `{"op": "delete", "document_key": {"_id": "x"}}`,
			want: `{"_id":"x","__op":"d"}`},
		{name: "delete without a key is dropped",
			cfg:  `{}`,
			in:   `{"op": "d", "before": null}`,
			drop: true},
		{name: "insert without an after image is dropped",
			cfg:  `{}`,
			in:   `{"op": "c", "after": "oops"}`,
			drop: true},
		{name: "ddl dropped",
			cfg:  `{}`,
			in:   `{"op": "ddl", "after": {"sql": "ALTER"}}`,
			drop: true},
		{name: "truncate dropped",
			cfg:  `{}`,
			in:   `{"op": "truncate"}`,
			drop: true},
		{name: "marker already present is replaced in place",
			cfg:  `{}`,
			in:   `{"op": "u", "after": {"__op": "x", "id": 1}}`,
			want: `{"__op":"u","id":1}`},
		{name: "custom fields and ops",
			cfg:  `{"op_field": "kind", "after_field": "new", "before_field": "old", "marker_field": "_del", "delete_ops": ["remove"], "drop_ops": []}`,
			in:   `{"kind": "remove", "old": {"id": 2}}`,
			want: `{"id":2,"_del":"d"}`},
		{name: "empty drop_ops keeps ddl events that have an image",
			cfg:  `{"drop_ops": []}`,
			in:   `{"op": "ddl", "after": {"id": 3}}`,
			want: `{"id":3,"__op":"u"}`},
	})
}

func TestCDCUnwrapConfig(t *testing.T) {
	runConfig(t, "cdc_unwrap", []configCase{
		{"empty op field", `{"op_field": ""}`, `t.op_field: must not be empty`},
		{"empty marker", `{"marker_field": ""}`, `t.marker_field: must not be empty`},
		{"ops not a list", `{"delete_ops": "d"}`, `t.delete_ops: expected a list, got string`},
	})
}

func TestCDCUnwrapConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "cdc_unwrap", `{}`), `{"op":"c","after":{"id":1}}`, `{"id":1,"__op":"u"}`)
}
