package transforms

import (
	"sort"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "spell_symbols",
		Summary: "Spell out symbols in every key, recursively (% -> percent, # -> number, ...).",
		Config:  &spellSymbolsConfig{},
		New:     newSpellSymbols,
	})
}

type spellSymbolsConfig struct {
	Extra     map[string]string `json:"extra" doc:"More symbol -> word entries; an entry for a default symbol replaces it."`
	Separator string            `json:"separator" default:" " doc:"Put before and after each word, so that keys_case afterwards sees word boundaries."`
}

func (c *spellSymbolsConfig) Validate() error {
	if _, ok := c.Extra[""]; ok {
		return connector.ConfigErrorf("extra", "symbol must not be empty")
	}
	return nil
}

// defaultSymbols are the original's defaults: ASCII symbols that identifier
// rules reject. Symbols that are already safe (_ - .) or that keys_case drops
// anyway (brackets, colons, commas) are not in it.
var defaultSymbols = map[string]string{
	"%": "percent", "#": "number", "$": "dollar", "&": "and", "@": "at",
	"+": "plus", "*": "star", "=": "equals", "<": "lt", ">": "gt",
	"/": "slash", `\`: "backslash", "|": "pipe", "^": "caret", "~": "tilde",
}

type symbol struct{ from, to string }

type spellSymbols struct {
	m *keyMapper
}

func newSpellSymbols(cfg connector.Config) (connector.Transform, error) {
	var c spellSymbolsConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	merged := make(map[string]string, len(defaultSymbols)+len(c.Extra))
	for k, v := range defaultSymbols {
		merged[k] = v
	}
	for k, v := range c.Extra {
		merged[k] = v
	}
	// Longest first, so "<=" wins over "<" (two symbols of one length
	// cannot both match at one position).
	syms := make([]symbol, 0, len(merged))
	for k, v := range merged {
		syms = append(syms, symbol{k, v})
	}
	sort.Slice(syms, func(i, j int) bool {
		if len(syms[i].from) != len(syms[j].from) {
			return len(syms[i].from) > len(syms[j].from)
		}
		return syms[i].from < syms[j].from
	})
	sep := c.Separator
	fn := func(k string) string { return spell(k, syms, sep) }
	return &spellSymbols{m: newKeyMapper("spell_symbols", fn)}, nil
}

func (t *spellSymbols) Apply(r *connector.Record) (bool, error) {
	if err := t.m.apply(r); err != nil {
		return false, err
	}
	return true, nil
}

// spell replaces, left to right, the longest symbol at each position with
// sep+word+sep.
func spell(key string, syms []symbol, sep string) string {
	var b strings.Builder
	for i := 0; i < len(key); {
		matched := false
		for _, s := range syms {
			if strings.HasPrefix(key[i:], s.from) {
				b.WriteString(sep)
				b.WriteString(s.to)
				b.WriteString(sep)
				i += len(s.from)
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(key[i])
			i++
		}
	}
	return b.String()
}
