package transforms

import (
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "join",
		Summary: "Join an array field into a string with a delimiter.",
		Config:  &joinConfig{},
		New:     newJoin,
	})
}

type joinConfig struct {
	Field     string `json:"field" required:"true" doc:"The array field to join; other kinds pass through."`
	Delimiter string `json:"delimiter" required:"true" doc:"Placed between elements."`
	Into      string `json:"into" doc:"Write the string to this field and keep the source."`
}

func (c *joinConfig) Validate() error {
	if c.Field == "" {
		return connector.ConfigErrorf("field", "must not be empty")
	}
	return nil
}

// join renders strings as they are, null as nothing and every other element
// as compact JSON.
type join struct {
	field, delim, into string
}

func newJoin(cfg connector.Config) (connector.Transform, error) {
	var c joinConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &join{field: c.Field, delim: c.Delimiter, into: c.Into}, nil
}

func (t *join) Apply(r *connector.Record) (bool, error) {
	v, ok := r.Get(t.field)
	if !ok || v.Kind() != connector.KindArray {
		return true, nil
	}
	var b strings.Builder
	for i, e := range v.AsArray() {
		if i > 0 {
			b.WriteString(t.delim)
		}
		b.WriteString(e.Text())
	}
	target := t.field
	if t.into != "" {
		target = t.into
	}
	r.Set(target, connector.String(b.String()))
	return true, nil
}
