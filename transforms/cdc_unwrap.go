package transforms

import (
	"slices"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "cdc_unwrap",
		Summary: "Turn a CDC change event {op, before, after} into the changed row plus an __op marker (d or u).",
		Config:  &cdcUnwrapConfig{},
		New:     newCDCUnwrap,
	})
}

type cdcUnwrapConfig struct {
	OpField     string   `json:"op_field" default:"op" doc:"Envelope field holding the operation code."`
	AfterField  string   `json:"after_field" default:"after" doc:"Envelope field holding the row after the change."`
	BeforeField string   `json:"before_field" default:"before" doc:"Envelope field holding the row before the change."`
	KeyField    string   `json:"key_field" default:"document_key" doc:"Fallback row for a delete without a before image (MongoDB's document key)."`
	MarkerField string   `json:"marker_field" default:"__op" doc:"Field set on every emitted row: \"d\" for a delete, \"u\" for an insert or update."`
	DeleteOps   []string `json:"delete_ops" doc:"Operation codes that mean delete (default [\"d\", \"delete\"])."`
	DropOps     []string `json:"drop_ops" doc:"Operation codes whose events are dropped (default [\"ddl\", \"truncate\"])."`
}

func (c *cdcUnwrapConfig) Validate() error {
	for _, f := range []struct{ key, val string }{
		{"op_field", c.OpField}, {"after_field", c.AfterField}, {"before_field", c.BeforeField},
		{"key_field", c.KeyField}, {"marker_field", c.MarkerField},
	} {
		if f.val == "" {
			return connector.ConfigErrorf(f.key, "must not be empty")
		}
	}
	return nil
}

// cdcUnwrap emits, for a delete, the before image (or the key object when
// there is none) and, for anything else, the after image, each with the
// marker field set; an event of a drop op, or one without a usable row
// image, is dropped (the original also logged a warning for the latter).
// The default op lists cover the insert/update/delete, c/u/d and c/u/r/d
// vocabularies of the postgres, mysql and mongodb CDC sources.
type cdcUnwrap struct {
	cfg cdcUnwrapConfig
}

func newCDCUnwrap(cfg connector.Config) (connector.Transform, error) {
	var c cdcUnwrapConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	if _, ok := configValue(cfg, "delete_ops"); !ok {
		c.DeleteOps = []string{"d", "delete"}
	}
	if _, ok := configValue(cfg, "drop_ops"); !ok {
		c.DropOps = []string{"ddl", "truncate"}
	}
	return &cdcUnwrap{cfg: c}, nil
}

func (t *cdcUnwrap) Apply(r *connector.Record) (bool, error) {
	c := &t.cfg
	opv, _ := r.Get(c.OpField)
	op := opv.AsString()
	if slices.Contains(c.DropOps, op) {
		return false, nil
	}
	del := slices.Contains(c.DeleteOps, op)
	var row connector.Value
	if del {
		row, _ = r.Get(c.BeforeField)
		if row.Kind() != connector.KindObject {
			row, _ = r.Get(c.KeyField)
		}
	} else {
		row, _ = r.Get(c.AfterField)
	}
	if row.Kind() != connector.KindObject {
		return false, nil
	}
	// The image's fields become the record; the envelope's storage is not
	// shared with anything else, so it is moved rather than copied.
	out := row.AsObject()
	out.Fields = slices.Clip(out.Fields)
	marker := "u"
	if del {
		marker = "d"
	}
	out.Set(c.MarkerField, connector.String(marker))
	*r = out
	return true, nil
}
