package transforms

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "coalesce",
		Summary: "Fill a missing or null field from a default or the first non-null of other fields.",
		Config:  &coalesceConfig{},
		New:     newCoalesce,
	})
}

type coalesceConfig struct {
	Field                  string   `json:"field" required:"true" doc:"The field to fill when it is missing or null."`
	Default                any      `json:"default" doc:"A constant (any JSON value). Exactly one of default and from."`
	From                   []string `json:"from" doc:"Fields to take the value from; the first non-null wins. Exactly one of default and from."`
	TreatEmptyStringAsNull bool     `json:"treat_empty_string_as_null" default:"false" doc:"Count an empty string as null, for the field and for the from fields."`
}

func (c *coalesceConfig) Validate() error {
	if c.Field == "" {
		return connector.ConfigErrorf("field", "must not be empty")
	}
	// A `default: null` fills null with null: the original reads it as
	// absent, and so do we.
	switch {
	case c.Default != nil && len(c.From) > 0:
		return connector.ConfigErrorf("", "set exactly one of default and from, not both")
	case c.Default == nil && len(c.From) == 0:
		return connector.ConfigErrorf("", "set exactly one of default and from")
	}
	for _, f := range c.From {
		if f == "" {
			return connector.ConfigErrorf("from", "field name must not be empty")
		}
	}
	return nil
}

// coalesce leaves a present, non-null field alone. A missing field that
// gets a value is appended. When no from field has a value the field is left
// as it is (missing stays missing).
type coalesce struct {
	field      string
	def        connector.Value
	hasDefault bool
	from       []string
	emptyNull  bool
}

func newCoalesce(cfg connector.Config) (connector.Transform, error) {
	var c coalesceConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	def, _ := configValue(cfg, "default")
	return &coalesce{field: c.Field, def: def, hasDefault: c.Default != nil, from: c.From, emptyNull: c.TreatEmptyStringAsNull}, nil
}

func (t *coalesce) nullish(v connector.Value, ok bool) bool {
	return !ok || v.IsNull() || (t.emptyNull && v.Kind() == connector.KindString && v.AsString() == "")
}

func (t *coalesce) Apply(r *connector.Record) (bool, error) {
	if !t.nullish(r.Get(t.field)) {
		return true, nil
	}
	if t.hasDefault {
		r.Set(t.field, fresh(t.def))
		return true, nil
	}
	for _, f := range t.from {
		if v, ok := r.Get(f); !t.nullish(v, ok) {
			r.Set(t.field, fresh(v))
			return true, nil
		}
	}
	return true, nil
}
