package transforms

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "redact",
		Summary: "Replace the values of the listed top-level fields with a mask.",
		Config:  &redactConfig{},
		New:     newRedact,
	})
}

type redactConfig struct {
	Fields []string `json:"fields" required:"true" doc:"Top-level fields to mask; fields the record lacks are not added."`
	Mask   any      `json:"mask" doc:"Replacement value, any JSON value (default \"***\")."`
}

func (c *redactConfig) Validate() error { return checkFields("fields", c.Fields) }

type redact struct {
	fields []string
	mask   connector.Value
}

func newRedact(cfg connector.Config) (connector.Transform, error) {
	var c redactConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	mask, ok := configValue(cfg, "mask")
	if !ok {
		mask = connector.String("***")
	}
	return &redact{fields: c.Fields, mask: mask}, nil
}

func (t *redact) Apply(r *connector.Record) (bool, error) {
	for _, f := range t.fields {
		if i := r.Index(f); i >= 0 {
			r.Fields[i].Value = fresh(t.mask)
		}
	}
	return true, nil
}
