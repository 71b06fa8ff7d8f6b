package sqlutil

import (
	"strings"
	"unicode/utf8"

	"github.com/faucet-hq/faucet/connector"
)

// RecordHint names a record in an error message by its key fields (or,
// without a key, by its first field), so that a person can find it:
// `id=2345` or `id=7, region="eu"`. Long values are cut.
func RecordHint(r connector.Record, key []string) string {
	var parts []string
	for _, k := range key {
		if v, ok := r.Get(k); ok {
			parts = append(parts, k+"="+hintValue(v))
		}
	}
	if len(parts) == 0 && len(r.Fields) > 0 {
		parts = append(parts, r.Fields[0].Key+"="+hintValue(r.Fields[0].Value))
	}
	return strings.Join(parts, ", ")
}

func hintValue(v connector.Value) string {
	s := string(connector.AppendJSON(nil, v))
	if len(s) > 64 {
		cut := 61
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut-- // never half a character
		}
		s = s[:cut] + "..."
	}
	return s
}
