package connector

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSON(t *testing.T) {
	tests := []struct {
		in   string
		want string // compact re-encoding via AppendJSON
		kind Kind
	}{
		{`null`, `null`, KindNull},
		{` true `, `true`, KindBool},
		{`false`, `false`, KindBool},
		{`0`, `0`, KindInt},
		{`-0`, `0`, KindInt},
		{`42`, `42`, KindInt},
		{`-9223372036854775808`, `-9223372036854775808`, KindInt},
		{`9223372036854775807`, `9223372036854775807`, KindInt},
		{`9223372036854775808`, `9223372036854775808`, KindFloat},
		{`18446744073709551616`, `18446744073709552000.0`, KindFloat},
		{`1.5`, `1.5`, KindFloat},
		{`1.0`, `1.0`, KindFloat},
		{`-2.5e-3`, `-0.0025`, KindFloat},
		{`1E2`, `100.0`, KindFloat},
		{`""`, `""`, KindString},
		{`"héllo"`, `"héllo"`, KindString},
		{`"a\"b\\c\/d\b\f\n\r\t"`, `"a\"b\\c/d\b\f\n\r\t"`, KindString},
		{`"\u00e9\u20ac"`, `"é€"`, KindString},
		{`"\ud83d\ude00"`, `"😀"`, KindString},
		{`"\ud83d"`, `"�"`, KindString},
		{`"\ud83dx"`, `"�x"`, KindString},
		{`[]`, `[]`, KindArray},
		{`[1, "a", [true], {}]`, `[1,"a",[true],{}]`, KindArray},
		{`{}`, `{}`, KindObject},
		{`{"z":1,"a":2,"m":{"y":null,"b":[]}}`, `{"z":1,"a":2,"m":{"y":null,"b":[]}}`, KindObject},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`, KindObject},
		{"\t{ \"k\" :\n\"v\" }\r\n", `{"k":"v"}`, KindObject},
	}
	for _, tt := range tests {
		for _, mode := range []string{"copy", "zerocopy", "parser"} {
			t.Run(mode+"/"+tt.in, func(t *testing.T) {
				buf := []byte(tt.in)
				var v Value
				var err error
				switch mode {
				case "copy":
					v, err = ParseJSON(buf)
				case "zerocopy":
					v, err = ParseJSONZeroCopy(buf)
				default:
					var p JSONParser
					v, err = p.Parse(buf)
				}
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if v.Kind() != tt.kind {
					t.Errorf("kind %s, want %s", v.Kind(), tt.kind)
				}
				if got := string(AppendJSON(nil, v)); got != tt.want {
					t.Errorf("got %s, want %s", got, tt.want)
				}
			})
		}
	}
}

func TestParseJSONErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{``, 0, "unexpected end of input"},
		{`   `, 3, "unexpected end of input"},
		{`{"a":1,}`, 7, `unexpected '}' looking for an object key`},
		{`[1,]`, 3, `unexpected ']' looking for a value`},
		{`[1 2]`, 3, `unexpected '2' after array element`},
		{`{"a" 1}`, 5, `unexpected '1' after object key`},
		{`{"a":1 "b":2}`, 7, `unexpected '"' after object value`},
		{`{"a":1`, 6, "unexpected end of input in object"},
		{`"abc`, 4, "unexpected end of input in string"},
		{"\"a\tb\"", 2, `control character byte 0x09 in string`},
		{`"\x"`, 2, `invalid escape 'x' in string`},
		{`"\u12g4"`, 3, `invalid \u escape`},
		{`01`, 1, `unexpected '1' after top-level value`},
		{`1.`, 2, "invalid number: expected a digit after the decimal point"},
		{`1e+`, 3, "invalid number: expected a digit in the exponent"},
		{`-`, 1, "unexpected end of input in number"},
		{`-a`, 1, "invalid number: expected a digit, got 'a'"},
		{`tru`, 0, "invalid literal, expected true"},
		{`nul1`, 0, "invalid literal, expected null"},
		{`{} x`, 3, `unexpected 'x' after top-level value`},
		{`1e400`, 0, "number 1e400 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseJSON([]byte(tt.in))
			var se *JSONSyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want *JSONSyntaxError", err)
			}
			if se.Offset != tt.offset || se.Msg != tt.msg {
				t.Errorf("got offset %d %q, want %d %q", se.Offset, se.Msg, tt.offset, tt.msg)
			}
			want := "invalid JSON at byte " + strconv.Itoa(tt.offset) + ": " + tt.msg
			if err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
	if _, err := ParseJSON([]byte(`1e400`)); !errors.Is(err, strconv.ErrRange) {
		t.Errorf("1e400: %v should wrap strconv.ErrRange", err)
	}
	deep := strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1)
	if _, err := ParseJSON([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("deep nesting: %v", err)
	}
}

func TestParseJSONExactNumber(t *testing.T) {
	for _, tt := range []struct {
		in, text string
		ok       bool
	}{
		{"9223372036854775808", "9223372036854775808", true},
		{"18446744073709551615", "18446744073709551615", true},
		{"18446744073709551616", "", false}, // beyond uint64: a plain float
		{"-9223372036854775809", "", false},
		{"1.5", "", false},
		{"42", "", false},
	} {
		v, err := ParseJSON([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		text, ok := v.ExactNumber()
		if text != tt.text || ok != tt.ok {
			t.Errorf("%s: ExactNumber() = %q, %v; want %q, %v", tt.in, text, ok, tt.text, tt.ok)
		}
	}
	v, _ := ParseJSON([]byte("18446744073709551615"))
	if v.Kind() != KindFloat || v.AsFloat() != 18446744073709551615 {
		t.Errorf("kind %s, float %v", v.Kind(), v.AsFloat())
	}
}

func TestParseJSONCopyIsIndependent(t *testing.T) {
	buf := []byte(`{"k":"value","e":"a\nb"}`)
	v, err := ParseJSON(buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'X'
	}
	if got := string(AppendJSON(nil, v)); got != `{"k":"value","e":"a\nb"}` {
		t.Errorf("value changed with its input: %s", got)
	}
}

func TestJSONParserKeepsInput(t *testing.T) {
	in := `{"a":"x\"y","b":"\u00e9"}`
	buf := []byte(in)
	var p JSONParser
	v, err := p.Parse(buf)
	if err != nil {
		t.Fatal(err)
	}
	if string(buf) != in {
		t.Errorf("input modified: %s", buf)
	}
	// A later document with an error must not disturb earlier values.
	if _, err := p.Parse([]byte(`{"a":"\n`)); err == nil {
		t.Fatal("want error")
	}
	if got := string(AppendJSON(nil, v)); got != `{"a":"x\"y","b":"é"}` {
		t.Errorf("got %s", got)
	}
	// Fields are clipped: appending to one record cannot overwrite the next.
	v2, _ := p.Parse([]byte(`{"c":1}`))
	r := v.AsObject()
	r.Set("new", Int(1))
	if got := string(AppendJSON(nil, v2)); got != `{"c":1}` {
		t.Errorf("neighbour overwritten: %s", got)
	}
}

func TestParseRecord(t *testing.T) {
	var p JSONParser
	for _, tt := range []struct {
		in   string
		want string
		kind Kind
		err  string
	}{
		{` {"b":1,"a":[1]} `, `{"b":1,"a":[1]}`, KindObject, ""},
		{`[1]`, `{}`, KindArray, ""},
		{`"s"`, `{}`, KindString, ""},
		{`{"a":1} 2`, `{}`, KindObject, "invalid JSON at byte 8: unexpected '2' after top-level value"},
		{`{"a":`, `{}`, KindObject, "invalid JSON at byte 5: unexpected end of input"},
	} {
		rec, kind, err := p.ParseRecord([]byte(tt.in))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got := string(AppendRecordJSON(nil, rec)); got != tt.want || kind != tt.kind || msg != tt.err {
			t.Errorf("ParseRecord(%s) = %s, %v, %q; want %s, %v, %q", tt.in, got, kind, msg, tt.want, tt.kind, tt.err)
		}
	}
}

func TestStringStop(t *testing.T) {
	for _, s := range []string{"", "abc", "abcdefgh", "abcdefghi\"", "0123456789\\", "é\x01", "\xff\xfe\"", strings.Repeat("x", 17) + "\x1f"} {
		want := len(s)
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
				want = i
				break
			}
		}
		if got := stringStop([]byte(s)); got != want {
			t.Errorf("stringStop(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x\u00e9"]}`, `[1.5e3,-0,"\ud83d\ude00"]`, `"\"\\"`, `{"a":1,"a":2}`, `1e400`, `{"k":"\xff"}`, ` [ ] `, `{`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		v, err := ParseJSON(data)
		valid := json.Valid(data)
		if err != nil {
			if valid && !errors.Is(err, strconv.ErrRange) {
				t.Fatalf("ParseJSON rejected valid JSON %q: %v", data, err)
			}
			var se *JSONSyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		if !valid {
			t.Fatalf("ParseJSON accepted invalid JSON %q", data)
		}
		if !bytes.Equal(data, orig) {
			t.Fatal("ParseJSON modified its input")
		}
		// Same value as encoding/json (modulo key order and number kinds).
		var std any
		if err := json.Unmarshal(data, &std); err == nil {
			if !sameAsStd(v, std) {
				t.Fatalf("value %s differs from encoding/json %#v", v, std)
			}
		}
		enc := AppendJSON(nil, v)
		v2, err := ParseJSON(enc)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", enc, err)
		}
		if enc2 := AppendJSON(nil, v2); !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip: %s != %s", enc, enc2)
		}
		var p JSONParser
		v3, err := p.Parse(data)
		if err != nil || !v3.Equal(v) {
			t.Fatalf("JSONParser: %v %s vs %s", err, v3, v)
		}
		rec, kind, err := p.ParseRecord(data)
		if err != nil || kind != v.Kind() || (kind == KindObject && !Object(rec).Equal(v)) {
			t.Fatalf("ParseRecord: %v %v %v vs %s", err, kind, rec, v)
		}
		if !bytes.Equal(data, orig) {
			t.Fatal("JSONParser modified its input")
		}
		v4, err := ParseJSONZeroCopy(bytes.Clone(data))
		if err != nil || !v4.Equal(v) {
			t.Fatalf("ParseJSONZeroCopy: %v %s vs %s", err, v4, v)
		}
	})
}

// sameAsStd compares with encoding/json's reading (strings with invalid
// UTF-8 are replaced there, so only valid strings are compared).
func sameAsStd(v Value, x any) bool {
	switch t := x.(type) {
	case nil:
		return v.Kind() == KindNull
	case bool:
		return v.Kind() == KindBool && v.AsBool() == t
	case float64:
		if v.Kind() != KindInt && v.Kind() != KindFloat {
			return false
		}
		return v.AsFloat() == t || math.Abs(v.AsFloat()-t) <= 1e-9*math.Abs(t)
	case string:
		return v.Kind() == KindString && (v.AsString() == t || !utf8.ValidString(v.AsString()))
	case []any:
		a := v.AsArray()
		if v.Kind() != KindArray || len(a) != len(t) {
			return false
		}
		for i := range a {
			if !sameAsStd(a[i], t[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		r := v.AsObject()
		if v.Kind() != KindObject {
			return false
		}
		invalid := false
		for _, f := range r.Fields {
			if !utf8.ValidString(f.Key) {
				invalid = true
				continue
			}
			sv, ok := t[f.Key]
			if !ok || !sameAsStd(f.Value, sv) {
				return false
			}
		}
		return invalid || len(r.Fields) == len(t)
	}
	return false
}
