package transforms

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "json_encode",
		Summary: "Replace object and array fields with their compact JSON text.",
		Config:  &fieldsConfig{},
		New:     newJSONEncode,
	})
}

// jsonEncode is the inverse of json_parse: each listed field holding an
// object or an array becomes a string of its compact JSON (keys in record
// order). Scalars and missing fields are left alone, so it is idempotent.
type jsonEncode struct {
	fields []string
}

func newJSONEncode(cfg connector.Config) (connector.Transform, error) {
	var c fieldsConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &jsonEncode{fields: c.Fields}, nil
}

func (t *jsonEncode) Apply(r *connector.Record) (bool, error) {
	for _, f := range t.fields {
		i := r.Index(f)
		if i < 0 {
			continue
		}
		switch v := r.Fields[i].Value; v.Kind() {
		case connector.KindObject, connector.KindArray:
			r.Fields[i].Value = connector.String(string(connector.AppendJSON(nil, v)))
		}
	}
	return true, nil
}
