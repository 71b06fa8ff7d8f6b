package transforms

import (
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "split",
		Summary: "Split a string field into an array of strings on a delimiter.",
		Config:  &splitConfig{},
		New:     newSplit,
	})
}

type splitConfig struct {
	Field     string `json:"field" required:"true" doc:"The string field to split; other kinds pass through."`
	Delimiter string `json:"delimiter" required:"true" doc:"Separator between elements. Empty means no split: one element holding the whole string."`
	Trim      bool   `json:"trim" default:"false" doc:"Trim white space around each element (empty elements are kept)."`
	Into      string `json:"into" doc:"Write the array to this field and keep the source."`
}

func (c *splitConfig) Validate() error {
	if c.Field == "" {
		return connector.ConfigErrorf("field", "must not be empty")
	}
	return nil
}

type split struct {
	field, delim, into string
	trim               bool
}

func newSplit(cfg connector.Config) (connector.Transform, error) {
	var c splitConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &split{field: c.Field, delim: c.Delimiter, into: c.Into, trim: c.Trim}, nil
}

func (t *split) Apply(r *connector.Record) (bool, error) {
	v, ok := r.Get(t.field)
	if !ok || v.Kind() != connector.KindString {
		return true, nil
	}
	s := v.AsString()
	var parts []string
	if t.delim == "" {
		parts = []string{s}
	} else {
		parts = strings.Split(s, t.delim)
	}
	out := make([]connector.Value, len(parts))
	for i, p := range parts {
		if t.trim {
			p = strings.TrimSpace(p)
		}
		out[i] = connector.String(p)
	}
	target := t.field
	if t.into != "" {
		target = t.into
	}
	r.Set(target, connector.Array(out))
	return true, nil
}
