package transforms

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "value_case",
		Summary: "Lower-case, upper-case, trim, title-case or capitalize string fields.",
		Config:  &valueCaseConfig{},
		New:     newValueCase,
	})
}

type valueCaseConfig struct {
	Fields []string `json:"fields" required:"true" doc:"Top-level fields; only string values are changed."`
	Mode   string   `json:"mode" required:"true" enum:"lower,upper,trim,title,capitalize" doc:"lower, upper, trim (surrounding white space), title (first letter of each white-space separated word) or capitalize (first letter of the string)."`
}

func (c *valueCaseConfig) Validate() error { return checkFields("fields", c.Fields) }

type valueCase struct {
	fields []string
	fn     func(string) string
}

func newValueCase(cfg connector.Config) (connector.Transform, error) {
	var c valueCaseConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	t := &valueCase{fields: c.Fields}
	switch c.Mode {
	case "lower":
		t.fn = strings.ToLower
	case "upper":
		t.fn = strings.ToUpper
	case "trim":
		t.fn = strings.TrimSpace
	case "title":
		t.fn = titleCase
	case "capitalize":
		t.fn = capitalize
	}
	return t, nil
}

func (t *valueCase) Apply(r *connector.Record) (bool, error) {
	for _, f := range t.fields {
		i := r.Index(f)
		if i < 0 || r.Fields[i].Value.Kind() != connector.KindString {
			continue
		}
		r.Fields[i].Value = connector.String(t.fn(r.Fields[i].Value.AsString()))
	}
	return true, nil
}

// titleCase upper-cases the first letter of each white-space separated word
// and lower-cases the rest: punctuation does not start a word ("o'brien" ->
// "O'brien").
func titleCase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := true
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			start = true
			b.WriteRune(r)
		case start:
			b.WriteRune(unicode.ToUpper(r))
			start = false
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// capitalize upper-cases the first character and lower-cases the rest.
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + strings.ToLower(s[size:])
}
