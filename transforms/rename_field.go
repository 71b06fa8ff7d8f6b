package transforms

import (
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "rename_field",
		Summary: "Rename top-level fields by exact name; the renamed field keeps its position.",
		Config:  &renameFieldConfig{},
		New:     newRenameField,
	})
}

type renameFieldConfig struct {
	Fields map[string]string `json:"fields" required:"true" doc:"Old name -> new name. A target that already exists on the record is an error."`
}

func (c *renameFieldConfig) Validate() error {
	if len(c.Fields) == 0 {
		return connector.ConfigErrorf("fields", "must rename at least one field")
	}
	for from, to := range c.Fields {
		if from == "" {
			return connector.ConfigErrorf("fields", "field name must not be empty")
		}
		if to == "" {
			return connector.ConfigErrorf("fields."+from, "new name must not be empty")
		}
	}
	return nil
}

type rename struct{ from, to string }

// renameField applies all renames against the record as it was before any
// of them (like the original), so chains ({a: b, b: c}) and swaps
// ({a: b, b: a}) are well defined. A target is taken only if a field that is
// not itself renamed away holds it.
type renameField struct {
	renames []rename // document order, identity renames dropped
}

func newRenameField(cfg connector.Config) (connector.Transform, error) {
	var c renameFieldConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	t := &renameField{}
	target := map[string]string{}
	for _, f := range configFields(cfg, "fields") {
		to := f.Value.AsString()
		if other, dup := target[to]; dup {
			return nil, connector.ConfigErrorf(cfg.Path+".fields",
				"%s and %s both rename to %s", quote(other), quote(f.Key), quote(to))
		}
		target[to] = f.Key
		if to != f.Key {
			t.renames = append(t.renames, rename{from: f.Key, to: to})
		}
	}
	return t, nil
}

func (t *renameField) Apply(r *connector.Record) (bool, error) {
	var buf [16]int
	idx := buf[:0]
	if len(t.renames) > len(buf) {
		idx = make([]int, 0, len(t.renames))
	}
	for _, rn := range t.renames {
		idx = append(idx, r.Index(rn.from))
	}
	for n, rn := range t.renames {
		if idx[n] < 0 {
			continue
		}
		if j := r.Index(rn.to); j >= 0 && !renamedAway(idx, j) {
			return false, fmt.Errorf("rename_field: cannot rename %s to %s: the record already has %s",
				quote(rn.from), quote(rn.to), quote(rn.to))
		}
	}
	for n, rn := range t.renames {
		if idx[n] >= 0 {
			r.Fields[idx[n]].Key = rn.to
		}
	}
	return true, nil
}

// renamedAway reports whether the field at position j is the source of one
// of the renames (and so frees its name).
func renamedAway(idx []int, j int) bool {
	for _, i := range idx {
		if i == j {
			return true
		}
	}
	return false
}
