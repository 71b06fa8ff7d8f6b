package transforms

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestCastConversions(t *testing.T) {
	type conv struct {
		to, in, want string // in and want are JSON values; want "" = fails
	}
	convs := []conv{
		{"int", `"42"`, `42`},
		{"int", `" 42 "`, `42`},
		{"int", `"+7"`, `7`},
		{"int", `"-9223372036854775808"`, `-9223372036854775808`},
		{"int", `"9223372036854775807"`, `9223372036854775807`},
		{"int", `"9223372036854775808"`, ``},
		{"int", `"99999999999999999999999"`, ``},
		{"int", `42.0`, `42`},
		{"int", `-3.0`, `-3`},
		{"int", `4.2`, ``},
		{"int", `9300000000000000000.0`, ``},
		{"int", `"4.2"`, ``},
		{"int", `"42.0"`, ``},
		{"int", `""`, ``},
		{"int", `"-"`, ``},
		{"int", `"1_000"`, ``},
		{"int", `true`, `1`},
		{"int", `false`, `0`},
		{"int", `7`, `7`},
		{"int", `[1]`, ``},
		{"int", `{"a":1}`, ``},
		{"float", `"4.5"`, `4.5`},
		{"float", `" 1e3 "`, `1000.0`},
		{"float", `"-0.25"`, `-0.25`},
		{"float", `3`, `3.0`},
		{"float", `true`, `1.0`},
		{"float", `"abc"`, ``},
		{"float", `"NaN"`, ``},
		{"float", `"inf"`, ``},
		{"float", `"0x1p3"`, ``},
		{"float", `"1e999"`, ``},
		{"bool", `"true"`, `true`},
		{"bool", `" YES "`, `true`},
		{"bool", `"No"`, `false`},
		{"bool", `"1"`, `true`},
		{"bool", `"0"`, `false`},
		{"bool", `"FALSE"`, `false`},
		{"bool", `"y"`, `true`},
		{"bool", `"maybe"`, ``},
		{"bool", `1`, `true`},
		{"bool", `0`, `false`},
		{"bool", `2`, ``},
		{"bool", `1.0`, ``},
		{"bool", `false`, `false`},
		{"string", `42`, `"42"`},
		{"string", `1.5`, `"1.5"`},
		{"string", `2.0`, `"2.0"`},
		{"string", `true`, `"true"`},
		{"string", `"s"`, `"s"`},
		{"string", `[1]`, ``},
		{"timestamp", `"2024-03-05T10:11:12Z"`, `"2024-03-05T10:11:12Z"`},
		{"timestamp", `"2024-03-05T10:11:12+02:00"`, `"2024-03-05T08:11:12Z"`},
		{"timestamp", `"2024-03-05T10:11:12.5-01:00"`, `"2024-03-05T11:11:12.500Z"`},
		{"timestamp", `"2024-03-05T10:11:12.123456Z"`, `"2024-03-05T10:11:12.123456Z"`},
		{"timestamp", `"2024-03-05T10:11:12.000000001Z"`, `"2024-03-05T10:11:12.000000001Z"`},
		{"timestamp", `"2024-03-05"`, `"2024-03-05T00:00:00Z"`},
		{"timestamp", `"2024-03-05 10:11:12"`, `"2024-03-05T10:11:12Z"`},
		{"timestamp", `"2024-03-05T10:11:12"`, `"2024-03-05T10:11:12Z"`},
		{"timestamp", `"2024-03-05 10:11:12+01:00"`, `"2024-03-05T09:11:12Z"`},
		{"timestamp", `1700000000`, `"2023-11-14T22:13:20Z"`},
		{"timestamp", `0`, `"1970-01-01T00:00:00Z"`},
		{"timestamp", `-86400`, `"1969-12-31T00:00:00Z"`},
		{"timestamp", `99999999999999`, ``},
		{"timestamp", `"2024-13-01"`, ``},
		{"timestamp", `"yesterday"`, ``},
		{"timestamp", `1.5`, ``},
	}
	for _, c := range convs {
		t.Run(c.to+"/"+c.in, func(t *testing.T) {
			tr := mustBuild(t, "cast", fmt.Sprintf(`{"fields": {"v": %q}}`, c.to))
			r := record(t, `{"v": `+c.in+`}`)
			keep, err := tr.Apply(&r)
			if c.want == "" {
				want := fmt.Sprintf("cast: field \"v\": cannot convert %s to %s", c.in, c.to)
				if c.to == "timestamp" {
					want += " (want RFC 3339, YYYY-MM-DD, YYYY-MM-DD HH:MM:SS or integer epoch seconds)"
				}
				if err == nil || err.Error() != want {
					t.Fatalf("got %v (record %s), want error %q", err, connector.AppendRecordJSON(nil, r), want)
				}
				return
			}
			if err != nil || !keep {
				t.Fatalf("keep=%v err=%v", keep, err)
			}
			got, _ := r.Get("v")
			if s := got.String(); s != c.want {
				t.Fatalf("got %s, want %s", s, c.want)
			}
		})
	}
}

