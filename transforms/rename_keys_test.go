package transforms

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestRenameKeys(t *testing.T) {
	runApply(t, "rename_keys", []applyCase{
		{name: "strip prefix keeps order",
			cfg:  `{"pattern": "^_sdc_", "replacement": ""}`,
			in:   `{"_sdc_id": 1, "name": "a", "_sdc_ts": 2}`,
			want: `{"id":1,"name":"a","ts":2}`},
		{name: "numbered groups",
			cfg:  `{"pattern": "([a-z])([A-Z])", "replacement": "${1}_${2}"}`,
			in:   `{"firstName": "a", "lastNameX": "b"}`,
			want: `{"first_Name":"a","last_Name_X":"b"}`},
		{name: "named group",
			cfg:  `{"pattern": "^(?P<word>\\w+)-id$", "replacement": "${word}_id"}`,
			in:   `{"user-id": 1, "other": 2}`,
			want: `{"user_id":1,"other":2}`},
		{name: "dollar dollar is a literal dollar",
			cfg:  `{"pattern": "^price$", "replacement": "price_$$"}`,
			in:   `{"price": 1}`,
			want: `{"price_$":1}`},
		{name: "recursive through objects and arrays",
			cfg:  `{"pattern": " ", "replacement": "_"}`,
			in:   `{"a b": {"c d": 1, "e": [{"f g": 2}, 3, [{"h i": 4}]]}, "j": "k l"}`,
			want: `{"a_b":{"c_d":1,"e":[{"f_g":2},3,[{"h_i":4}]]},"j":"k l"}`},
		{name: "no match leaves the record",
			cfg:  `{"pattern": "^zzz", "replacement": "y"}`,
			in:   `{"a": 1, "b": {"c": 2}}`,
			want: `{"a":1,"b":{"c":2}}`},
		{name: "two renamed keys collide",
			cfg: `{"pattern": "^[ab]_", "replacement": ""}`,
			in:  `{"a_x": 1, "b_x": 2}`,
			err: `rename_keys: keys "a_x" and "b_x" both become "x"`},
		{name: "renamed key collides with an unchanged one",
			cfg: `{"pattern": "^old_", "replacement": ""}`,
			in:  `{"x": 1, "old_x": 2}`,
			err: `rename_keys: keys "x" and "old_x" both become "x"`},
		{name: "collision inside a nested object",
			cfg: `{"pattern": "^old_", "replacement": ""}`,
			in:  `{"old_top": 1, "user": {"x": 1, "old_x": 2}}`,
			err: `rename_keys: keys "x" and "old_x" both become "x" (inside "user")`},
	})
}

func TestRenameKeysNestedCollisionLeavesRecordUntouched(t *testing.T) {
	tr := mustBuild(t, "rename_keys", `{"pattern": "^old_", "replacement": ""}`)
	in := `{"old_top":1,"user":{"old_a":1,"list":[{"x":1,"old_x":2}]}}`
	r := record(t, in)
	if _, err := tr.Apply(&r); err == nil {
		t.Fatal("want a collision error")
	}
	if got := string(connector.AppendRecordJSON(nil, r)); got != in {
		t.Fatalf("record changed on error:\n got: %s\nwant: %s", got, in)
	}
}

func TestRenameKeysConfig(t *testing.T) {
	runConfig(t, "rename_keys", []configCase{
		{"missing pattern", `{"replacement": "x"}`, `t.pattern: required key is missing`},
		{"missing replacement", `{"pattern": "x"}`, `t.replacement: required key is missing`},
		{"empty pattern", `{"pattern": "", "replacement": "x"}`, `t.pattern: must not be empty`},
		{"bad regex", `{"pattern": "(", "replacement": "x"}`, "t.pattern: invalid regular expression: error parsing regexp: missing closing ): `(`"},
		{"unknown key", `{"pattern": "x", "replacement": "y", "flags": "i"}`, `t.flags: unknown key "flags"`},
		{"wrong type", `{"pattern": 1, "replacement": "y"}`, `t.pattern: expected a string, got number`},
	})
}

func TestRenameKeysConcurrent(t *testing.T) {
	tr := mustBuild(t, "rename_keys", `{"pattern": "^src_", "replacement": "dst_"}`)
	runConcurrently(t, tr,
		`{"src_a": 1, "b": {"src_c": [{"src_d": 2}]}, "src_e": "x"}`,
		`{"dst_a":1,"b":{"dst_c":[{"dst_d":2}]},"dst_e":"x"}`)
}

