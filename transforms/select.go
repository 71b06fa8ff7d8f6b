package transforms

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "select",
		Summary: "Keep only the listed top-level fields, in the listed order.",
		Config:  &fieldsConfig{},
		New:     newSelect,
	})
}

// fieldsConfig is the config of the transforms that take only a field list.
type fieldsConfig struct {
	Fields []string `json:"fields" required:"true" doc:"Top-level field names."`
}

func (c *fieldsConfig) Validate() error { return checkFields("fields", c.Fields) }

// selectFields keeps the listed fields and orders them as listed (as the
// original does); listed fields the record lacks are ignored.
type selectFields struct {
	fields []string
}

func newSelect(cfg connector.Config) (connector.Transform, error) {
	var c fieldsConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &selectFields{fields: c.Fields}, nil
}

func (t *selectFields) Apply(r *connector.Record) (bool, error) {
	fs := r.Fields
	n := 0 // fs[:n] holds the selected fields so far, in config order
	for _, name := range t.fields {
		for j := n; j < len(fs); j++ {
			if fs[j].Key == name {
				fs[n], fs[j] = fs[j], fs[n]
				n++
				break
			}
		}
	}
	clear(fs[n:])
	r.Fields = fs[:n]
	return true, nil
}
