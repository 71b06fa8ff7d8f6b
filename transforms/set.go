package transforms

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "set",
		Summary: "Set top-level fields to constant values (overwriting existing ones).",
		Config:  &setConfig{},
		New:     newSet,
	})
}

type setConfig struct {
	Values map[string]any `json:"values" required:"true" doc:"Field name -> constant value (any JSON value). New fields are appended in this order; existing ones are replaced where they stand."`
}

func (c *setConfig) Validate() error {
	if len(c.Values) == 0 {
		return connector.ConfigErrorf("values", "must set at least one field")
	}
	if _, ok := c.Values[""]; ok {
		return connector.ConfigErrorf("values", "field name must not be empty")
	}
	return nil
}

type setFields struct {
	values []connector.Field // in document order
}

func newSet(cfg connector.Config) (connector.Transform, error) {
	var c setConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &setFields{values: configFields(cfg, "values")}, nil
}

func (t *setFields) Apply(r *connector.Record) (bool, error) {
	for _, f := range t.values {
		r.Set(f.Key, fresh(f.Value))
	}
	return true, nil
}