func TestCast(t *testing.T) {
	runApply(t, "cast", []applyCase{
		{name: "several fields, order kept",
			cfg:  `{"fields": {"qty": "int", "price": "float", "ok": "bool"}}`,
			in:   `{"id": "a", "price": "1.25", "qty": "3", "ok": "yes"}`,
			want: `{"id":"a","price":1.25,"qty":3,"ok":true}`},
		{name: "missing field is not added",
			cfg:  `{"fields": {"zz": "int"}}`,
			in:   `{"a": "1"}`,
			want: `{"a":"1"}`},
		{name: "null stays null",
			cfg:  `{"fields": {"a": "int", "b": "timestamp"}}`,
			in:   `{"a": null, "b": null}`,
			want: `{"a":null,"b":null}`},
		{name: "on_error error names field and value",
			cfg: `{"fields": {"amount": "float"}}`,
			in:  `{"amount": "abc"}`,
			err: `cast: field "amount": cannot convert "abc" to float`},
		{name: "on_error error stops at the first bad field in document order",
			cfg: `{"fields": {"b": "int", "a": "int"}}`,
			in:  `{"a": "x", "b": "y"}`,
			err: `cast: field "b": cannot convert "y" to int`},
		{name: "on_error null",
			cfg:  `{"fields": {"a": "int", "b": "int"}, "on_error": "null"}`,
			in:   `{"a": "x", "b": "2"}`,
			want: `{"a":null,"b":2}`},
		{name: "on_error skip",
			cfg:  `{"fields": {"a": "int", "b": "int"}, "on_error": "skip"}`,
			in:   `{"a": "x", "b": "2"}`,
			want: `{"a":"x","b":2}`},
		{name: "long values are cut in the message",
			cfg: `{"fields": {"a": "int"}}`,
			in:  `{"a": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`,
			err: `cast: field "a": cannot convert "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa… to int`},
	})
}

func TestCastConfig(t *testing.T) {
	runConfig(t, "cast", []configCase{
		{"missing fields", `{}`, `t.fields: required key is missing`},
		{"empty fields", `{"fields": {}}`, `t.fields: must name at least one field`},
		{"unknown type", `{"fields": {"a": "integer"}}`, `t.fields.a: must be one of int, float, bool, string, timestamp, got "integer"`},
		{"unknown on_error", `{"fields": {"a": "int"}, "on_error": "explode"}`, `t.on_error: must be one of error, null, skip, got "explode"`},
	})
}

func TestCastConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "cast", `{"fields": {"a": "int", "b": "float", "c": "timestamp"}}`),
		`{"a": "1", "b": "2", "c": "2024-01-02"}`, `{"a":1,"b":2.0,"c":"2024-01-02T00:00:00Z"}`)
}

func TestCastStringToIntDoesNotAllocate(t *testing.T) {
	tr := mustBuild(t, "cast", `{"fields": {"a": "int", "b": "float", "c": "bool"}, "on_error": "null"}`)
	base := record(t, `{"a": " 123 ", "b": "4.5", "c": "yes", "d": "x"}`)
	r := base.Clone()
	allocs := testing.AllocsPerRun(200, func() {
		copy(r.Fields, base.Fields)
		if _, err := tr.Apply(&r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("cast allocates %.1f times per record", allocs)
	}
}

// parseInt agrees with strconv.ParseInt on every input.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "+1", "42", "-9223372036854775808", "9223372036854775808", "18446744073709551616", "1_0", "", "-", "0x10", " 1", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseInt(s)
		want, err := strconv.ParseInt(s, 10, 64)
		if ok != (err == nil) || (ok && got != want) {
			t.Fatalf("parseInt(%q) = %d, %v; strconv says %d, %v", s, got, ok, want, err)
		}
	})
}