func TestKeyCacheComputesEachKeyOnce(t *testing.T) {
	var calls atomic.Int64
	c := newKeyCache(func(k string) string { calls.Add(1); return "n_" + k })
	for round := 0; round < 50; round++ {
		for i := 0; i < 20; i++ {
			k := "k" + strconv.Itoa(i)
			if got, _ := c.get(k); got.out != "n_"+k {
				t.Fatalf("get(%q) = %q", k, got)
			}
		}
	}
	if n := calls.Load(); n != 20 {
		t.Fatalf("fn ran %d times for 20 keys", n)
	}
	if n := len(*c.read.Load()); n != 20 {
		t.Fatalf("read map has %d entries after warm-up, want 20", n)
	}
}

func TestKeyCacheIsBounded(t *testing.T) {
	c := newKeyCache(func(k string) string { return k + "!" })
	for i := 0; i < keyCacheMax+500; i++ {
		k := strconv.Itoa(i)
		if got, _ := c.get(k); got.out != k+"!" {
			t.Fatalf("get(%q) = %q", k, got.out)
		}
	}
	c.mu.Lock()
	n := len(c.dirty)
	c.mu.Unlock()
	if n != keyCacheMax {
		t.Fatalf("cache holds %d keys, want the bound %d", n, keyCacheMax)
	}
	// Past the bound, keys are still mapped correctly.
	if got, cached := c.get("overflow"); got.out != "overflow!" || cached {
		t.Fatalf("get past the bound = %q, cached %v", got.out, cached)
	}
}

// Layouts are remembered (shapes); records of other layouts, the same keys
// in another order, and layouts past the number of shape slots still map
// correctly.
func TestRenameKeysManyLayouts(t *testing.T) {
	tr := mustBuild(t, "rename_keys", `{"pattern": "^x_", "replacement": ""}`)
	for round := 0; round < 3; round++ {
		for n := 1; n <= 8; n++ {
			in, want := "{", "{"
			for i := 0; i < n; i++ {
				k := strconv.Itoa((i*7 + n) % 10)
				if i > 0 {
					in += ","
					want += ","
				}
				in += `"x_` + k + strconv.Itoa(i) + `":` + strconv.Itoa(i)
				want += `"` + k + strconv.Itoa(i) + `":` + strconv.Itoa(i)
			}
			r := record(t, in+"}")
			if _, err := tr.Apply(&r); err != nil {
				t.Fatal(err)
			}
			if got := recordJSON(r); got != want+"}" {
				t.Fatalf("layout %d round %d: got %s want %s}", n, round, got, want)
			}
		}
	}
	// Same keys, other order, after the first order was remembered.
	for _, c := range [][2]string{
		{`{"x_a":1,"b":2}`, `{"a":1,"b":2}`},
		{`{"b":2,"x_a":1}`, `{"b":2,"a":1}`},
		{`{"x_a":1,"b":2}`, `{"a":1,"b":2}`},
	} {
		r := record(t, c[0])
		if _, err := tr.Apply(&r); err != nil {
			t.Fatal(err)
		}
		if got := recordJSON(r); got != c[1] {
			t.Fatalf("%s: got %s want %s", c[0], got, c[1])
		}
	}
	// A collision is found even when the layout differs from a remembered
	// one only by a key.
	r := record(t, `{"x_a":1,"a":2}`)
	if _, err := tr.Apply(&r); err == nil || err.Error() != `rename_keys: keys "x_a" and "a" both become "a"` {
		t.Fatalf("got %v", err)
	}
}

// Wide records take the allocation and map paths of the collision check.
func TestRenameKeysWideRecords(t *testing.T) {
	tr := mustBuild(t, "rename_keys", `{"pattern": "^c(\\d+)$", "replacement": "col${1}"}`)
	for _, n := range []int{17, 70} {
		in, want := "{", "{"
		for i := 0; i < n; i++ {
			if i > 0 {
				in += ","
				want += ","
			}
			in += `"c` + strconv.Itoa(i) + `":1`
			want += `"col` + strconv.Itoa(i) + `":1`
		}
		r := record(t, in+"}")
		if _, err := tr.Apply(&r); err != nil {
			t.Fatal(err)
		}
		if got := recordJSON(r); got != want+"}" {
			t.Fatalf("%d fields: got %s", n, got)
		}
		// Now with a collision at the end.
		r = record(t, in+`,"col0":2}`)
		_, err := tr.Apply(&r)
		if err == nil || err.Error() != `rename_keys: keys "c0" and "col0" both become "col0"` {
			t.Fatalf("%d fields: got %v", n, err)
		}
	}
}
