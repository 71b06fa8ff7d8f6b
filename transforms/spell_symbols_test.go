package transforms

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestSpellSymbols(t *testing.T) {
	runApply(t, "spell_symbols", []applyCase{
		{name: "defaults with a space around each word",
			cfg:  `{}`,
			in:   `{"%sold": 1, "C#course": 2, "$amount": 3, "plain": 4, "a_b-c.d": 5}`,
			want: `{" percent sold":1,"C number course":2," dollar amount":3,"plain":4,"a_b-c.d":5}`},
		{name: "every default symbol",
			cfg:  `{"separator": ""}`,
			in:   `{"%#$&@+*=<>/\\|^~": 1}`,
			want: `{"percentnumberdollarandatplusstarequalsltgtslashbackslashpipecarettilde":1}`},
		{name: "extra overrides and adds",
			cfg:  `{"extra": {"#": "hash", "©": "copyright"}}`,
			in:   `{"#tag": 1, "©2026": 2}`,
			want: `{" hash tag":1," copyright 2026":2}`},
		{name: "longest match wins",
			cfg:  `{"extra": {"<=": "lte"}}`,
			in:   `{"a<=b": 1, "a<b": 2}`,
			want: `{"a lte b":1,"a lt b":2}`},
		{name: "non-ASCII text is kept",
			cfg:  `{"separator": "_"}`,
			in:   `{"größe%": 1}`,
			want: `{"größe_percent_":1}`},
		{name: "recursive",
			cfg:  `{"separator": "_"}`,
			in:   `{"outer&": {"inner%": [{"deep#": 1}]}}`,
			want: `{"outer_and_":{"inner_percent_":[{"deep_number_":1}]}}`},
		{name: "collision",
			cfg: `{"separator": ""}`,
			in:  `{"%": 1, "percent": 2}`,
			err: `spell_symbols: keys "%" and "percent" both become "percent"`},
	})
}

// The original's canonical chain: spell_symbols then keys_case.
func TestSpellSymbolsThenKeysCase(t *testing.T) {
	ss := mustBuild(t, "spell_symbols", `{}`)
	kc := mustBuild(t, "keys_case", `{"mode": "snake"}`)
	r := record(t, `{"% sold": 10, "C# courses": 20}`)
	for _, tr := range []connector.Transform{ss, kc} {
		if _, err := tr.Apply(&r); err != nil {
			t.Fatal(err)
		}
	}
	if got := recordJSON(r); got != `{"percent_sold":10,"c_number_courses":20}` {
		t.Fatalf("got %s", got)
	}
}

func TestSpellSymbolsConfig(t *testing.T) {
	runConfig(t, "spell_symbols", []configCase{
		{"empty symbol", `{"extra": {"": "x"}}`, `t.extra: symbol must not be empty`},
		{"not a map", `{"extra": ["%"]}`, `t.extra: expected an object, got array`},
	})
}

func TestSpellSymbolsConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "spell_symbols", `{"separator": "_"}`), `{"a%":1,"b":{"c#":2}}`, `{"a_percent_":1,"b":{"c_number_":2}}`)
}
