package transforms

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "drop",
		Summary: "Remove the listed top-level fields.",
		Config:  &fieldsConfig{},
		New:     newDrop,
	})
}

// dropFields removes the listed fields in one pass over the record, keeping
// the order of the rest. Short lists are compared directly, long ones go
// through a set.
type dropFields struct {
	fields []string
	set    map[string]struct{} // for long lists only
}

func newDrop(cfg connector.Config) (connector.Transform, error) {
	var c fieldsConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	t := &dropFields{fields: c.Fields}
	if len(c.Fields) > 8 {
		t.set = make(map[string]struct{}, len(c.Fields))
		for _, f := range c.Fields {
			t.set[f] = struct{}{}
		}
	}
	return t, nil
}

func (t *dropFields) dropped(key string) bool {
	if t.set != nil {
		_, ok := t.set[key]
		return ok
	}
	for _, f := range t.fields {
		if f == key {
			return true
		}
	}
	return false
}

func (t *dropFields) Apply(r *connector.Record) (bool, error) {
	fs := r.Fields
	n := 0
	for i := range fs {
		if t.dropped(fs[i].Key) {
			continue
		}
		if n != i {
			fs[n] = fs[i]
		}
		n++
	}
	if n != len(fs) {
		clear(fs[n:])
		r.Fields = fs[:n]
	}
	return true, nil
}
