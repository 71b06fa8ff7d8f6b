package transforms

import (
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "flatten",
		Summary: "Collapse nested objects into top-level fields with joined keys (arrays are kept).",
		Config:  &flattenConfig{},
		New:     newFlatten,
	})
}

type flattenConfig struct {
	Separator string `json:"separator" default:"__" doc:"Placed between the keys of the nested path (may be empty)."`
}

// flatten replaces each object-valued field by its leaves, in order:
// {"a": {"b": 1, "c": {"d": 2}}} becomes {"a__b": 1, "a__c__d": 2}. Arrays
// are values, not descended into. An empty nested object has no leaves and
// disappears, as in the original. Two paths that produce the same key are
// an error rather than one value silently winning.
type flatten struct {
	sep string
}

func newFlatten(cfg connector.Config) (connector.Transform, error) {
	var c flattenConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &flatten{sep: c.Separator}, nil
}

func (t *flatten) Apply(r *connector.Record) (bool, error) {
	nested := false
	for i := range r.Fields {
		if r.Fields[i].Value.Kind() == connector.KindObject {
			nested = true
			break
		}
	}
	if !nested {
		return true, nil
	}
	out := make([]connector.Field, 0, len(r.Fields)+8)
	for _, f := range r.Fields {
		out = t.appendLeaves(out, f.Key, f.Value)
	}
	// Only keys that came from a nested path can collide (the top-level keys
	// were unique), but the check is over all of them for simplicity.
	if len(out) <= 32 {
		for i := 1; i < len(out); i++ {
			for j := 0; j < i; j++ {
				if out[i].Key == out[j].Key {
					return false, t.collision(out[i].Key)
				}
			}
		}
	} else {
		seen := make(map[string]struct{}, len(out))
		for _, f := range out {
			if _, dup := seen[f.Key]; dup {
				return false, t.collision(f.Key)
			}
			seen[f.Key] = struct{}{}
		}
	}
	r.Fields = out
	return true, nil
}

func (t *flatten) appendLeaves(out []connector.Field, key string, v connector.Value) []connector.Field {
	if v.Kind() != connector.KindObject {
		return append(out, connector.Field{Key: key, Value: v})
	}
	for _, f := range v.AsObject().Fields {
		out = t.appendLeaves(out, key+t.sep+f.Key, f.Value)
	}
	return out
}

func (t *flatten) collision(key string) error {
	return fmt.Errorf("flatten: two fields flatten to the same key %s (separator %s)", quote(key), quote(t.sep))
}
