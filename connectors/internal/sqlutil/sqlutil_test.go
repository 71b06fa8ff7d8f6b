package sqlutil

import (
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func rec(kv ...any) connector.Record {
	var r connector.Record
	for i := 0; i < len(kv); i += 2 {
		v, _ := connector.FromAny(kv[i+1])
		r.Set(kv[i].(string), v)
	}
	return r
}

func TestPlanWrites(t *testing.T) {
	dm := &DeleteMarker{Field: "op", Values: []string{"d"}}
	recs := []connector.Record{
		rec("id", 1, "v", "a", "op", "u"),
		rec("id", 2, "v", "b", "op", "u"),
		rec("id", 1, "v", "a2", "op", "u"), // last write wins, first position kept? no: latest position
		rec("id", 2, "op", "d"),
		rec("id", 3, "v", "c"),
	}
	p, err := PlanWrites(recs, Upsert, []string{"id"}, dm)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Upserts {
		got = append(got, connector.Object(r).String())
	}
	if s := strings.Join(got, " "); s != `{"id":1,"v":"a2"} {"id":3,"v":"c"}` {
		t.Errorf("upserts %s", s)
	}
	if len(p.Deletes) != 1 || p.Deletes[0][0].AsInt() != 2 {
		t.Errorf("deletes %v", p.Deletes)
	}
	if recs[0].Len() != 3 {
		t.Error("the marker was stripped from the caller's record")
	}
	if _, err := PlanWrites([]connector.Record{rec("v", 1)}, Delete, []string{"id"}, nil); err == nil || !strings.Contains(err.Error(), `record 1 of the page (v=1): key column "id"`) {
		t.Errorf("missing key: %v", err)
	}
	// Composite keys: (1,"a") and (1,"b") are different keys.
	p, _ = PlanWrites([]connector.Record{rec("a", 1, "b", "a"), rec("a", 1, "b", "b")}, Upsert, []string{"a", "b"}, nil)
	if len(p.Upserts) != 2 {
		t.Errorf("composite keys merged: %d", len(p.Upserts))
	}
}

func TestCheckWriteSpec(t *testing.T) {
	for _, c := range []struct {
		mode string
		key  []string
		dm   *DeleteMarker
		ok   bool
	}{
		{Append, nil, nil, true},
		{Upsert, nil, nil, false},
		{Delete, []string{"id"}, nil, true},
		{Upsert, []string{"id", "id"}, nil, false},
		{Append, nil, &DeleteMarker{Field: "op", Values: []string{"d"}}, false},
		{Upsert, []string{"id"}, &DeleteMarker{Field: "op"}, false},
	} {
		if err := CheckWriteSpec(c.mode, c.key, c.dm); (err == nil) != c.ok {
			t.Errorf("%s %v %v: %v", c.mode, c.key, c.dm, err)
		}
	}
}

func TestInferColumns(t *testing.T) {
	cols := InferColumns([]connector.Record{
		rec("i", 1, "f", 1, "s", "x", "n", nil, "j", []any{1}),
		rec("i", 2, "f", 1.5, "s", 3, "b", true),
	})
	want := map[string]ColType{"i": TypeInt, "f": TypeFloat, "s": TypeText, "n": TypeText, "j": TypeJSON, "b": TypeBool}
	if len(cols) != len(want) || cols[0].Name != "i" || cols[5].Name != "b" {
		t.Fatalf("cols %v", cols)
	}
	for _, c := range cols {
		if want[c.Name] != c.Type {
			t.Errorf("%s: %v, want %v", c.Name, c.Type, want[c.Name])
		}
	}
}

func TestChunk(t *testing.T) {
	got := Chunk(10, 4, 12, 0) // 3 rows per statement
	if len(got) != 4 || got[3] != [2]int{9, 10} {
		t.Errorf("chunks %v", got)
	}
	if got := Chunk(10, 1, 100, 4); len(got) != 3 {
		t.Errorf("row cap: %v", got)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db?sslmode=disable": "postgres://u:***@h:5432/db?sslmode=disable",
		"postgres://h/db?password=secret&x=1":           "postgres://h/db?password=***&x=1",
		"root:secret@tcp(127.0.0.1:3306)/test":          "root:***@tcp(127.0.0.1:3306)/test",
		"host=h user=u password=secret dbname=d":        "host=h user=u password=*** dbname=d",
		"postgres://u@h/db":                             "postgres://u@h/db",
	} {
		if got := RedactURL(in); got != want || strings.Contains(got, "secret") {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMappingAndParams(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
		ok   bool
	}{
		{nil, "", true},
		{"auto_map", "", true},
		{map[string]any{"json": map[string]any{"column": "doc"}}, "doc", true},
		{map[string]any{"json": nil}, "data", true},
		{map[string]any{"xml": nil}, "", false},
		{map[string]any{"json": map[string]any{"col": "x"}}, "", false},
		{"magic", "", false},
	} {
		got, err := ParseMapping(c.in, "json")
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseMapping(%v) = %q, %v", c.in, got, err)
		}
	}
	args, err := ParamArgs([]any{nil, true, 3.0, 2.5, "s", []any{1.0}, map[string]any{"a": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	if args[2] != int64(3) || args[3] != 2.5 || args[5] != "[1]" || args[6] != `{"a":1}` {
		t.Errorf("args %#v", args)
	}
}
