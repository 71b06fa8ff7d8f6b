package postgres

import (
	"bytes"
	"math"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// copyFieldRef is how a COPY field was written before appendCopyValue:
// the column's text form (appendText), then every byte escaped one at a
// time. appendCopyValue must write the same bytes.
func copyFieldRef(v connector.Value, kind colKind) []byte {
	text, null := appendText(nil, v, kind)
	if null {
		return []byte(`\N`)
	}
	var out []byte
	for _, c := range text {
		switch c {
		case '\\':
			out = append(out, '\\', '\\')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, c)
		}
	}
	return out
}

func TestAppendCopyValueMatchesText(t *testing.T) {
	big, err := connector.ParseJSON([]byte("18446744073709551615"))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := connector.ParseJSON([]byte(`{"a":"tab\there","b":[1,"x\\y"],"c":"line\nbreak"}`))
	if err != nil {
		t.Fatal(err)
	}
	values := []connector.Value{
		connector.Null(),
		connector.String(""),
		connector.String("plain"),
		connector.String("tab\there"),
		connector.String("a\\b\nc\rd\te"),
		connector.String("\\\\\n\n"),
		connector.String("trailing\\"),
		connector.String("héllo 🎉"),
		connector.String("AP8="), // base64 for a bytea column
		connector.String("not base64!"),
		connector.Int(0),
		connector.Int(-42),
		connector.Int(math.MaxInt64),
		connector.Float(1.5),
		connector.Float(-0.000001),
		connector.Float(1e300),
		connector.Float(math.NaN()),
		connector.Float(math.Inf(1)),
		connector.Float(math.Inf(-1)),
		big,
		connector.Bool(true),
		connector.Bool(false),
		obj,
		connector.Array([]connector.Value{connector.Int(1), connector.Null(), connector.String("a \"b\"\t")}),
	}
	for _, kind := range []colKind{kindScalar, kindJSON, kindBytea, kindArray} {
		var scratch []byte
		for _, v := range values {
			want := copyFieldRef(v, kind)
			prefix := []byte("x\t")
			var got []byte
			got, scratch = appendCopyValue(append([]byte(nil), prefix...), scratch, v, kind)
			if !bytes.Equal(got[len(prefix):], want) || !bytes.Equal(got[:len(prefix)], prefix) {
				t.Errorf("kind %d, value %s: got %q, want %q", kind, v, got[len(prefix):], want)
			}
		}
	}
}

func TestAppendCopyEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"":             "",
		"abc":          "abc",
		"\\":           `\\`,
		"a\tb\nc\rd\\": `a\tb\nc\rd\\`,
		"\n\n":         `\n\n`,
		"ü\t":          `ü\t`,
	} {
		if got := string(appendCopy([]byte("p"), in)); got != "p"+want {
			t.Errorf("appendCopy(%q) = %q, want %q", in, got, "p"+want)
		}
		if got := string(appendCopy([]byte("p"), []byte(in))); got != "p"+want {
			t.Errorf("appendCopy([]byte %q) = %q", in, got)
		}
	}
}
