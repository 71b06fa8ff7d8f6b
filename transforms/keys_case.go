package transforms

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "keys_case",
		Summary: "Re-case every key, recursively (snake, camel, pascal, kebab, screaming_snake, dot).",
		Config:  &keysCaseConfig{},
		New:     newKeysCase,
	})
}

type keysCaseConfig struct {
	Mode string `json:"mode" required:"true" enum:"snake,camel,pascal,kebab,screaming_snake,dot" doc:"Output convention for every key."`
}

type keysCase struct {
	m *keyMapper
}

func newKeysCase(cfg connector.Config) (connector.Transform, error) {
	var c keysCaseConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	mode := c.Mode
	fn := func(k string) string { return recase(k, mode) }
	return &keysCase{m: newKeyMapper("keys_case", fn)}, nil
}

func (t *keysCase) Apply(r *connector.Record) (bool, error) {
	if err := t.m.apply(r); err != nil {
		return false, err
	}
	return true, nil
}

// recase splits key into words and joins them in the given mode. A key
// with no letters or digits ("!@#") has no words and is kept as it is
// rather than becoming empty.
func recase(key, mode string) string {
	words := splitWords(key)
	if len(words) == 0 {
		return key
	}
	var b strings.Builder
	b.Grow(len(key) + len(words))
	for i, w := range words {
		switch mode {
		case "camel":
			if i == 0 {
				b.WriteString(strings.ToLower(w))
			} else {
				b.WriteString(capitalizeWord(w))
			}
		case "pascal":
			b.WriteString(capitalizeWord(w))
		case "screaming_snake":
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteString(strings.ToUpper(w))
		default: // snake, kebab, dot
			if i > 0 {
				b.WriteByte(wordSeparator[mode])
			}
			b.WriteString(strings.ToLower(w))
		}
	}
	return b.String()
}

var wordSeparator = map[string]byte{"snake": '_', "kebab": '-', "dot": '.'}

// splitWords tokenizes a key the way the original does: words are runs of
// letters and digits; any other character separates them, and so does a
// lower-case letter followed by an upper-case one ("firstName" -> first,
// Name). A run of capitals stays one word ("XMLParser" -> XMLParser), and a
// digit does not end a lower-case run for this rule ("field1Name" is one
// word).
func splitWords(key string) []string {
	var words []string
	start := -1
	prevLower := false
	for i, r := range key {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if start >= 0 && prevLower && unicode.IsUpper(r) {
				words = append(words, key[start:i])
				start = i
			}
			if start < 0 {
				start = i
			}
			prevLower = unicode.IsLower(r)
			continue
		}
		if start >= 0 {
			words = append(words, key[start:i])
			start = -1
		}
		prevLower = false
	}
	if start >= 0 {
		words = append(words, key[start:])
	}
	return words
}

// capitalizeWord lower-cases w and then upper-cases its first character.
func capitalizeWord(w string) string {
	lower := strings.ToLower(w)
	r, size := utf8.DecodeRuneInString(lower)
	if size == 0 {
		return ""
	}
	return string(unicode.ToUpper(r)) + lower[size:]
}
